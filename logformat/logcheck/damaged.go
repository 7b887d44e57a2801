package logcheck

import (
	"fmt"
	"strings"

	"innoscope/finding"
	"innoscope/logformat"
)

// resyncWindow is how far past a damaged mini-transaction the next whole one is looked for (a
// mini-transaction is at most logformat.MaxMTRSize bytes).
const resyncWindow = 2 * logformat.MaxMTRSize

// Damage is a scan that stopped at a damaged mini-transaction although whole ones follow.
type Damage struct {
	At      uint64 // where the scan stopped: the start of the damaged mini-transaction
	Resume  uint64 // the first whole mini-transaction after it
	End     uint64 // where the whole ones after it end
	MTRs    int    // whole mini-transactions from Resume to End
	Records int    // their records
	Pages   int    // the pages their page records change
	// SameBlock: At and End lie in one 4 KiB block of the file. A crash's last write leaves
	// whole mini-transactions past the log's end there, which no recovery reads (the dml lab
	// crash: 40 of them after a zero byte where the next should start), so those found after
	// damage in that block may be such a tail, and the damaged one the last the log holds.
	SameBlock bool
}

// tailBlock is the block a crash's last log write ends in (mariadbd 10.11 writes the log in
// blocks of the device's, "block size=4096 bytes").
const tailBlock = 4096

// CheckpointRecordOnly reports damage that is the FILE_CHECKPOINT mini-transaction alone where
// recovery starts: a checksum failure at the LSN of a checkpoint whose block says its
// FILE_CHECKPOINT record is there (end LSN = LSN), and a whole mini-transaction exactly
// logformat.FileCheckpointMTRSize bytes on. The server refuses such a log ("Missing
// FILE_CHECKPOINT"); the rest of it replays as it is.
func (d *Damage) CheckpointRecordOnly(stop logformat.StopReason, cp logformat.Checkpoint) bool {
	return d != nil && stop == logformat.StopChecksum && cp.EndLSN == cp.LSN && d.At == cp.LSN &&
		d.Resume == d.At+logformat.FileCheckpointMTRSize
}

// salvageSep starts the clause that ends a LOG_DAMAGED message with what the salvage does
// (ReplaceSalvage).
const salvageSep = "; "

// ReplaceSalvage replaces the clause saying what `recover --salvage` does that ends a
// DamageFinding message with clause; ok false when msg has none.
func ReplaceSalvage(msg, clause string) (string, bool) {
	i := strings.LastIndex(msg, salvageSep+"`recover --salvage` ")
	if i < 0 {
		return msg, false
	}
	return msg[:i] + salvageSep + clause, true
}

// Bytes is the part of the log a recovery that stops at At loses.
func (d *Damage) Bytes() uint64 { return d.End - d.At }

// Damaged reports whether a scan of l that stopped at end for the reason stop (a checksum or
// length failure, or a termination byte with the wrong sequence bit; not a zero byte, and not a
// record of a whole mini-transaction, which CORRUPT_LOG reports) left whole mini-transactions
// behind:
// the first one within reach past end, and how many follow it; nil when none.
func Damaged(l *logformat.Log, stop logformat.StopReason, end uint64, pageSize int) (*Damage, error) {
	switch {
	case l == nil:
		return nil, nil
	case stop == logformat.StopChecksum || stop == logformat.StopLength:
		return DamagedAt(l, end, pageSize)
	case stop == logformat.StopSequenceBit:
		// The ordinary end of a log that has wrapped, or a flipped termination byte: then the
		// walk went on into the next mini-transaction, which starts within it.
		return damagedWithin(l, end, -1, pageSize)
	}
	return nil, nil
}

// DamagedAt is Damaged for a scan known to have stopped at damage at end.
func DamagedAt(l *logformat.Log, end uint64, pageSize int) (*Damage, error) {
	return damagedWithin(l, end, resyncWindow, pageSize)
}

// damagedWithin is Damaged with the next whole mini-transaction looked for within window bytes
// (logformat.Log.Resync).
func damagedWithin(l *logformat.Log, end uint64, window, pageSize int) (*Damage, error) {
	r, err := l.Resync(end, window)
	if err != nil || r == 0 {
		return nil, err
	}
	d := &Damage{At: end, Resume: r}
	sc := l.Scan(r, logformat.ScanOptions{PageSize: pageSize})
	pages := map[[2]uint32]bool{}
	for sc.Next() {
		d.MTRs++
		d.Records += len(sc.MTR().Records)
		for _, r := range sc.MTR().Records {
			if r.Type < logformat.FileCreate && !r.SamePage {
				pages[[2]uint32{r.Space, r.Page}] = true
			}
		}
	}
	d.Pages = len(pages)
	d.End = sc.LSN()
	d.SameBlock = l.FileOffset(d.At)/tailBlock == l.FileOffset(d.End)/tailBlock
	return d, sc.Err()
}

// DamageFinding is LOG_DAMAGED: the scan of the log at path stops at damage that whole
// mini-transactions follow. cp is the checkpoint recovery starts from: damage before the end
// LSN its block promises makes the server refuse the log; after it, the server silently stops
// there. Damage that is the checkpoint's FILE_CHECKPOINT mini-transaction alone
// (CheckpointRecordOnly) loses nothing to the salvage, and the message says so.
func DamageFinding(path string, d *Damage, stop logformat.StopReason, detail string, cp logformat.Checkpoint) finding.Finding {
	promised := cp.EndLSN
	// Past the end the checkpoint promises, the server starts and stops at the damage. A crash
	// leaves this too: real SIGKILL crashes of MariaDB 10.11 end with a mini-transaction that
	// fails its checksum and whole ones after it in the same last write (crash sweep seed 1001),
	// which the server's recovery drops as the unfinished tail it is. So it is a warning there,
	// and recover does what the server does; only --salvage declares the range.
	what := "the server's recovery silently stops there and loses them (a crash during the log's last write leaves this too; a flipped byte in a written log looks the same)"
	sev := finding.Warning
	if d.At < promised {
		what = fmt.Sprintf("this is before the end LSN %d the checkpoint promises, so the server refuses to start", promised)
		sev = finding.Error
	}
	at := d.At
	if d.CheckpointRecordOnly(stop, cp) {
		return finding.Finding{Severity: sev, Code: "LOG_DAMAGED", File: path, LSN: &at, Message: fmt.Sprintf(
			"the log is damaged at LSN %d (%s: %s): the %d bytes to LSN %d are the mini-transaction of the FILE_CHECKPOINT record the checkpoint block names, and %d whole mini-transactions (%d records) follow to LSN %d; "+
				"the server refuses the log, `recover --salvage` replays them all from LSN %d and loses nothing",
			d.At, stop, detail, d.Resume-d.At, d.Resume, d.MTRs, d.Records, d.End, d.Resume)}
	}
	salvage := fmt.Sprintf("`recover --salvage` recovers up to LSN %d and declares LSN %d-%d lost", d.At, d.At, d.End)
	msg := fmt.Sprintf("the log is damaged at LSN %d (%s: %s), but %d whole mini-transactions (%d records) follow from LSN %d to %d (%d bytes from the damage): %s"+salvageSep+"%s",
		d.At, stop, detail, d.MTRs, d.Records, d.Resume, d.End, d.Bytes(), what, salvage)
	if d.SameBlock && sev == finding.Warning {
		msg = fmt.Sprintf("the log is damaged at LSN %d (%s: %s); %d whole mini-transactions (%d records) follow from LSN %d to %d, in the same %d-byte block of the file: "+
			"they may be the unfinished tail of the log's last write, which no recovery reads even undamaged (a crash leaves whole mini-transactions past the log's end there, after a zero byte where the next should start), and the damaged one the last the log holds; "+
			"the server's recovery stops at LSN %d"+salvageSep+"%s",
			d.At, stop, detail, d.MTRs, d.Records, d.Resume, d.End, tailBlock, d.At, salvage)
	}
	return finding.Finding{Severity: sev, Code: "LOG_DAMAGED", File: path, LSN: &at, Message: msg}
}
