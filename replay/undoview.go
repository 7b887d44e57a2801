package replay

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"innoscope/discovery"
	"innoscope/logformat"
	"innoscope/report"
)

// pageReader reads pages of the recovery's tablespaces: the image recovery holds in memory
// when there is one (cached), else the file's.
func (r *recovery) pageReader(cached bool) discovery.PageReader {
	return func(space, no uint32) ([]byte, error) {
		if cached {
			if p := r.cache[PageID{space, no}]; p != nil && p.data != nil {
				return p.data, nil
			}
		}
		t, err := r.space(space)
		if err != nil {
			return nil, err
		}
		if t == nil {
			return nil, fmt.Errorf("page %d of tablespace %d, which the log deletes or recovery does not read", no, space)
		}
		return t.read(no)
	}
}

// UndoView is the system and undo tablespaces as crash recovery leaves them, held in memory
// (the files are only read): their undo logs and the data dictionary.
type UndoView struct {
	Trxs    []discovery.UndoTrx
	Tables  []discovery.DictTable
	Indexes []discovery.DictIndex
}

// RecoveredUndo applies the log's records for the system tablespace (0) and the undo
// tablespaces to in-memory images of their pages, read from the files opt.Copy describes (the
// source: nothing is written), and reads the undo logs and the dictionary from the result.
// opt.CopyPath maps a log file name to its file.
func RecoveredUndo(sc *logformat.Scanner, opt RecoverOptions, spaces []discovery.Tablespace) (*UndoView, error) {
	only := map[uint32]bool{0: true}
	for _, t := range spaces {
		if t.FoundBy == discovery.FoundUndo && t.Error == "" {
			only[t.SpaceID] = true
		}
	}
	r := &recovery{opt: opt, an: opt.Analysis, spaces: map[uint32]*tsFile{}, cache: map[PageID]*cached{},
		written: map[PageID]bool{}, applied: map[PageID]bool{}, readOnly: true, only: only}
	r.res.Applied = map[string]int{}
	defer r.closeAll()
	if err := r.openSpaces(); err != nil {
		return nil, err
	}
	for sc.Next() {
		if err := r.applyMTR(sc.MTR()); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	read := r.pageReader(true)
	v := &UndoView{}
	var err error
	if v.Trxs, err = discovery.ReadUndoTrxs(read); err != nil {
		return nil, err
	}
	sys, err := r.space(0)
	if err != nil {
		return nil, err
	}
	f, err := discovery.NewFile(pageAt{read: read, size: int64(sys.phys)}, 1<<40, sys.path)
	if err != nil {
		return nil, err
	}
	if v.Tables, err = discovery.ReadDictTables(f); err != nil {
		return nil, err
	}
	if v.Indexes, err = discovery.ReadDictIndexes(f); err != nil {
		return nil, err
	}
	return v, nil
}

// pageAt reads the system tablespace through a PageReader (whole pages at page offsets).
type pageAt struct {
	read discovery.PageReader
	size int64
}

func (p pageAt) ReadAt(b []byte, off int64) (int, error) {
	n := 0
	for n < len(b) {
		no := (off + int64(n)) / p.size
		pg, err := p.read(0, uint32(no))
		if err != nil {
			return n, err
		}
		at := (off + int64(n)) % p.size
		if at >= int64(len(pg)) {
			return n, io.ErrUnexpectedEOF
		}
		n += copy(b[n:], pg[at:])
	}
	return n, nil
}

// SourcePath maps a file name from the redo log (relative to datadir, or absolute) to its path.
func SourcePath(datadir string) func(name string) string {
	return func(name string) string {
		if filepath.IsAbs(name) {
			return name
		}
		return filepath.Join(datadir, name)
	}
}

// pendingRollback is PlanRollback on in.Undo, limited to the tablespaces the server's crash
// recovery has open when it rolls back (those the log names and does not delete).
func pendingRollback(in Input) []RolledBackDDL {
	if in.Undo == nil || in.Analysis == nil {
		return nil
	}
	var out []RolledBackDDL
	for _, e := range PlanRollback(in.Undo.Trxs, in.Undo.Tables, in.Undo.Indexes) {
		if s := in.Analysis.Map.Spaces[e.SpaceID]; e.SpaceID != 0 && s != nil && !s.Deleted {
			out = append(out, e)
		}
	}
	return out
}

// uncommittedDDLFindings: UNCOMMITTED_DDL (info) for each DDL transaction the crash left
// uncommitted whose rollback moves or removes files.
func uncommittedDDLFindings(in Input) []report.Finding {
	var out []report.Finding
	byTrx := map[uint64][]string{}
	var order []uint64
	for _, e := range pendingRollback(in) {
		if byTrx[e.TrxID] == nil {
			order = append(order, e.TrxID)
		}
		w := fmt.Sprintf("renames tablespace %d back to %s", e.SpaceID, e.Table)
		if e.Action == "delete" {
			w = fmt.Sprintf("drops tablespace %d (%s), which it created", e.SpaceID, e.Table)
		}
		byTrx[e.TrxID] = append(byTrx[e.TrxID], w)
	}
	for _, id := range order {
		out = append(out, report.Finding{Severity: report.Info, Code: "UNCOMMITTED_DDL", File: in.Datadir,
			Message: fmt.Sprintf("the crash cut DDL transaction %d before its commit; crash recovery rolls it back: %s (recover does the same in its copy, where the server finishes the rollback)",
				id, strings.Join(byTrx[id], ", then "))})
	}
	return out
}
