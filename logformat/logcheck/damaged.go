package logcheck

import (
	"fmt"
	"path/filepath"
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

	oldestCheckpoint uint64 // the oldest LSN a FILE_CHECKPOINT record from Resume names; 0: none
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
// (logformat.Log.Resync). A run of whole ones that is not the log written on past the damage
// (staleRun) is passed over and the search goes on after it, within the window.
func damagedWithin(l *logformat.Log, end uint64, window, pageSize int) (*Damage, error) {
	d, _, err := runsWithin(l, end, window, pageSize)
	return d, err
}

// StaleAfter is the first run of whole mini-transactions that Damaged passed over after a scan
// of l stopped at end for the reason stop: bytes the server left past its log, with how many
// bytes earlier the log holds the same bytes (0: the run holds an older FILE_CHECKPOINT
// instead); nil when there is none, or when Damaged found log written on past end.
func StaleAfter(l *logformat.Log, stop logformat.StopReason, end uint64, pageSize int) (*Damage, uint64, error) {
	window := resyncWindow
	switch {
	case l == nil:
		return nil, 0, nil
	case stop == logformat.StopSequenceBit:
		window = -1
	case stop != logformat.StopChecksum && stop != logformat.StopLength:
		return nil, 0, nil
	}
	d, stale, err := runsWithin(l, end, window, pageSize)
	if err != nil || d != nil || stale == nil {
		return nil, 0, err
	}
	dist, err := l.StaleCopy(stale.At, stale.Resume, stale.End)
	return stale, dist, err
}

// runsWithin is damagedWithin, with the first stale run it passed over.
func runsWithin(l *logformat.Log, end uint64, window, pageSize int) (*Damage, *Damage, error) {
	cp, _ := l.Checkpoint()
	var first *Damage
	from, left := end, window
	for {
		r, err := l.Resync(from, left)
		if err != nil || r == 0 {
			return nil, first, err
		}
		d, err := wholeRun(l, end, r, pageSize, cp)
		if err != nil {
			return nil, first, err
		}
		stale, err := staleRun(l, d)
		if err != nil || !stale {
			return d, first, err
		}
		if first == nil {
			first = d
		}
		if window < 0 || d.End <= from || d.End-end >= uint64(window) {
			return nil, first, nil
		}
		from, left = d.End, window-int(d.End-end)
	}
}

// wholeRun is the run of whole mini-transactions from r, after the damage at end, with the
// oldest LSN its FILE_CHECKPOINT records past the end LSN of the checkpoint cp name (those
// before it may name the checkpoint before cp).
func wholeRun(l *logformat.Log, end, r uint64, pageSize int, cp logformat.Checkpoint) (*Damage, error) {
	d := &Damage{At: end, Resume: r}
	sc := l.Scan(r, logformat.ScanOptions{PageSize: pageSize})
	pages := map[[2]uint32]bool{}
	for sc.Next() {
		d.MTRs++
		d.Records += len(sc.MTR().Records)
		for _, r := range sc.MTR().Records {
			if c := r.CheckpointLSN; r.Type == logformat.FileCheckpoint && sc.MTR().LSN > cp.EndLSN && (d.oldestCheckpoint == 0 || c < d.oldestCheckpoint) {
				d.oldestCheckpoint = c
			}
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

// staleRun tells whether the whole mini-transactions of d are bytes the server left past its
// log rather than log it wrote on past the damage: a copy of its log whole write blocks earlier
// (the stale log buffer bytes that fill the last block of every write: logformat.Log.StaleCopy),
// or, past the FILE_CHECKPOINT record of the checkpoint recovery starts from, one naming an LSN
// older than that checkpoint (the server's checkpoints only move forward and are written one
// at a time, so the log after that record names none older).
func staleRun(l *logformat.Log, d *Damage) (bool, error) {
	if cp, ok := l.Checkpoint(); ok && d.oldestCheckpoint != 0 && d.oldestCheckpoint < cp.LSN {
		return true, nil // (wholeRun counts only the records after the FILE_CHECKPOINT of cp)
	}
	dist, err := l.StaleCopy(d.At, d.Resume, d.End)
	return dist != 0, err
}

// DamageFinding is LOG_DAMAGED: the scan of the log at path stops at damage that whole
// mini-transactions follow. cp is the checkpoint recovery starts from: damage before the end
// LSN its block promises makes the server refuse the log; after it, the server silently stops
// there, a warning when the whole ones fill at most one 4 KiB block (a crash's last write), an
// error past that (committed work is lost). Damage that is the checkpoint's FILE_CHECKPOINT mini-transaction alone
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
	switch {
	case d.At < promised:
		what = fmt.Sprintf("this is before the end LSN %d the checkpoint promises, so the server refuses to start", promised)
		sev = finding.Error
	case d.End-d.Resume > tailBlock:
		// A crash leaves whole mini-transactions after a damaged one only inside the block of
		// its last write; more than a block of them is a log written on past the damage.
		what = fmt.Sprintf("that is more than one %d-byte block of whole mini-transactions, which no crash leaves after a damaged one (only the block of its last write can hold such a tail): "+
			"the log was written on past the damage, and the server's recovery silently stops there and loses the committed work they hold", tailBlock)
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
	if d.SameBlock && sev == finding.Warning { // (the whole ones are within one block: d.End-d.Resume <= tailBlock)
		msg = fmt.Sprintf("the log is damaged at LSN %d (%s: %s); %d whole mini-transactions (%d records) follow from LSN %d to %d, in the same %d-byte block of the file: "+
			"they may be the unfinished tail of the log's last write, which no recovery reads even undamaged (a crash leaves whole mini-transactions past the log's end there, after a zero byte where the next should start), and the damaged one the last the log holds; "+
			"the server's recovery stops at LSN %d"+salvageSep+"%s",
			d.At, stop, detail, d.MTRs, d.Records, d.Resume, d.End, tailBlock, d.At, salvage)
	}
	return finding.Finding{Severity: sev, Code: "LOG_DAMAGED", File: path, LSN: &at, Message: msg}
}

// EndFinding is what the end of a scan of the MariaDB 10.8+ log l (at path) from its checkpoint
// says when no whole mini-transaction follows it (Damaged found none): the scan stopped at end
// for the reason stop (detail), at file offset stopOff. nil for the end marker (a zero byte, a
// termination byte of the other pass) inside the file. The log format records no size, so the
// server reads a shortened file as a smaller ring and silently stops where the bytes of the
// ring's start (its oldest data) fail to continue the log:
//   - LOG_TRUNCATED (warning): the mini-transaction at end runs past the end of the file (the scan
//     stopped back at the start of the ring), or end is the end of the file exactly and what
//     follows is of an earlier pass; a real log is written across its end without a seam.
//   - LOG_END_DAMAGED (warning): the log ends on a mini-transaction that fails its checksum or
//     whose lengths are invalid, not on the end marker: a crash's torn last write, or damage
//     that cut the log short.
//
// Pages newer than end in the datafiles make either an error (the caller knows the pages).
func EndFinding(l *logformat.Log, path string, stop logformat.StopReason, detail string, stopOff int64, end uint64) *finding.Finding {
	var code, msg string
	endOff := l.FileOffset(end)
	crossed := stopOff >= 0 && stopOff < endOff || endOff == logformat.StartOffset && end != l.Header.FirstLSN
	switch {
	case stop == logformat.StopZero || stop == logformat.StopLimit || stop == logformat.StopMalformed || stop == "":
		return nil
	case crossed:
		code = "LOG_TRUNCATED"
		msg = fmt.Sprintf("the log ends at LSN %d (file offset %d) with a mini-transaction that runs past the end of the file (%d bytes): the scan stopped at file offset %d, back at the start of the ring, on %s (%s). "+
			"The bytes at the start of the ring are older log, so the file is probably shorter than the log it held (cut by truncate, a copy that stopped short, a smaller file put in its place): "+
			"MariaDB 10.8+ records no log size, the server reads the file as a ring of that size and stops at LSN %d without a word, losing whatever the log held after it. "+
			"Find the whole %s (a backup, the original disk) before the server starts on this one",
			end, endOff, l.Size, stopOff, stop, detail, end, filepath.Base(path))
	case stop == logformat.StopChecksum || stop == logformat.StopLength:
		code = "LOG_END_DAMAGED"
		msg = fmt.Sprintf("the log ends at LSN %d (file offset %d) on a mini-transaction that fails (%s: %s), not on the end marker (a zero byte, or a termination byte of the ring's previous pass): "+
			"a crash during the log's last write leaves this, and so does damage that cut the log short; the server's recovery stops there too without a word, and whatever the log held after it is lost",
			end, endOff, stop, detail)
	default:
		return nil
	}
	return &finding.Finding{Severity: finding.Warning, Code: code, File: path, LSN: &end, Message: msg}
}
