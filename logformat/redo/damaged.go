package redo

import (
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
			return []finding.Finding{*f}
		}
		return nil
	}
	cp, _ := l.v108.Checkpoint()
	return []finding.Finding{logcheck.DamageFinding(l.Path, d, stop, detail, cp)}
}
