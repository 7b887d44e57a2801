package replay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"innoscope/discovery"
	"innoscope/logformat"
)

// A data directory without its redo log (ib_logfile0 deleted or emptied, the folk remedy many
// scripts apply) is refused by MariaDB 10.11 ("File ./ib_logfile0 was not found", "ib_logfile0 is
// empty, and LSN is unknown"); innodb_force_recovery=6 starts it without any log. The salvage
// gives the copy a new log instead: empty, with its checkpoint at the largest LSN any page
// carries, so that the server starts on the copy without crash recovery and finds no page "in
// the future". What the log held after its last checkpoint is lost and cannot be named: those
// changes are in pages the crash did not write. A mini-transaction whose pages were written only
// in part leaves its table inconsistent; such pages were written after the last checkpoint,
// which is unknown, but not older than the end of the log minus its capacity, so the salvage
// names the files holding pages that recent.

// SalvageNewLog: the redo log is missing or empty; the copy gets a new, empty one at the
// largest page LSN, and what the old one held after its checkpoint is lost.
const SalvageNewLog = "new_log"

// defaultLogFileSize is innodb_log_file_size's default in MariaDB 10.11 (96 MiB): the size of
// the log a no-log salvage gives the copy, and the capacity it assumes the lost log had.
const defaultLogFileSize = 96 << 20

// newLog is a salvage's stand-in for a missing log: a clean log at the largest page LSN, in a
// temporary directory, which the replay reads (it holds nothing to apply) and whose size the
// copy's log gets.
type newLog struct {
	missing string // the log the layout names
	how     string // "absent" or "empty (0 bytes)"
	dir     string // the temporary directory holding the stand-in
	lsn     uint64 // its checkpoint: the largest page LSN
	recent  []fileCount
	pages   int      // pages written within the log's capacity before lsn
	blank   []string // datafiles whose page 0 was never written (created in the lost part of the log)
}

// fileCount is a number of pages of one file.
type fileCount struct {
	path string
	n    int
}

// path is the stand-in log file.
func (n *newLog) path() string { return filepath.Join(n.dir, "ib_logfile0") }

// remove deletes the stand-in.
func (n *newLog) remove() {
	if n != nil {
		os.RemoveAll(n.dir)
	}
}

// missingLog returns the layout's ib_logfile0 and how it is missing when it is absent (and no
// MySQL #innodb_redo is there either) or empty; "" when there is a log to read.
func missingLog(s discovery.Layout) (path, how string) {
	p := filepath.Join(s.LogFileDir(), "ib_logfile0")
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, err := os.Stat(filepath.Join(s.Datadir, "#innodb_redo")); err == nil {
			return "", ""
		}
		return p, "absent"
	case err == nil && fi.Mode().IsRegular() && fi.Size() == 0:
		return p, "empty (0 bytes)"
	}
	return "", ""
}

// standInLog makes the stand-in log for a layout whose log is missing (nil when it is not): it
// reads the LSN of every page of every datafile.
func standInLog(s discovery.Layout) (*newLog, error) {
	missing, how := missingLog(s)
	if missing == "" {
		return nil, nil
	}
	if p := filepath.Join(s.SystemFile()); !regularFile(p) {
		return nil, fmt.Errorf("%s: the redo log is %s and the system tablespace %s is missing too: nothing is left to salvage a data directory from", missing, how, p)
	}
	ts, err := discovery.Scan(s)
	if err != nil {
		return nil, err
	}
	var files, blank []string
	for _, t := range ts {
		if t.Error == "" && t.FoundBy != discovery.FoundTemporary {
			files = append(files, t.Path)
		}
		if t.Note == discovery.NotePage0Zero {
			blank = append(blank, t.Path)
		}
	}
	var top uint64
	if err := eachPageLSN(files, func(_ string, lsn uint64) { top = max(top, lsn) }); err != nil {
		return nil, err
	}
	n := &newLog{missing: missing, how: how, lsn: max(top, logformat.StartOffset), blank: blank}
	window := uint64(defaultLogFileSize - logformat.StartOffset)
	counts := map[string]int{}
	if err := eachPageLSN(files, func(p string, lsn uint64) {
		if lsn+window > n.lsn {
			counts[p]++
			n.pages++
		}
	}); err != nil {
		return nil, err
	}
	for p, c := range counts {
		n.recent = append(n.recent, fileCount{p, c})
	}
	sort.Slice(n.recent, func(i, j int) bool {
		a, b := n.recent[i], n.recent[j]
		return a.n > b.n || a.n == b.n && a.path < b.path
	})
	if n.dir, err = os.MkdirTemp("", "innoscope-new-log-"); err != nil {
		return nil, err
	}
	if err := ResetLog(n.path(), defaultLogFileSize, n.lsn); err != nil {
		n.remove()
		return nil, err
	}
	return n, nil
}

// eachPageLSN calls fn with the FIL_PAGE_LSN of every page of the files that is not all zero.
func eachPageLSN(files []string, fn func(path string, lsn uint64)) error {
	for _, p := range files {
		f, err := discovery.OpenFile(p)
		if err != nil {
			return err
		}
		err = f.EachPage(0, -1, func(_ int64, pg []byte) error {
			if lsn := binary.BigEndian.Uint64(pg[discovery.FilPageLSN:]); lsn != 0 {
				fn(p, lsn)
			}
			return nil
		})
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// action is the salvage's declaration of what the missing log costs.
func (n *newLog) action() SalvageAction {
	var names []string
	for i, c := range n.recent {
		if i == 10 {
			names = append(names, fmt.Sprintf("and %d more files", len(n.recent)-10))
			break
		}
		names = append(names, fmt.Sprintf("%s (%d)", c.path, c.n))
	}
	blank := ""
	if len(n.blank) > 0 {
		blank = fmt.Sprintf(". The page 0 of %d files was never written (their tablespaces were created in the lost part of the log, and the server cannot open them): %s",
			len(n.blank), strings.Join(n.blank, ", "))
	}
	return SalvageAction{Action: SalvageNewLog, File: n.missing, LSN: n.lsn, Pages: n.pages, refused: true,
		Detail: fmt.Sprintf("the redo log is %s: the server refuses to start without it. The copy gets a new empty log (%d MiB) whose checkpoint is LSN %d, the largest LSN on any page, "+
			"so the server starts on it without crash recovery. What the log held after its last checkpoint is lost and unknowable: changes whose pages the crash had not written are gone, "+
			"and a change written to some of its pages and not to others leaves its table inconsistent. Such pages were written after the last checkpoint, which is unknown but not older "+
			"than the log's capacity before its end (%d MiB assumed, the default innodb_log_file_size): %d pages carry an LSN that recent and may be inconsistent, in %s%s. "+
			"Transactions the undo logs show open are rolled back at start from undo pages that may be as inconsistent. Run CHECK TABLE on every table of the copy before using it",
			n.how, defaultLogFileSize>>20, n.lsn, defaultLogFileSize>>20, n.pages, strings.Join(names, ", "), blank)}
}

// NewLog reports whether the plan gives the copy a new log for a missing one (every page of the
// copy is then worth checking: nothing was replayed).
func (p *SalvagePlan) NewLog() bool {
	for _, a := range p.actions() {
		if a.Action == SalvageNewLog {
			return true
		}
	}
	return false
}

// actions is p's actions (none for a nil plan).
func (p *SalvagePlan) actions() []SalvageAction {
	if p == nil {
		return nil
	}
	return p.Actions
}

// regularFile reports whether p is a regular file (following links).
func regularFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// noLogHint is what a refusal for a missing log (err, from opening it) says the salvage does.
func noLogHint(s discovery.Layout, err error, by string) error {
	if p, how := missingLog(s); p != "" {
		return fmt.Errorf("%w; the redo log is %s: %s would make a copy with a new empty log at the largest page LSN, declaring lost what the log held after its last checkpoint and naming the files that may be inconsistent", err, how, by)
	}
	return err
}
