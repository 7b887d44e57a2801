package discovery

import (
	"fmt"
	"innoscope/internal/regular"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// A place is compared with the places the source is read from by identity (device and inode),
// never by its name: a bind mount (mount --bind S alias), a symbolic link or a hard link gives a
// file or a directory another name, and only the identity says alias/copy is inside S.

// FileID is the identity of a file or directory: its device and inode numbers.
type FileID struct{ Dev, Ino uint64 }

// idOf is the identity of what st describes.
func idOf(st *unix.Stat_t) FileID { return FileID{uint64(st.Dev), st.Ino} }

// StatID is the identity of the file at path (symbolic links followed).
func StatID(path string) (FileID, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return FileID{}, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	return idOf(&st), nil
}

// Lineage is the identities of a path and of every directory above it up to the root, as the
// kernel walks ".." from it: through symbolic links and bind mounts, the directories it really
// is in, whatever they are called. For a path that does not exist yet it starts at its deepest
// existing ancestor (Exists false).
type Lineage struct {
	IDs    []FileID
	Exists bool
	// Missing are the names below the deepest existing ancestor that do not exist yet, in
	// order (none when Exists).
	Missing []string
}

// lineageOf walks path's real ancestors (see Lineage).
func lineageOf(path string) (Lineage, error) {
	p := AbsPath(path)
	l := Lineage{Exists: true}
	for {
		var st unix.Stat_t
		err := unix.Stat(p, &st)
		if err == nil {
			break
		}
		if err != unix.ENOENT || p == "/" {
			return l, &os.PathError{Op: "stat", Path: p, Err: err}
		}
		l.Exists, l.Missing = false, append([]string{filepath.Base(p)}, l.Missing...)
		p = filepath.Dir(p)
	}
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return l, &os.PathError{Op: "stat", Path: p, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR { // a file: itself, then the directory holding it
		l.IDs = append(l.IDs, idOf(&st))
		if p = filepath.Dir(p); unix.Stat(p, &st) != nil {
			return l, nil
		}
	}
	fd, err := unix.Open(p, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return l, &os.PathError{Op: "open", Path: p, Err: err}
	}
	for depth := 0; depth < 4096; depth++ {
		if err := unix.Fstat(fd, &st); err != nil {
			break
		}
		id := idOf(&st)
		if n := len(l.IDs); n > 0 && l.IDs[n-1] == id { // the root is its own parent
			break
		}
		l.IDs = append(l.IDs, id)
		up, err := unix.Openat(fd, "..", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			break
		}
		unix.Close(fd)
		fd = up
	}
	unix.Close(fd)
	return l, nil
}

// has reports whether id is in the lineage.
func (l Lineage) has(id FileID) bool {
	for _, x := range l.IDs {
		if x == id {
			return true
		}
	}
	return false
}

// SameOrWithin reports whether inner is the directory outer or below it, under any of their
// names. Either may not exist yet: a path that does not exist is its deepest existing ancestor
// and the names below it, which are compared as names (they have no other).
func SameOrWithin(inner, outer string) bool {
	o, err := lineageOf(outer)
	if err != nil || len(o.IDs) == 0 {
		return false
	}
	i, err := lineageOf(inner)
	if err != nil || len(i.IDs) == 0 {
		return false
	}
	if o.Exists {
		return i.has(o.IDs[0])
	}
	if i.IDs[0] != o.IDs[0] || len(i.Missing) < len(o.Missing) {
		return false
	}
	for k, name := range o.Missing {
		if i.Missing[k] != name {
			return false
		}
	}
	return true
}

// Places are the directories and files a source data directory is read from, by identity: the
// data directory, the system, undo and log directories, innodb_directories, the DATA DIRECTORY
// roots its .isl files name, and the files in them.
type Places struct {
	// Dirs are the directories, as given (absolute, clean).
	Dirs  []string
	dirs  []placeDir
	files map[FileID]string // nil until SameFile needs them
	isl   []string          // the .isl targets
}

type placeDir struct {
	path string
	id   FileID
	up   Lineage // the directory and its ancestors
}

// SourcePlaces are the places of the source laid out as l: the data directory, the system,
// undo and log directories, innodb_directories, and for each .isl file of a database directory
// (DIR/db/t.isl: where the server reads them) the directory of its target and the one above it
// (for /x/db/t.ibd: /x/db and /x, the DATA DIRECTORY root). A directory that does not exist is
// left out.
func SourcePlaces(l Layout) *Places {
	p := &Places{}
	seen := map[FileID]bool{}
	add := func(d string) {
		if d == "" {
			return
		}
		d = AbsPath(d)
		up, err := lineageOf(d)
		if err != nil || !up.Exists || len(up.IDs) == 0 || seen[up.IDs[0]] {
			return
		}
		seen[up.IDs[0]] = true
		p.Dirs = append(p.Dirs, d)
		p.dirs = append(p.dirs, placeDir{path: d, id: up.IDs[0], up: up})
	}
	for _, d := range append([]string{l.Datadir, l.DataHome(), l.UndoHome(), l.LogFileDir()}, l.Directories...) {
		add(d)
	}
	isls, _ := filepath.Glob(filepath.Join(l.Datadir, "*", "*.isl"))
	for _, isl := range isls {
		if t, err := ReadISL(isl); err == nil && filepath.IsAbs(t) {
			p.isl = append(p.isl, t)
			add(filepath.Dir(t))
			add(filepath.Dir(filepath.Dir(t)))
		}
	}
	return p
}

// Overlap returns the place that dir is, is inside of or holds (under any name: a bind mount,
// a symbolic link), with how, or "" when it overlaps none. A dir that does not exist yet is
// judged by its deepest existing ancestor (it can be inside a place, and holds none).
func (p *Places) Overlap(dir string) (place, how string, err error) {
	up, err := lineageOf(dir)
	if err != nil {
		return "", "", err
	}
	for _, d := range p.dirs {
		switch {
		case up.Exists && up.IDs[0] == d.id:
			return d.path, "is", nil
		case up.has(d.id):
			return d.path, "is inside", nil
		case up.Exists && d.up.has(up.IDs[0]):
			return d.path, "holds", nil
		}
	}
	return "", "", nil
}

// SameFile returns the file of the source that path is (the same inode: a hard link, or any
// other name of it), or "": the regular files of every place (of the data directory, its
// database directories too) and the .isl targets.
func (p *Places) SameFile(path string) (string, error) {
	id, err := StatID(path)
	if os.IsNotExist(err) {
		return "", nil
	} else if err != nil {
		return "", err
	}
	if p.files == nil {
		p.files = map[FileID]string{}
		addFile := func(f string) {
			if fid, err := StatID(f); err == nil {
				if _, ok := p.files[fid]; !ok {
					p.files[fid] = f
				}
			}
		}
		for i, d := range p.dirs {
			ents, _ := os.ReadDir(d.path)
			for _, e := range ents {
				f := filepath.Join(d.path, e.Name())
				switch {
				case e.Type().IsRegular():
					addFile(f)
				case i == 0 && e.IsDir(): // a database directory of the data directory
					sub, _ := os.ReadDir(f)
					for _, s := range sub {
						if s.Type().IsRegular() {
							addFile(filepath.Join(f, s.Name()))
						}
					}
				}
			}
		}
		for _, t := range p.isl {
			addFile(t)
		}
	}
	return p.files[id], nil
}

// OverlapError is the refusal of a directory (what: the option that named it) that is, is
// inside or holds (how, as Overlap says) a place the source is read from.
func OverlapError(what, dir, place, how string) error {
	rel := map[string]string{"is": "is that directory", "is inside": "is inside it", "holds": "holds it"}[how]
	if how != "holds" && ResolvePath(dir) != ResolvePath(place) && !Within(ResolvePath(dir), ResolvePath(place)) {
		rel += " through another name of it (a bind mount or a link)"
	}
	return fmt.Errorf("%s %s overlaps the source location %s: it %s, and the source is read from there; name a directory elsewhere", what, dir, place, rel)
}

// CheckOutput refuses an output file (given by flag) that is not a regular file (a FIFO would
// wait for a reader, a device or a directory is not a file to replace), that lies in a place
// the source is read from, or that is one of the source's files under another name (a hard
// link): before anything is written.
func (src *Places) CheckOutput(flag, out string) error {
	if err := regular.Check(out); err != nil {
		return fmt.Errorf("%s %w: give the path of a new file or of a file to replace", flag, err)
	}
	if place, how, err := src.Overlap(out); err != nil {
		return fmt.Errorf("%s %s: %w", flag, out, err)
	} else if how == "is" || how == "is inside" {
		return OverlapError(flag, out, place, how)
	}
	if f, err := src.SameFile(out); err != nil {
		return fmt.Errorf("%s %s: %w", flag, out, err)
	} else if f != "" {
		return fmt.Errorf("%s %s is the source's file %s under another name (a hard link): writing it would change the source; name another file", flag, out, f)
	}
	return nil
}
