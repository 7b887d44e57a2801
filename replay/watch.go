package replay

import (
	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/logformat"
)

// WatchPages applies the log's records (sc, from the checkpoint) for the tablespaces spaces
// (nil: all) to in-memory images of their pages, read from the files of s (nothing is written),
// and calls each after every mini-transaction with a reader of the images as they are then
// (the file's page where the log has not changed it). Unlike recovery it follows pages the log
// frees at its end too (an undo page reused, then freed). It is how the changes of the log are
// followed page by page (package changes) with the page LSN rule recovery applies.
func WatchPages(sc *logformat.Scanner, s discovery.Layout, pageSize int, a *analysis.Analysis, spaces map[uint32]bool,
	each func(m *logformat.MTR, read discovery.PageReader) error) error {
	first := true
	return watchScans(func() (*logformat.Scanner, error) {
		if !first {
			return nil, nil
		}
		first = false
		return sc, nil
	}, s, pageSize, a, spaces, each)
}

// watchScans is WatchPages over the scanners next gives, one after the other (each asked for
// once the one before it is read to its end) until it gives nil.
func watchScans(next func() (*logformat.Scanner, error), s discovery.Layout, pageSize int, a *analysis.Analysis, spaces map[uint32]bool,
	each func(m *logformat.MTR, read discovery.PageReader) error) error {
	opt := RecoverOptions{Copy: s, PageSize: pageSize, Analysis: a, CopyPath: analysis.SourcePath(s.Datadir)}
	r := &recovery{opt: opt, an: opt.Analysis, spaces: map[uint32]*tsFile{}, cache: map[analysis.PageID]*cached{},
		written: map[analysis.PageID]bool{}, applied: map[analysis.PageID]bool{}, readOnly: true, only: spaces, follow: true}
	r.res.Applied = map[string]int{}
	defer r.closeAll()
	if err := r.openSpaces(); err != nil {
		return err
	}
	read := r.pageReader(true)
	for {
		sc, err := next()
		if err != nil || sc == nil {
			return err
		}
		for sc.Next() {
			m := sc.MTR()
			if err := r.applyMTR(m); err != nil {
				return err
			}
			if err := each(m, read); err != nil {
				return err
			}
		}
		if err := sc.Err(); err != nil {
			return err
		}
	}
}

// UndoSpaces are the tablespaces that hold undo logs: the system tablespace (0) and the undo
// tablespaces of spaces (a discovery.Scan).
func UndoSpaces(spaces []discovery.Tablespace) map[uint32]bool {
	only := map[uint32]bool{0: true}
	for _, t := range spaces {
		if t.FoundBy == discovery.FoundUndo && t.Error == "" {
			only[t.SpaceID] = true
		}
	}
	return only
}
