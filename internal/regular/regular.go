// Package regular is the one place innoscope opens a file it reads: a datafile, a redo log, an
// .isl, a .frm, a .par, a my.cnf, ddl_recovery.log. Anything but a regular file (a FIFO, a
// socket, a device, a directory) is refused without blocking and named in the words every
// command uses, and whole-file reads are bounded by what the server itself reads of the file.
// Replace is the one way a whole file innoscope writes is put in place.
package regular

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"syscall"

	"golang.org/x/sys/unix"
)

// ErrNotRegular is what errors.Is finds in the error of Open for a path that is not a regular
// file.
var ErrNotRegular = errors.New("not a regular file")

// NotRegular is the error for a path that is not a regular file: it names the path and what
// it is instead.
func NotRegular(path string, m os.FileMode) error {
	return fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, Kind(m))
}

// Kind names the type of a file mode as the refusals do ("a FIFO", "a directory").
func Kind(m os.FileMode) string {
	switch t := m.Type(); {
	case t == 0:
		return "a regular file"
	case t&os.ModeDir != 0:
		return "a directory"
	case t&os.ModeNamedPipe != 0:
		return "a FIFO"
	case t&os.ModeSocket != 0:
		return "a socket"
	case t&os.ModeCharDevice != 0:
		return "a character device"
	case t&os.ModeDevice != 0:
		return "a block device"
	case t&os.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "an irregular file"
}

// Open opens path read-only when it is a regular file (symbolic links followed). Anything else
// is refused with an error naming the path and its type ("not a regular file (a FIFO)"):
// opening a FIFO for reading waits for a writer and a device never ends, so the type is checked
// before opening, the file is opened with O_NONBLOCK (which does not change reads of a regular
// file), and the type is checked again on the open descriptor, so that a file replaced in
// between cannot make it block.
func Open(path string) (*os.File, error) {
	f, _, err := OpenSized(path)
	return f, err
}

// OpenSized is Open, with the file's size as the open descriptor sees it.
func OpenSized(path string) (*os.File, int64, error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, 0, err
	} else if !fi.Mode().IsRegular() {
		return nil, 0, NotRegular(path, fi.Mode())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = NotRegular(path, fi.Mode())
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// ReadAtMost returns the first limit bytes of the regular file at path (all of it when it is
// shorter): what the server reads of a file it reads whole up to a limit, such as a .frm (at
// most FRM_MAX_SIZE). A sparse or oversized file costs at most limit bytes of memory.
func ReadAtMost(path string, limit int64) ([]byte, error) {
	f, size, err := OpenSized(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, min(size, limit))
	n, err := io.ReadFull(f, b)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, fmt.Errorf("%s: offset %d: %w", path, n, err)
	}
	return b[:n], nil
}

// TooLarge is the error of ReadFile for a file larger than its limit.
type TooLarge struct {
	Path        string
	Size, Limit int64
}

func (e *TooLarge) Error() string {
	return fmt.Sprintf("%s: %d bytes, more than the %d bytes a file of its kind can hold", e.Path, e.Size, e.Limit)
}

// ReadFile returns the whole regular file at path, refusing (*TooLarge) one larger than limit
// bytes: a file whose structure cannot be that large is not read into memory.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, size, err := OpenSized(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if size > limit {
		return nil, &TooLarge{Path: path, Size: size, Limit: limit}
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(b)) > limit { // it grew while read
		return nil, &TooLarge{Path: path, Size: int64(len(b)), Limit: limit}
	}
	return b, nil
}

// Check refuses, without opening it, a path that exists and is not a regular file (a FIFO, a
// device, a directory); a path that does not exist passes. It is for the files innoscope writes
// (report --out): opening a FIFO for writing waits for a reader.
func Check(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	if !fi.Mode().IsRegular() {
		return NotRegular(path, fi.Mode())
	}
	return nil
}

// OpenDir opens the directory at path (symbolic links followed) without blocking: O_DIRECTORY
// refuses anything else at once, a FIFO included, where a plain open would wait for a writer.
// The error for a path that is not a directory names what it is.
func OpenDir(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err == unix.ENOTDIR {
		if fi, serr := os.Stat(path); serr == nil {
			return nil, fmt.Errorf("%s: not a directory (%s)", path, Kind(fi.Mode()))
		}
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// ReadDir is os.ReadDir (the entries sorted by name) through OpenDir: a path that is not a
// directory is refused without blocking.
func ReadDir(path string) ([]os.DirEntry, error) {
	d, err := OpenDir(path)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	ents, err := d.ReadDir(-1)
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	return ents, err
}

// Replace writes the file path through write without ever opening path itself: into a new
// temporary file beside it (mode perm), synced, then renamed over path, and the directory
// synced. Whatever path was (a hard link to another file, a file another process reads), only
// its name is replaced; an interrupted write leaves path as it was and no temporary file.
func Replace(path string, perm os.FileMode, write func(*os.File) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".innoscope-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = write(f)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	d, err := OpenDir(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
