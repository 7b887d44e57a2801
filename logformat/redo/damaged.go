package redo

import (
	"fmt"

	"innoscope/finding"
	"innoscope/logformat"
	"innoscope/logformat/logcheck"
)

// DamageFindings is LOG_DAMAGED when the scan sc of a MariaDB 10.8+ log stopped at a damaged
// mini-transaction that whole ones follow (logcheck.Damaged), else LOG_TRUNCATED or
// LOG_END_DAMAGED when it stopped on something else than the end marker (logcheck.EndFinding);
// none for the ordinary end of the log, a scan the caller limited, and logs of 512-byte blocks.
func (l *Log) DamageFindings(sc *logformat.Scanner) []finding.Finding {
	stop, detail, off := sc.Stop()
	d, err := logcheck.Damaged(l.v108, stop, sc.LSN(), l.PageSize)
	if err != nil || l.v108 == nil {
		return nil
	}
	if d == nil {
		if f := logcheck.EndFinding(l.v108, l.Path, stop, detail, off, sc.LSN()); f != nil {
			if st, dist, err := logcheck.StaleAfter(l.v108, stop, sc.LSN(), l.PageSize); err == nil && st != nil {
				f.Message += staleNote(st, dist)
			}
			return []finding.Finding{*f}
		}
		return nil
	}
	cp, _ := l.v108.Checkpoint()
	return []finding.Finding{logcheck.DamageFinding(l.Path, d, stop, detail, cp)}
}

// staleNote says why the whole mini-transactions after the end st.At are no log written on
// past it (logcheck.StaleAfter).
func staleNote(st *logcheck.Damage, dist uint64) string {
	why := "a FILE_CHECKPOINT among them names an LSN older than the checkpoint, which no log written after it does"
	if dist != 0 {
		why = fmt.Sprintf("they are a byte copy of the log %d bytes earlier: the stale log buffer bytes mariadbd writes after the end of its last write, in the rest of that block", dist)
	}
	return fmt.Sprintf(". The %d whole mini-transactions at LSN %d-%d after it are not log written on past it (%s), and nothing is lost with them", st.MTRs, st.Resume, st.End, why)
}
