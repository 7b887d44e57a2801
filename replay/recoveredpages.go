package replay

import (
	"encoding/binary"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/logformat"
)

// RecoveredPages applies the log's records (sc, from the checkpoint) for the tablespaces spaces
// to in-memory images of their pages, read from the files of s (nothing is written), and returns
// a reader of those tablespaces' pages as crash recovery leaves them (before the server's
// rollback): a copy of the in-memory image, with the end LSN of its last mini-transaction, where
// the log changed the page, else the file's page as stored (page_compressed pages stay
// compressed). close releases the files.
func RecoveredPages(sc *logformat.Scanner, s discovery.Layout, pageSize int, a *analysis.Analysis, spaces map[uint32]bool) (read discovery.PageReader, close func(), err error) {
	opt := RecoverOptions{Copy: s, PageSize: pageSize, Analysis: a, CopyPath: analysis.SourcePath(s.Datadir)}
	only := map[uint32]bool{}
	for id := range spaces {
		only[id] = true
	}
	r := &recovery{opt: opt, an: opt.Analysis, spaces: map[uint32]*tsFile{}, cache: map[analysis.PageID]*cached{},
		written: map[analysis.PageID]bool{}, applied: map[analysis.PageID]bool{}, readOnly: true, only: only}
	r.res.Applied = map[string]int{}
	defer func() {
		if err != nil {
			r.closeAll()
		}
	}()
	if err = r.openSpaces(); err != nil {
		return nil, nil, err
	}
	for sc.Next() {
		if err = r.applyMTR(sc.MTR()); err != nil {
			return nil, nil, err
		}
	}
	if err = sc.Err(); err != nil {
		return nil, nil, err
	}
	files := r.pageReader(false)
	read = func(space, no uint32) ([]byte, error) {
		p := r.cache[analysis.PageID{Space: space, Page: no}]
		if p == nil || p.data == nil {
			return files(space, no)
		}
		img := append([]byte(nil), p.data...)
		if p.dirty && p.endLSN != 0 && len(img) > discovery.FilPageLSN+8 {
			// the LSN recovery writes on the page: its last mini-transaction's end
			binary.BigEndian.PutUint64(img[discovery.FilPageLSN:], p.endLSN)
		}
		return img, nil
	}
	return read, r.closeAll, nil
}
