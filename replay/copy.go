package replay

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"innoscope/discovery"
	"innoscope/internal/regular"
)

// IncompleteMarker exists in a working copy from the moment copying starts until recovery has
// finished and the copy's redo log says there is nothing to recover.
const IncompleteMarker = "innoscope-recover.incomplete"

// ExternalSuffix names the default directory, beside the copy, for the files that lived
// outside the source data directory (DATA DIRECTORY tables, innodb_directories): COPY.external/N/
// mirrors the N-th such source directory, and the copy's .isl files point there. It is not
// inside the copy because the server takes every subdirectory of its data directory for a
// database (and logs "Invalid (old?) table or database name" for ones like .x or #x).
const ExternalSuffix = ".external"

// Copy lays out a working copy of a data directory: everything under the data directory, the
// system, undo and log files kept elsewhere (moved into the copy's root, the default layout),
// and external datafiles (under External, their .isl links rewritten).
type Copy struct {
	Source   discovery.Layout
	Target   string
	External string // where external datafiles go (default Target + ExternalSuffix)
	// Redirect maps a source .isl (resolved path) to the file the copy's .isl names instead of
	// the missing one it names (ISLRedirects).
	Redirect map[string]string
	roots    []extRoot
	pending  []extFile // external datafiles whose .isl is already written
	// places caches Sources.
	places *discovery.Places
	// plan is what of the data directory the copy takes (planTree, made before anything is
	// written).
	plan *copyPlan
	// deferred are the pages left out of the copy for the replay to write (deferred.go).
	deferred *deferredFiles
	// dirs are the copy's directories (target, external), open from before the first file is
	// written, for Sync (syncfs reports the write-back errors since its descriptor was opened).
	dirs []*os.File
}

// extFile is an external datafile to copy: from src (resolved) to dst in the copy.
type extFile struct{ src, dst string }

func (c *Copy) external() string {
	if c.External == "" {
		return c.Target + ExternalSuffix
	}
	return c.External
}

// extRoot maps a source directory outside the data directory to its place in the copy.
type extRoot struct{ src, dst string }

// CopyStats counts what Make copied.
type CopyStats struct {
	Files    int   `json:"files"`
	Bytes    int64 `json:"bytes"`      // logical size of the copied files
	External int   `json:"external"`   // datafiles copied from outside the data directory
	Relinked int   `json:"relinked"`   // .isl files rewritten to point into the copy
	Skipped  int   `json:"skipped"`    // what the server never opens: links to nothing, sockets, FIFOs, directories below the database ones
	Holes    int64 `json:"hole_bytes"` // holes of the source left holes (and all-zero blocks, where copied by read and write)
}

// inCopy is where a source directory of system, undo or log files is in the copy: at the same
// relative place when it is inside the data directory, else the copy's root.
func (c *Copy) inCopy(dir string) string {
	if dir == "" {
		return c.Target
	}
	a, dd := discovery.ResolvePath(dir), discovery.ResolvePath(c.Source.Datadir)
	if !discovery.Within(a, dd) {
		return c.Target
	}
	rel, _ := filepath.Rel(dd, a)
	return filepath.Join(c.Target, rel)
}

// Layout is the copy's layout: its external directories are those that hold what was copied
// (a directory that only stale links name is not made: crash-sweep seed 13201, where the
// copy's diagnosis took the absent directory for an unreadable one).
func (c *Copy) Layout() discovery.Layout {
	s := discovery.Layout{Datadir: c.Target, DataFiles: c.Source.DataFiles,
		DataHomeDir: c.inCopy(c.Source.DataHomeDir), UndoDir: c.inCopy(c.Source.UndoDir), LogDir: c.inCopy(c.Source.LogDir)}
	for _, r := range c.roots {
		if fi, err := os.Stat(r.dst); err == nil && fi.IsDir() {
			s.Directories = append(s.Directories, r.dst)
		}
	}
	return s
}

// LogPath is the copy's redo log file.
func (c *Copy) LogPath() string { return filepath.Join(c.inCopy(c.Source.LogDir), "ib_logfile0") }

// Path maps a file name from the source's redo log to the copy: names relative to the data
// directory stay relative to the copy; absolute ones move with their external directory. A
// name outside every copied place maps to a path in the external directory that does not exist, so
// nothing outside the copy is ever touched.
func (c *Copy) Path(name string) string {
	if !filepath.IsAbs(name) {
		return filepath.Join(c.Target, name)
	}
	a := discovery.ResolvePath(name)
	if discovery.Within(a, discovery.ResolvePath(c.Source.Datadir)) {
		rel, _ := filepath.Rel(discovery.ResolvePath(c.Source.Datadir), a)
		return filepath.Join(c.Target, rel)
	}
	for _, r := range c.roots {
		if discovery.Within(a, r.src) {
			rel, _ := filepath.Rel(r.src, a)
			return filepath.Join(r.dst, rel)
		}
	}
	return filepath.Join(c.external(), "unmapped", filepath.Clean(a))
}

// Make marks the target incomplete and copies the files into it, sparsely. The copy's redo
// log is written first, as a placeholder whose header the server refuses (the source's log is
// not copied: recovery reads it from the source, and ResetLog writes the copy's at the end), so
// a copy interrupted at any point is never started by the server. The copy's .isl files are
// written with their final target (in the external directory) before the file they name is
// copied: no file of the copy ever points back into the source.
func (c *Copy) Make(progress func(bytes int64)) (CopyStats, error) {
	var st CopyStats
	if err := markIncomplete(c.Target); err != nil {
		return st, err
	}
	if err := c.openDir(c.Target); err != nil {
		return st, err
	}
	srcLog := filepath.Join(c.Source.LogFileDir(), "ib_logfile0")
	var logSize int64
	if fi, err := os.Stat(srcLog); err == nil {
		logSize = fi.Size()
	}
	if err := c.placeholderLog(logSize); err != nil {
		return st, err
	}
	cp := &copier{st: &st, progress: progress,
		logPath: discovery.ResolvePath(srcLog), isl: c.relink, deferred: c.deferred, mkdir: c.mkdir}
	pl, err := c.planTree()
	if err != nil {
		return st, err
	}
	if err := cp.tree(pl); err != nil {
		return st, err
	}
	src := c.Source
	if err := c.newLinks(&st); err != nil {
		return st, err
	}
	// Files the server keeps outside the data directory go to the copy's root.
	outside := func(dir string) bool { return dir != "" && c.inCopy(dir) == c.Target && !sameDir(dir, src.Datadir) }
	var loose []string
	if outside(src.DataHomeDir) {
		for _, n := range src.DataFiles {
			loose = append(loose, filepath.Join(src.DataHomeDir, n))
		}
	}
	if outside(src.UndoDir) {
		ms, _ := filepath.Glob(filepath.Join(src.UndoDir, "undo[0-9][0-9][0-9]"))
		loose = append(loose, ms...)
	}
	for _, p := range loose {
		if err := cp.file(p, filepath.Join(c.Target, filepath.Base(p))); err != nil {
			return st, err
		}
	}
	return st, c.copyExternal(cp)
}

// newLinks writes the copy's .isl of each redirect whose source .isl does not exist (a DATA
// DIRECTORY table that lost its link: ISLRedirects).
func (c *Copy) newLinks(st *CopyStats) error {
	dd := discovery.ResolvePath(c.Source.Datadir)
	var isls []string
	for isl := range c.Redirect {
		if _, err := os.Lstat(isl); errors.Is(err, fs.ErrNotExist) {
			isls = append(isls, isl)
		}
	}
	slices.Sort(isls)
	for _, isl := range isls {
		rel, err := filepath.Rel(dd, isl)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		ok, err := c.link(c.Redirect[isl], filepath.Join(c.Target, rel))
		if err != nil {
			return err
		}
		if ok {
			st.Relinked++
		}
	}
	return nil
}

func sameDir(a, b string) bool { return discovery.ResolvePath(a) == discovery.ResolvePath(b) }

// root is the place in the copy of a source directory outside the data directory: the N-th
// such directory is External/N (the external directory is marked incomplete when first made).
func (c *Copy) root(dir string) (string, error) {
	for _, r := range c.roots {
		if r.src == dir {
			return r.dst, nil
		}
	}
	if len(c.roots) == 0 {
		if err := markIncomplete(c.external()); err != nil {
			return "", err
		}
		if err := c.openDir(c.external()); err != nil {
			return "", err
		}
	}
	dst := filepath.Join(c.external(), strconv.Itoa(len(c.roots)+1))
	c.roots = append(c.roots, extRoot{src: dir, dst: dst})
	return dst, nil
}

// relink writes the copy's .isl file dst for the source's src: a link to a file outside the data
// directory points to the file's place in the external directory (copied later by
// copyExternal); any other link is copied as it is. It reports whether it wrote dst.
func (c *Copy) relink(src, dst string) (bool, error) {
	target, err := discovery.ReadISL(src) // a FIFO would block
	if err != nil {
		return false, err
	}
	if r, ok := c.Redirect[discovery.ResolvePath(src)]; ok {
		if r == strings.TrimSuffix(discovery.ResolvePath(src), ".isl")+".ibd" {
			return true, nil // the table's own file: the copy has no link (analysis.ISLRedirect.NoLink)
		}
		target = r
	}
	return c.link(target, dst)
}

// link writes the copy's .isl file dst for the source's link target (see relink).
func (c *Copy) link(target, dst string) (bool, error) {
	if !filepath.IsAbs(target) {
		return false, nil // relative to the data directory: the copy's own
	}
	a, dd := discovery.ResolvePath(target), discovery.ResolvePath(c.Source.Datadir)
	var out string
	if discovery.Within(a, dd) {
		// An absolute name inside the source's data directory: the copy's own file there (the
		// tree copy brings it), never the source's.
		rel, _ := filepath.Rel(dd, a)
		out = filepath.Join(c.Target, rel)
	} else {
		// DATA DIRECTORY='/x' keeps the file at /x/db/t.ibd: /x is the root.
		srcRoot := filepath.Dir(filepath.Dir(a))
		r, err := c.root(srcRoot)
		if err != nil {
			return false, err
		}
		out = filepath.Join(r, strings.TrimPrefix(a, srcRoot+"/"))
		c.pending = append(c.pending, extFile{src: a, dst: out})
	}
	if err := c.mkdir(filepath.Dir(dst)); err != nil {
		return false, err
	}
	if err := os.WriteFile(dst, []byte(out+"\n"), 0o640); err != nil {
		return false, err
	}
	return true, nil
}

// copyExternal copies the datafiles that .isl links (already written by relink) and
// innodb_directories reach outside the data directory.
func (c *Copy) copyExternal(cp *copier) error {
	dd := discovery.ResolvePath(c.Source.Datadir)
	done := map[string]bool{}
	for _, e := range c.pending {
		if done[e.dst] {
			continue // two links to one file (a redirected .isl and the file's own)
		}
		// A stale .isl (its target renamed or dropped: MariaDB leaves #sql-ib*.isl and the
		// .isl of a table renamed to another database behind) is ignored by the server; the
		// copy's .isl was rewritten all the same by relink, so that it never names the source.
		if _, err := os.Lstat(e.src); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := cp.file(e.src, e.dst); err != nil {
			return err
		}
		done[e.dst] = true
		cp.st.External++
	}
	for _, d := range c.Source.Directories {
		a := discovery.ResolvePath(d)
		if discovery.Within(a, dd) || a == dd {
			continue
		}
		dst, err := c.root(a)
		if err != nil {
			return err
		}
		err = filepath.WalkDir(a, func(p string, e fs.DirEntry, err error) error {
			if err != nil || !e.Type().IsRegular() || !strings.HasSuffix(p, ".ibd") {
				return err
			}
			out := filepath.Join(dst, strings.TrimPrefix(p, a+"/"))
			if _, err := os.Stat(out); err == nil {
				return nil // already copied through an .isl
			}
			cp.st.External++
			return cp.file(p, out)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// copier copies files sparsely: the source's holes stay holes (see span).
type copier struct {
	st       *CopyStats
	progress func(int64)
	buf      []byte
	logPath  string // the resolved source redo log, not copied (Make writes a placeholder)
	// isl writes the copy's .isl file for a source one; false: copy it as it is.
	isl func(src, dst string) (bool, error)
	// noRange: copy_file_range failed as unsupported once; read and write from then on.
	noRange bool
	// deferred plans the pages left out and records them (nil: every page is copied).
	deferred *deferredFiles
	// mkdir creates a directory of the copy (Copy.mkdir).
	mkdir func(dir string) error
}

// Span is a byte range of a file.
type Span struct{ Off, Len int64 }

// file copies one regular file, keeping its permission bits.
func (cp *copier) file(src, dst string) error {
	in, err := regular.Open(src) // a FIFO would block
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	if err := cp.mkdir(filepath.Dir(dst)); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm()|0o600)
	if err != nil {
		return err
	}
	// Only the data extents are read: a hole (an unallocated range) stays a hole in the copy.
	var at int64
	d := cp.deferred.start(src, dst)
	for _, e := range discovery.DataExtents(in, fi.Size()) {
		cp.hole(e.Off - at)
		if err := cp.spanDeferring(in, out, Span{e.Off, e.Len}, d); err != nil {
			out.Close()
			return fmt.Errorf("copying %s: %w", src, err)
		}
		at = e.Off + e.Len
	}
	cp.hole(fi.Size() - at)
	// Not synced here: Copy.Sync makes the whole copy durable before its log is written. The
	// write-back is started now (it proceeds while the replay runs), not waited for.
	if err := out.Truncate(fi.Size()); err != nil {
		out.Close()
		return err
	}
	startWriteback(out)
	cp.st.Files++
	cp.st.Bytes += fi.Size()
	return out.Close()
}

// hole counts n bytes of a hole in the source, left as a hole in the copy.
func (cp *copier) hole(n int64) {
	if n <= 0 {
		return
	}
	cp.st.Holes += n
	if cp.progress != nil {
		cp.progress(n)
	}
}

// spanRW copies the bytes [sp.Off, sp.Off+sp.Len) (up to the end of the source) by reading and
// writing them, leaving all-zero blocks as holes.
func (cp *copier) spanRW(in, out *os.File, sp Span) error {
	if cp.buf == nil {
		cp.buf = make([]byte, 1<<20)
	}
	for off, end := sp.Off, sp.Off+sp.Len; off < end; {
		b := cp.buf
		if int64(len(b)) > end-off {
			b = b[:end-off]
		}
		n, rerr := in.ReadAt(b, off)
		if n > 0 {
			if discovery.IsZero(b[:n]) {
				cp.st.Holes += int64(n)
			} else if _, err := out.WriteAt(b[:n], off); err != nil {
				return err
			}
			off += int64(n)
			if cp.progress != nil {
				cp.progress(int64(n))
			}
		}
		if rerr == io.EOF {
			return nil
		} else if rerr != nil {
			return fmt.Errorf("offset %d: %w", off, rerr)
		}
	}
	return nil
}
