package redo

import (
	"fmt"
	"io"

	"innoscope/logformat"
)

// ScanOptions say where a scan starts and ends.
type ScanOptions struct {
	// From is where to start instead of the checkpoint (0: at the checkpoint). In a log of
	// page records (MariaDB 10.5+), below the checkpoint it must be a mini-transaction start;
	// after it, the scan starts at the first mini-transaction that starts at or after From
	// (found by reading from the checkpoint: Notes says so when that is not From itself), and a
	// From past the end of the log is refused.
	From uint64
	// Exact starts a MariaDB 10.8+ scan at From even after the checkpoint (a salvage resuming
	// past a damaged mini-transaction).
	Exact bool
	// To: stop before the first mini-transaction starting at or after it (0: the end of the log).
	To uint64
	// Notes receives a line when the scan cannot start where asked (an LSN before the oldest
	// block a ring holds: it starts at that block); nil: none.
	Notes io.Writer
	// Progress, if set, is called as a listing of records goes on with the bytes of the log
	// scanned and the log's capacity.
	Progress func(done, total int64)
}

// CheckpointLSN is the LSN of the checkpoint recovery uses, 0 when no block is valid.
func (l *Log) CheckpointLSN() uint64 {
	cp, _ := l.Checkpoint()
	return cp.LSN
}

// noStart is the error of a scan with neither a valid checkpoint nor a From.
func (l *Log) noStart() error {
	return fmt.Errorf("%s: no valid checkpoint block, so no known place to start; give --from-lsn", l.Path)
}

// Scanner decodes the mini-transactions of a log of page records (MariaDB 10.5+; see
// Replayable) from the checkpoint or opt.From, checked against the page size; with the
// checkpoint LSN. It stops before the first mini-transaction that starts at or after opt.To.
func (l *Log) Scanner(opt ScanOptions) (*logformat.Scanner, uint64, error) {
	if l.blocks == nil {
		cp, ok := l.Checkpoint()
		if !ok && opt.From == 0 {
			return nil, 0, l.noStart()
		}
		start := cp.LSN
		switch {
		case opt.From == 0 || opt.From == cp.LSN && ok:
		case opt.From < cp.LSN || !ok || opt.Exact:
			start = opt.From
		default:
			var err error
			if start, err = l.reach(opt.From, opt.Notes); err != nil {
				return nil, 0, err
			}
		}
		sc := l.v108.Scan(start, logformat.ScanOptions{PageSize: l.PageSize, ToLSN: opt.To})
		if start == opt.From && (start < cp.LSN || !ok || opt.Exact) {
			if err := l.startsMTR(sc, start, cp.LSN, ok && start < cp.LSN && !opt.Exact); err != nil {
				return nil, 0, err
			}
		}
		return sc, cp.LSN, nil
	}
	start, cpLSN, err := l.blockStart(opt.From)
	if err != nil {
		return nil, 0, err
	}
	if opt.From > cpLSN && l.Selected >= 0 {
		if start, err = l.reach(opt.From, opt.Notes); err != nil {
			return nil, 0, err
		}
	}
	walk, before, err := l.ringWalkStart(start, opt.Notes)
	if err != nil {
		return nil, 0, err
	}
	l.blocks.SetWalkStart(walk)
	from := start
	if before {
		from = 0 // the first mini-transaction of the oldest block
	}
	sc, err := l.blocks.PhysScanner(from, l.PageSize)
	if err != nil {
		return nil, 0, err
	}
	sc.StopBefore(opt.To)
	if opt.From != 0 && from == opt.From && from < cpLSN {
		if err := l.startsMTR(sc, from, cpLSN, l.Selected >= 0); err != nil {
			return nil, 0, err
		}
	}
	return sc, cpLSN, nil
}

// startsMTR refuses a --from-lsn at which no mini-transaction starts: the scan of sc, from
// there, would stop at once on a checksum or a malformed record, which says nothing of the log
// (its records were read from the middle of one) but would be reported as damage. below: from
// is below a valid checkpoint, so the log goes on past it: a zero byte there (the end marker,
// which a record's space id or page number 0 reads as when from is inside one) is no
// mini-transaction start either, not the end of the log.
func (l *Log) startsMTR(sc *logformat.Scanner, from, cpLSN uint64, below bool) error {
	reason, detail, bad := sc.FirstFault()
	if !bad && below {
		reason, detail, bad = sc.FirstZero()
	}
	if !bad {
		return nil
	}
	return fmt.Errorf("%s: no mini-transaction starts at LSN %d (read from there: %s, %s): --from-lsn must be the start of one, "+
		"such as checkpoint LSN %d or an LSN `log records` lists", l.Path, from, reason, detail, cpLSN)
}

// reach is where a scan from from, after the checkpoint, starts: the first mini-transaction
// that starts at or after it, found by reading the log from the checkpoint (a line on notes
// when from lies inside one). A from past the end of the log is refused: nothing starts there.
func (l *Log) reach(from uint64, notes io.Writer) (uint64, error) {
	sc, cpLSN, err := l.Scanner(ScanOptions{To: from})
	if err != nil {
		return 0, err
	}
	last := cpLSN
	for sc.Next() {
		last = sc.MTR().LSN
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	stop, detail, _ := sc.Stop()
	at := sc.LSN()
	switch {
	case at == from:
		return from, nil
	case stop == logformat.StopLimit:
		if notes != nil {
			fmt.Fprintf(notes, "%s: LSN %d is inside the mini-transaction from LSN %d to %d: reading from LSN %d, the first that starts after it\n",
				l.Path, from, last, at, at)
		}
		return at, nil
	}
	return 0, l.pastEnd(from, cpLSN, at, stop, detail)
}

// pastEnd is the refusal of a --from-lsn from past the end of the log, which a scan from the
// checkpoint cpLSN found at end (stop: why, detail).
func (l *Log) pastEnd(from, cpLSN, end uint64, stop logformat.StopReason, detail string) error {
	return fmt.Errorf("%s: --from-lsn %d is past the end of the log: read from checkpoint LSN %d, it ends at LSN %d (%s: %s); give an LSN up to %d",
		l.Path, from, cpLSN, end, stop, detail, end)
}

// blockStart is where a log of blocks is read from: from, else the checkpoint; with the
// checkpoint LSN. An MLOG log's from past the end of the written data (walked from the
// checkpoint's block) is refused (a MariaDB 10.5-10.7 log's by reach).
func (l *Log) blockStart(from uint64) (start, cpLSN uint64, err error) {
	cpLSN = l.CheckpointLSN()
	if from > cpLSN && l.Selected >= 0 && !l.blocks.Physical() {
		l.blocks.SetWalkStart(cpLSN)
		bs, err := l.blocks.ScanBlocks()
		if err != nil {
			return 0, 0, err
		}
		if from > bs.EndLSN {
			return 0, 0, l.pastEnd(from, cpLSN, bs.EndLSN, bs.Stop, bs.StopDetail)
		}
	}
	if from != 0 {
		return from, cpLSN, nil
	}
	if l.Selected < 0 {
		return 0, 0, l.noStart()
	}
	return cpLSN, cpLSN, nil
}

// ringWalkStart is where the walk of a ring log's blocks starts for the start LSN: its block,
// or the oldest block the ring holds when start is before it (from LSN 1: the whole log, said
// on notes), with before set.
func (l *Log) ringWalkStart(start uint64, notes io.Writer) (uint64, bool, error) {
	if !l.blocks.IsRing() {
		return start, false, nil
	}
	oldest, err := l.blocks.OldestLSN()
	if err != nil || start >= oldest {
		return start, false, err
	}
	if notes != nil {
		fmt.Fprintf(notes, "%s: LSN %d is before the oldest block the log holds (LSN %d): reading from its first mini-transaction\n",
			l.Path, start, oldest)
	}
	return oldest, true, nil
}

// scanMLog decodes an MLOG log's mini-transactions and calls fn for those that start at or
// after the start LSN (the checkpoint, or opt.From) and before opt.To; with the checkpoint
// and start LSNs. A MySQL 8.0.30+ file is decoded from its first mini-transaction on, a ring
// from the first one that starts in the start LSN's block, so that any start LSN is reached on
// a boundary.
func (l *Log) scanMLog(opt ScanOptions, fn func(*logformat.MLogMTR)) (logformat.MLogScan, uint64, uint64, error) {
	start, cpLSN, err := l.blockStart(opt.From)
	if err != nil {
		return logformat.MLogScan{}, 0, 0, err
	}
	walk, _, err := l.ringWalkStart(start, opt.Notes)
	if err != nil {
		return logformat.MLogScan{}, 0, 0, err
	}
	l.blocks.SetWalkStart(walk)
	sc, err := l.blocks.ScanRecords(0, func(m *logformat.MLogMTR) error {
		if m.LSN >= start && (opt.To == 0 || m.LSN < opt.To) {
			fn(m)
		}
		return nil
	})
	return sc, cpLSN, start, err
}

// BlockStart is where a log of blocks is read from: from, else the checkpoint (an error when
// no checkpoint block is valid); with the checkpoint LSN.
func (l *Log) BlockStart(from uint64) (start, cpLSN uint64, err error) { return l.blockStart(from) }
