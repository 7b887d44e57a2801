package replay

import (
	"fmt"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/logformat"
)

// pageReader reads pages of the recovery's tablespaces: the image recovery holds in memory
// when there is one (cached), else the file's.
func (r *recovery) pageReader(cached bool) discovery.PageReader {
	return func(space, no uint32) ([]byte, error) {
		if cached {
			if p := r.cache[analysis.PageID{Space: space, Page: no}]; p != nil && p.data != nil {
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

// RecoveredUndo applies the log's records (sc, from the checkpoint) for the system tablespace
// (0) and the undo tablespaces to in-memory images of their pages, read from the files of s
// (nothing is written), and reads the undo logs and the dictionary from the result. It is the
// diagnosis's analysis.UndoReader.
func RecoveredUndo(sc *logformat.Scanner, s discovery.Layout, pageSize int, a *analysis.Analysis, spaces []discovery.Tablespace) (*analysis.UndoView, error) {
	opt := RecoverOptions{Copy: s, PageSize: pageSize, Analysis: a, CopyPath: analysis.SourcePath(s.Datadir)}
	only := map[uint32]bool{0: true}
	for _, t := range spaces {
		if t.FoundBy == discovery.FoundUndo && t.Error == "" {
			only[t.SpaceID] = true
		}
	}
	r := &recovery{opt: opt, an: opt.Analysis, spaces: map[uint32]*tsFile{}, cache: map[analysis.PageID]*cached{},
		written: map[analysis.PageID]bool{}, applied: map[analysis.PageID]bool{}, readOnly: true, only: only}
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
	v := &analysis.UndoView{Pages: func(sc *logformat.Scanner, spaces map[uint32]bool) (discovery.PageReader, func(), error) {
		return RecoveredPages(sc, s, pageSize, a, spaces)
	}}
	var err error
	if v.Trxs, err = discovery.ReadUndoTrxs(read); err != nil {
		return nil, err
	}
	sys, err := r.space(0)
	if err != nil {
		return nil, err
	}
	f, err := discovery.NewFile(discovery.SpacePages{Read: read, Size: int64(sys.phys)}, 1<<40, sys.path)
	if err != nil {
		return nil, err
	}
	if v.Tables, err = discovery.ReadDictTables(f); err != nil {
		return nil, err
	}
	if v.Indexes, err = discovery.ReadDictIndexes(f); err != nil {
		return nil, err
	}
	// for the instant ALTER metadata check (its key lengths); unreadable: not checked
	v.Columns, _ = discovery.ReadDictColumns(f)
	v.Fields, _ = discovery.ReadDictFields(f)
	return v, nil
}
