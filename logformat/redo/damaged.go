package redo

import (
	"innoscope/finding"
	"innoscope/logformat"
	"innoscope/logformat/logcheck"
)

// DamageFindings is LOG_DAMAGED when the scan sc of a MariaDB 10.8+ log stopped at a damaged
// mini-transaction that whole ones follow (logcheck.Damaged); none for the ordinary end of the
// log, a scan the caller limited, and logs of 512-byte blocks.
func (l *Log) DamageFindings(sc *logformat.Scanner) []finding.Finding {
	stop, detail, _ := sc.Stop()
	d, err := logcheck.Damaged(l.v108, stop, sc.LSN(), l.PageSize)
	if d == nil || err != nil {
		return nil
	}
	cp, _ := l.v108.Checkpoint()
	return []finding.Finding{logcheck.DamageFinding(l.Path, d, stop, detail, cp)}
}
