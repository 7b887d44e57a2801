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

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/internal/regular"
)

// openSpaces finds the tablespaces of the copy and reads the doublewrite buffer.
func (r *recovery) openSpaces() error {
	s := r.opt.Copy
	if s.DataHomeDir == "" {
		s.DataHomeDir = s.Datadir
	}
	if len(s.DataFiles) == 0 {
		s.DataFiles = []string{"ibdata1"}
	}
	r.opt.Copy = s
	sys, err := discovery.OpenFile(filepath.Join(s.DataHomeDir, s.DataFiles[0]))
	if err != nil {
		return fmt.Errorf("system tablespace: %w", err)
	}
	r.dblwr, err = discovery.DoublewriteCopies(sys)
	sys.Close()
	if err != nil {
		return fmt.Errorf("doublewrite buffer: %w", err)
	}
	if r.sysPage0, err = r.systemPage0(sys.Path); err != nil {
		return err
	}
	found, err := discovery.Scan(s)
	if err != nil {
		return err
	}
	r.found = map[uint32][]string{}
	for _, t := range found {
		if t.Error != "" || t.FoundBy == discovery.FoundTemporary || t.FoundBy == discovery.FoundSystem || zeroPage0(t) {
			continue
		}
		r.found[t.SpaceID] = append(r.found[t.SpaceID], discovery.ResolvePath(t.Path))
	}
	return r.bindSpaces()
}

// zeroPage0 reports a file whose first page was never written (its id is unknown).
func zeroPage0(t discovery.Tablespace) bool { return t.ChecksumAlgorithm == "" && t.FSPSize == 0 }

// space returns the copy's tablespace id, opening it on first use; nil (and no error) for a
// tablespace the log deletes, whose records the server ignores.
func (r *recovery) space(id uint32) (*tsFile, error) {
	if t, ok := r.spaces[id]; ok {
		return t, nil
	}
	if (r.only != nil && !r.only[id]) || r.opt.Skip[id] {
		return nil, nil
	}
	t, err := r.openSpace(id)
	if err == nil && t != nil && t.flagsSet {
		err = t.checkEncryption()
	}
	if err == nil {
		r.spaces[id] = t
	}
	return t, err
}

func (r *recovery) openSpace(id uint32) (*tsFile, error) {
	logged := r.an.Map.Spaces[id]
	if logged != nil && logged.Deleted {
		return nil, nil
	}
	if id == 0 {
		return r.openSystem()
	}
	var paths []string
	if logged != nil {
		if b, ok := r.bound[id]; ok {
			paths = []string{b.Path}
		}
	} else {
		paths = r.found[id] // undo tablespaces: no FILE_* records
	}
	if len(paths) > 1 {
		return nil, fmt.Errorf("tablespace %d has been found in two places: %s (the server refuses to recover; remove one)",
			id, strings.Join(paths, " and "))
	}
	if len(paths) == 0 {
		return r.createSpace(id, logged)
	}
	return r.openPath(id, paths[0], false)
}

// pageZero reads what crash recovery finds at p for Bind: absent, a page 0 the server defers,
// or the space id page 0 carries. A blank page 0 (discovery.BlankPage0) is judged on its first
// KiB, as its physical page size is unknown. An unreadable file is an error.
func pageZero(p string, pageSize int) (analysis.FileState, error) {
	f, err := regular.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return analysis.FileState{}, nil
	} else if err != nil {
		return analysis.FileState{}, err
	}
	defer f.Close()
	b := make([]byte, pageSize)
	n, _ := f.ReadAt(b, 0)
	if n < discovery.FilPageSpaceID+4 {
		return analysis.FileState{Exists: true, Deferred: true}, nil
	}
	return analysis.FileState{Exists: true, Deferred: discovery.BlankPage0(b[:n]), SpaceID: binary.BigEndian.Uint32(b[discovery.FilPageSpaceID:])}, nil
}

// bindSpaces binds every tablespace the log names to its file in the copy, as the server's
// recovery does (Bind).
func (r *recovery) bindSpaces() error {
	var failed error
	r.bound = r.an.Map.Bind(r.opt.CopyPath, func(p string) analysis.FileState {
		st, err := pageZero(p, r.opt.PageSize)
		if err != nil && failed == nil {
			failed = err
		}
		return st
	})
	return failed
}

// MissingError reports a tablespace the log changes whose file is in none of the places the
// log names, which makes the server refuse to start.
type MissingError struct {
	ID    uint32
	Names string
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("tablespace %d (%s) is missing: the log changes it and does not rebuild its first page, so the server refuses to start without it",
		e.ID, e.Names)
}

// openFlag is how recovery opens files: read-write, or read-only for RecoveredUndo.
func (r *recovery) openFlag() int {
	if r.readOnly {
		return os.O_RDONLY
	}
	return os.O_RDWR
}

// createSpace creates the file of a tablespace the log creates and whose first page it
// rebuilds (the file was never written, or removed); any other missing file is an error.
func (r *recovery) createSpace(id uint32, logged *analysis.Space) (*tsFile, error) {
	name := ""
	if logged != nil {
		for _, e := range logged.Events {
			if e.Kind == analysis.Create {
				name = e.Name
			}
		}
	}
	if name == "" || r.an.Pages[analysis.PageID{Space: id, Page: 0}] || r.readOnly {
		where := "no file name in the log"
		if logged != nil {
			where = strings.Join(logged.Names, ", ")
		}
		return nil, &MissingError{ID: id, Names: where}
	}
	p := r.opt.CopyPath(name)
	if err := r.opt.mkdirAll(filepath.Dir(p)); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o660)
	if err != nil {
		return nil, err
	}
	f.Close()
	t, err := r.openPath(id, p, true)
	return t, err
}

// openPath opens a single-file tablespace read-write.
func (r *recovery) openPath(id uint32, p string, created bool) (*tsFile, error) {
	f, err := os.OpenFile(p, r.openFlag(), 0)
	if err != nil {
		return nil, err
	}
	t := &tsFile{id: id, path: p, segs: []segment{{f: f, path: p, count: -1, def: r.opt.deferred.of(p)}}, logical: r.opt.PageSize,
		phys: r.opt.PageSize, created: created, trimTo: -1}
	r.spaces[id] = t // so that an error below still closes the file
	img, err := r.zeroPage0Of(id, p, f)
	if err != nil && !created {
		return nil, err
	}
	if img != nil && !created {
		return t, r.restorePage0(t, img)
	}
	b := make([]byte, discovery.FSPFlags+4)
	if n, _ := f.ReadAt(b, 0); n == len(b) && !discovery.IsZero(b) {
		t.setFlags(b)
		if !t.flagsSet {
			return nil, fmt.Errorf("%s: offset %d: FSP flags 0x%x do not fit innodb_page_size=%d",
				p, discovery.FSPFlags, binary.BigEndian.Uint32(b[discovery.FSPFlags:]), r.opt.PageSize)
		}
		_, trimmed := r.an.Trims[id]
		if fi, err := f.Stat(); err == nil && !created && !trimmed {
			if cut, short := discovery.CutShort(fi.Size()/int64(t.phys), binary.BigEndian.Uint32(b[discovery.FSPSize:]), t.phys, t.logical); short {
				t.cut = cut
			}
		}
	}
	return t, nil
}

// openSystem opens the system tablespace (all innodb_data_file_path files).
func (r *recovery) openSystem() (*tsFile, error) {
	s := r.opt.Copy
	t := &tsFile{id: 0, logical: r.opt.PageSize, phys: r.opt.PageSize, trimTo: -1}
	r.spaces[0] = t
	var first int64
	for i, name := range s.DataFiles {
		p := filepath.Join(s.DataHomeDir, name)
		f, err := os.OpenFile(p, r.openFlag(), 0)
		if err != nil {
			return nil, err
		}
		seg := segment{f: f, path: p, first: first, count: -1}
		if i < len(s.DataFiles)-1 {
			fi, err := f.Stat()
			if err != nil {
				f.Close()
				return nil, err
			}
			seg.count = fi.Size() / int64(r.opt.PageSize)
			first += seg.count
		}
		t.segs = append(t.segs, seg)
	}
	t.path = t.segs[0].path
	if r.sysPage0 != nil {
		return t, r.restorePage0(t, r.sysPage0)
	}
	b := make([]byte, discovery.FSPFlags+4)
	if _, err := t.segs[0].f.ReadAt(b, 0); err != nil {
		return nil, fmt.Errorf("%s: %w", t.path, err)
	}
	if t.setFlags(b); !t.flagsSet {
		return nil, fmt.Errorf("%s: offset %d: invalid FSP flags 0x%x", t.path, discovery.FSPFlags, binary.BigEndian.Uint32(b[discovery.FSPFlags:]))
	}
	return t, nil
}

// trimUndo applies the undo tablespace truncations (TRIM_PAGES) before any page: the server
// discards the records before the truncation and cuts the file to its new size.
func (r *recovery) trimUndo() error {
	ids := make([]uint32, 0, len(r.an.Trims))
	for id := range r.an.Trims {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		t, err := r.space(id)
		if err != nil || t == nil {
			return err
		}
		n := int64(r.an.Trims[id].Pages)
		if err := t.resize(n); err != nil {
			return err
		}
		t.trimTo = n
	}
	return nil
}

// finishFiles extends files to their FSP_SIZE, replays renames, syncs, and fills the
// per-space results.
func (r *recovery) finishFiles() error {
	for _, s := range r.an.Map.Sorted() {
		renamed := false
		for _, e := range s.Events {
			renamed = renamed || e.Kind == analysis.Rename
		}
		if !renamed || s.Deleted {
			continue
		}
		var missing *MissingError
		if _, err := r.space(s.ID); err != nil && !errors.As(err, &missing) {
			return err // a renamed file found under neither name is left alone, as by the server
		}
	}
	ddl, err := analysis.PendingDDL(r.opt.Copy.Datadir)
	if err != nil {
		return err
	}
	ids := make([]uint32, 0, len(r.spaces))
	for id, t := range r.spaces {
		if t != nil {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		t := r.spaces[id]
		res := SpaceResult{ID: id, Path: t.path, PagesWritten: t.written, Created: t.created}
		if t.trimTo >= 0 {
			res.TrimmedTo = t.trimTo
		}
		if ext, err := r.extend(t); err != nil {
			return err
		} else if ext > 0 {
			res.ExtendedTo = ext
		}
		// A rename whose file operation the crash cut belongs to a DDL statement that the DDL
		// log reverts: the server replays it, then InnoDB's rollback of the uncommitted
		// transaction renames the file back, so the file stays where it is. Only the rename
		// of a finished statement is replayed.
		if s := r.an.Map.Spaces[id]; s != nil && !s.Deleted && id != 0 {
			if want := r.opt.CopyPath(s.Name); discovery.ResolvePath(want) != discovery.ResolvePath(t.path) &&
				!ddl[analysis.TableName(s.Name)] && !ddl[analysis.TableName(t.path)] {
				if err := renameSpace(t, want); err != nil {
					return err
				}
				res.RenamedFrom, res.Path = t.path, want
				t.path = want
			}
		}
		if err := t.sync(); err != nil {
			return err
		}
		r.res.Spaces = append(r.res.Spaces, res)
	}
	return nil
}

// extend grows a file to the FSP_SIZE on its page 0, returning the new page count (0: no
// change), as the server extends files to the size recovery found in the FSP header.
func (r *recovery) extend(t *tsFile) (int64, error) {
	p0, err := t.read(0)
	if err != nil {
		return 0, err
	}
	want := int64(binary.BigEndian.Uint32(p0[discovery.FSPSize:]))
	have, err := t.pages()
	if err != nil {
		return 0, err
	}
	if want <= have || discovery.IsZero(p0) {
		return 0, nil
	}
	return want, t.resize(want)
}

// renameSpace replays a logged rename whose target is not on disk yet, as the server does at
// the end of recovery; it refuses when the target exists.
func renameSpace(t *tsFile, to string) error {
	if _, err := os.Lstat(to); err == nil {
		return fmt.Errorf("cannot replay the rename of tablespace %d from %s to %s: the target file exists (the server refuses too)",
			t.id, t.path, to)
	}
	if err := os.Rename(t.path, to); err != nil {
		return fmt.Errorf("replaying the rename of tablespace %d: %w", t.id, err)
	}
	t.segs[0].path = to
	return nil
}

func (r *recovery) closeAll() {
	for _, t := range r.spaces {
		if t != nil {
			t.close()
		}
	}
}
