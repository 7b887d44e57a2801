package redo

import (
	"fmt"
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
	f := logcheck.DamageFinding(l.Path, d, stop, detail, cp.EndLSN)
	if stop == logformat.StopChecksum && d.At == cp.LSN && cp.EndLSN == cp.LSN && d.Resume == d.At+logformat.FileCheckpointMTRSize {
		// The damaged bytes are the FILE_CHECKPOINT mini-transaction where recovery starts (the
		// salvage's case, replay.damagedCheckpointRecord): nothing else is lost.
		f.Message = fmt.Sprintf("the log is damaged at LSN %d (%s: %s): the %d bytes to LSN %d are the mini-transaction of the FILE_CHECKPOINT record the checkpoint block names, and %d whole mini-transactions (%d records) follow to LSN %d; "+
			"the server refuses the log, `recover --salvage` replays them all from LSN %d and loses nothing",
			d.At, stop, detail, d.Resume-d.At, d.Resume, d.MTRs, d.Records, d.End, d.Resume)
	}
	return []report.Finding{f}
}
