package redo

import (
	"innoscope/logformat"
	"innoscope/logformat/logcheck"
	"innoscope/report"
)

// DamageFindings is LOG_DAMAGED when the scan sc of a MariaDB 10.8+ log stopped at a damaged
// mini-transaction that whole ones follow (logcheck.Damaged); none for the ordinary end of the
// log, a scan the caller limited, and logs of 512-byte blocks.
func (l *Log) DamageFindings(sc *logformat.Scanner) []report.Finding {
	stop, detail, _ := sc.Stop()
	d, err := logcheck.Damaged(l.v108, stop, sc.LSN(), l.PageSize)
	if d == nil || err != nil {
		return nil
	}
	cp, _ := l.v108.Checkpoint()
	return []report.Finding{logcheck.DamageFinding(l.Path, d, stop, detail, cp)}
}
