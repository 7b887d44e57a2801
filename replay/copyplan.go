package replay

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"innoscope/discovery"
	"innoscope/internal/regular"
)

// copyEntry is one thing the copy makes from the source's data directory: a directory, or a
// regular file copied from src.
type copyEntry struct {
	src, dst string
	dir      bool
	size     int64
}

// copyPlan is what of the source's data directory goes into the copy: what the server may open
// there (the files at its top and in each database directory, discovery.ServerDepth), each
// regular file checked readable before anything is written.
type copyPlan struct {
	entries []copyEntry
	bytes   int64
	// skipped is what the server never opens and the copy leaves out: links to nothing (a
	// stale socket link, a removed target) or looping links, sockets, FIFOs and devices, and the
	// directories below the database directories (an old copy kept inside, a link to /).
	skipped []string
}

// planTree walks the source's data directory as the server reads it and returns what the copy
// takes. It writes nothing: an entry the copy must take and cannot read (a directory it cannot
// list, a file it cannot open) is an error here, before the copy begins.
func (c *Copy) planTree() (*copyPlan, error) {
	if c.plan != nil {
		return c.plan, nil
	}
	pl := &copyPlan{}
	skip := []string{discovery.ResolvePath(c.Target), discovery.ResolvePath(c.external())}
	cannot := func(p string, err error) error {
		return fmt.Errorf("the copy must take %s and cannot read it (nothing was written): %w; run as a user that can read the data directory (root or mysql), or move it out of the data directory if the server does not need it", p, err)
	}
	var walk func(src, dst string, depth int) error
	walk = func(src, dst string, depth int) error {
		root := discovery.ResolvePath(src)
		if slices.Contains(skip, root) {
			return nil // the copy itself, or a directory already taken (a cycle of links)
		}
		skip = append(skip, root)
		pl.entries = append(pl.entries, copyEntry{src: root, dst: dst, dir: true})
		ents, err := os.ReadDir(root)
		if err != nil {
			return cannot(root, err)
		}
		for _, e := range ents {
			p, out := filepath.Join(root, e.Name()), filepath.Join(dst, e.Name())
			fi, err := os.Stat(p) // follows symbolic links, as the server's open does
			switch {
			case err != nil && e.Type()&fs.ModeSymlink != 0:
				pl.skipped = append(pl.skipped, p) // a link to nothing: the server cannot open it either
			case err != nil:
				return cannot(p, err)
			case fi.IsDir() && depth < discovery.ServerDepth && !discovery.HoldsDir(p, c.Source.Datadir):
				if err := walk(p, out, depth+1); err != nil {
					return err
				}
			case fi.IsDir():
				pl.skipped = append(pl.skipped, p)
			case fi.Mode().IsRegular():
				f, err := regular.Open(p)
				if err != nil {
					return cannot(p, err)
				}
				f.Close()
				pl.entries = append(pl.entries, copyEntry{src: p, dst: out, size: fi.Size()})
				pl.bytes += fi.Size()
			default:
				pl.skipped = append(pl.skipped, p)
			}
		}
		return nil
	}
	if err := walk(c.Source.Datadir, c.Target, 0); err != nil {
		return nil, err
	}
	// The system and undo files of a directory inside the data directory but below the levels
	// walked keep their place in the copy (inCopy).
	dd := discovery.ResolvePath(c.Source.Datadir)
	deep := func(dir string) bool {
		rel, err := filepath.Rel(dd, discovery.ResolvePath(dir))
		return dir != "" && err == nil && !strings.HasPrefix(rel, "..") && strings.Count(rel, "/") >= discovery.ServerDepth
	}
	var loose []string
	if deep(c.Source.DataHomeDir) {
		for _, n := range c.Source.DataFiles {
			loose = append(loose, filepath.Join(c.Source.DataHomeDir, n))
		}
	}
	if deep(c.Source.UndoDir) {
		ms, _ := filepath.Glob(filepath.Join(c.Source.UndoDir, "undo[0-9][0-9][0-9]"))
		loose = append(loose, ms...)
	}
	for _, p := range loose {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, cannot(p, err)
		}
		pl.entries = append(pl.entries, copyEntry{src: p, dst: filepath.Join(c.inCopy(filepath.Dir(p)), filepath.Base(p)), size: fi.Size()})
		pl.bytes += fi.Size()
	}
	c.plan = pl
	return pl, nil
}

// tree copies the planned entries into the copy: directories made, .isl files relinked (cp.isl),
// the source's redo log left out (Make writes a placeholder), every other file copied sparsely.
func (cp *copier) tree(pl *copyPlan) error {
	cp.st.Skipped += len(pl.skipped)
	for _, e := range pl.entries {
		var err error
		switch {
		case e.dir:
			err = cp.mkdir(e.dst)
		case cp.logPath != "" && discovery.ResolvePath(e.src) == cp.logPath:
		case cp.isl != nil && strings.HasSuffix(e.src, ".isl"):
			var done bool
			if done, err = cp.isl(e.src, e.dst); done {
				cp.st.Relinked++
			} else if err == nil {
				err = cp.file(e.src, e.dst)
			}
		default:
			err = cp.file(e.src, e.dst)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
