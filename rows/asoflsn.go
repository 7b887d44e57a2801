package rows

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"

	"innoscope/discovery"
	"innoscope/logformat"
	"innoscope/logformat/redo"
)

// The LSN of a commit, from the redo log (MariaDB 10.8+): a transaction commits in the
// mini-transaction that adds its undo log to the history list and writes its commit number to
// the undo log header (trx_purge_add_undo_to_history: TRX_UNDO_TRX_NO, logged from its first
// changed byte). A transaction is visible at LSN P when that mini-transaction ended at or
// before P. The redo log is read from its first LSN when it has not wrapped since (else from
// the checkpoint): a point before that is refused.

// undoHeaderKey is where an undo log header's TRX_UNDO_TRX_NO field ends.
type undoHeaderKey struct {
	space, page uint32
	end         int
}

// LSNCut finds the cut of a consistent read at LSN lsn: the oldest commit after lsn in the
// history. It refuses an LSN the redo log does not reach back to, one after its end, and one
// older than the history (purge removed the undo logs of transactions that committed after it).
// commitLog, when not "", is the redo log (a file, or the directory that holds it) to read the
// commits from instead of the data directory's: the crashed original's, when s is the copy
// `recover` made (whose log it reset).
func LSNCut(s discovery.Layout, h *discovery.UndoHistory, lsn uint64, commitLog string) (Cut, error) {
	loc := redo.Location{Arg: s.Datadir, Datadir: s.Datadir, LogDir: s.LogDir}
	if commitLog != "" {
		loc = redo.Location{Arg: commitLog}
		if fi, err := os.Stat(commitLog); err == nil && fi.IsDir() {
			loc.Datadir = commitLog
		}
	}
	l, err := redo.Open(loc)
	if err != nil {
		return Cut{}, err
	}
	defer l.Close()
	if l.V108() == nil {
		return Cut{}, fmt.Errorf("%s: a %s redo log: --as-of LSN needs the MariaDB 10.8+ log format to place commits; give --as-of-trx ID (`--versions` lists the writers)", l.Path, l.Header.FormatName)
	}
	cp, ok := l.Checkpoint()
	if !ok {
		return Cut{}, fmt.Errorf("%s: no valid checkpoint: give --as-of-trx ID (`--versions` lists the writers)", l.Path)
	}
	// From the log's first LSN when it cannot have wrapped since; a scan that does not reach
	// the checkpoint (bytes overwritten after all) is done again from the checkpoint.
	var sc commitScan
	first := l.Header.FirstLSN
	if first < cp.LSN && cp.LSN-first < l.Capacity() {
		if sc, err = scanCommits(l, first, h, lsn); err != nil || sc.end < cp.LSN {
			sc.start = 0
		}
	}
	if sc.start == 0 {
		if sc, err = scanCommits(l, cp.LSN, h, lsn); err != nil {
			return Cut{}, err
		}
	}
	start, end, commit, purgedAfter, lastChange := sc.start, sc.end, sc.commit, sc.purgedAfter, sc.lastChange
	if lsn < start {
		return Cut{}, fmt.Errorf("%s: LSN %d is before the oldest the redo log holds (%d): the commits before it cannot be placed. "+
			"Give the point as --as-of-trx ID (the transaction whose changes and later ones are undone; `--versions` lists the writers)%s", l.Path, lsn, start, copyHint(commitLog))
	}
	if lsn > end {
		return Cut{}, fmt.Errorf("%s: LSN %d is after the end of the redo log (%d): give an LSN up to %d (at the end: the committed rows)", l.Path, lsn, end, end)
	}
	// Commit numbers follow commit order: a history transaction numbered after one whose commit
	// the scan found committed within the scan too, and must have been found.
	minFound := uint64(math.MaxUint64)
	for id := range commit {
		minFound = min(minFound, h.Logs[id].TrxNo)
	}
	for id, lg := range h.Logs {
		if _, ok := commit[id]; !ok && lg.TrxNo > minFound {
			return Cut{}, fmt.Errorf("%s: the commit of trx %d (commit number %d, undo log header at space %d page %d offset %d) is not in the redo log, "+
				"though a commit before it is: commits cannot be placed; give --as-of-trx ID (`--versions` lists the writers)",
				l.Path, id, lg.TrxNo, lg.Space, lg.Page, lg.Offset)
		}
	}
	cut := Cut{TrxNo: math.MaxUint64, What: fmt.Sprintf("LSN %d (no transaction committed after it: the committed rows)", lsn)}
	var oldest discovery.UndoLog
	for id, lg := range h.Logs {
		if oldest.TrxNo == 0 || lg.TrxNo < oldest.TrxNo {
			oldest = lg
		}
		if c, ok := commit[id]; ok && c > lsn && lg.TrxNo < cut.TrxNo {
			cut = Cut{TrxNo: lg.TrxNo, What: fmt.Sprintf("LSN %d (trx %d, commit number %d, committed at LSN %d, is the first commit after it)", lsn, id, lg.TrxNo, c)}
		}
	}
	if c, ok := commit[oldest.TrxID]; oldest.TrxNo != 0 && ok && c > lsn && purgedAfter != 0 {
		return Cut{}, fmt.Errorf("LSN %d is older than the undo history: the history list changed at LSN %d, after it, by a commit or a purge "+
			"whose undo log is gone, and the oldest commit the history holds is trx %d at LSN %d: a transaction that committed in between may be lost. "+
			"Give a point at or after LSN %d (the last such change), or --as-of-trx %d", lsn, purgedAfter, oldest.TrxID, c, lastChange, oldest.TrxID)
	}
	if len(h.Logs) == 0 && purgedAfter != 0 {
		return Cut{}, fmt.Errorf("LSN %d is older than the undo history: the history is empty and purge changed it at LSN %d, after the point", lsn, purgedAfter)
	}
	return cut, nil
}

// rsegHistoryOffset is TRX_RSEG_HISTORY's offset in a rollback segment header page.
const rsegHistoryOffset = FilData + 8

// copyHint is the advice for a data directory whose log does not reach back: a copy `recover`
// made starts a new log, the original's still holds the commits.
func copyHint(commitLog string) string {
	if commitLog != "" {
		return ""
	}
	return ", or, on a copy `innoscope recover` made (which starts a new redo log), --commit-log ORIGINAL (the crashed directory's log)"
}

// commitScan is what a scan of the redo log found: its extent, the end LSN of each history
// transaction's commit, and the changes of a history list no history transaction explains.
type commitScan struct {
	start, end uint64
	commit     map[uint64]uint64 // trx id -> end LSN of its commit
	// purgedAfter is the first such change that ends after the point; lastChange ends the last.
	purgedAfter, lastChange uint64
}

// scanCommits reads the log from LSN from to its end.
func scanCommits(l *redo.Log, from uint64, h *discovery.UndoHistory, lsn uint64) (commitScan, error) {
	opt := redo.ScanOptions{}
	if from != l.CheckpointLSN() {
		opt.From = from
	}
	sc, _, err := l.Scanner(opt)
	if err != nil {
		return commitScan{}, err
	}
	heads := map[undoHeaderKey]discovery.UndoLog{}
	rsegs := map[[2]uint32]bool{}
	for _, lg := range h.Logs {
		heads[undoHeaderKey{lg.Space, lg.Page, lg.Offset + 16}] = lg
	}
	for _, rs := range h.Rsegs {
		rsegs[[2]uint32{rs.Space, rs.Page}] = true
	}
	r := commitScan{start: from, end: from, commit: map[uint64]uint64{}}
	for sc.Next() {
		m := sc.MTR()
		r.end = m.EndLSN
		matched, history := false, false
		for _, rec := range m.Records {
			if rec.Type != logformat.Write {
				continue
			}
			e := int(rec.Offset) + len(rec.Data)
			if rsegs[[2]uint32{rec.Space, rec.Page}] && int(rec.Offset) < rsegHistoryOffset+16 && e > rsegHistoryOffset {
				history = true
			}
			lg, ok := heads[undoHeaderKey{rec.Space, rec.Page, e}]
			if !ok || len(rec.Data) > 8 || len(rec.Data) == 0 {
				continue
			}
			var no [8]byte
			binary.BigEndian.PutUint64(no[:], lg.TrxNo)
			if string(no[8-len(rec.Data):]) == string(rec.Data) {
				r.commit[lg.TrxID] = m.EndLSN
				matched = true
			}
		}
		if history && !matched {
			// A commit whose undo log is gone, or purge removing one.
			if m.EndLSN > lsn && r.purgedAfter == 0 {
				r.purgedAfter = m.LSN
			}
			r.lastChange = m.EndLSN
		}
	}
	return r, sc.Err()
}
