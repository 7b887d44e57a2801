package replay

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"

	"innoscope/discovery"
	"innoscope/internal/regular"
)

// Sources are the places a recovery reads from (discovery.SourcePlaces), compared by identity.
func (c *Copy) Sources() *discovery.Places {
	if c.places == nil {
		c.places = discovery.SourcePlaces(c.Source)
	}
	return c.places
}

// CheckOverlap refuses a directory dir (for the copy, its external directory or a temporary
// directory) that is one of the places the source is read from, inside one, or holds one,
// under any of its names (a bind mount, a symbolic link).
func (c *Copy) CheckOverlap(what, dir string) error {
	place, how, err := c.Sources().Overlap(dir)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, dir, err)
	}
	if place != "" {
		return discovery.OverlapError(what, dir, place, how)
	}
	return nil
}

// TargetLock is held while a copy is written: a flock on the copy's directory, so two runs
// into one target do not both proceed.
type TargetLock struct {
	f *os.File
	c *Copy
}

// Unlock releases the lock (and the directories the copy keeps open for Sync).
func (l *TargetLock) Unlock() {
	if l != nil && l.f != nil {
		l.f.Close()
	}
	if l != nil && l.c != nil {
		l.c.closeDirs()
	}
}

// TargetFlags are the options of the command that chose the copy's directory, which its
// refusals name: Dir the copy's (recover's --into, verify's --keep), Force the one that empties
// an interrupted copy ("" when the command has none). The zero value is recover's.
type TargetFlags struct{ Dir, Force string }

// orDefault is f, or recover's flags when f is the zero value.
func (f TargetFlags) orDefault() TargetFlags {
	if f.Dir == "" {
		return TargetFlags{Dir: "--into", Force: "--force"}
	}
	return f
}

// Lock checks the target before anything is written (it must not overlap any place the source
// is read from), creates it if new, locks it against a concurrent run, and then checks what it
// holds (see CheckTarget). Its refusals name the options in flags.
func (c *Copy) Lock(force bool, flags TargetFlags) (*TargetLock, error) {
	flags = flags.orDefault()
	if err := c.checkOverlaps(flags); err != nil {
		return nil, err
	}
	for _, d := range []string{c.Target, c.external()} { // the copy's own directories are never made again
		if err := os.MkdirAll(filepath.Dir(filepath.Clean(d)), 0o750); err != nil {
			return nil, err
		}
	}
	created := false
	if err := os.Mkdir(c.Target, 0o750); err == nil {
		created = true
	} else if !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	f, err := regular.OpenDir(c.Target) // a FIFO named so would block an open(2)
	if err != nil {
		return nil, fmt.Errorf("%s %w: name a new directory", flags.Dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, c.lockedError(flags)
	}
	toEmpty, err := c.checkDirs(force, created, flags)
	for _, d := range toEmpty {
		if err != nil {
			break
		}
		err = emptyDir(d)
	}
	if err != nil {
		f.Close()
		if created {
			os.Remove(c.Target)
		}
		return nil, err
	}
	return &TargetLock{f: f, c: c}, nil
}

// lockedError is the refusal of a target another run holds locked.
func (c *Copy) lockedError(flags TargetFlags) error {
	return fmt.Errorf("%s %s: another innoscope run is writing into it (it holds a lock on the directory)", flags.Dir, c.Target)
}

// CheckTarget makes every check Lock makes, and writes nothing (a dry run's): it refuses a
// copy that would overlap the source, that another run holds locked, or that holds anything but
// an empty directory (a new one is fine), and the same for its external directory. With force,
// one that holds IncompleteMarker (an interrupted copy: Lock empties it) passes too; a
// non-empty directory without the marker is refused even then.
func (c *Copy) CheckTarget(force bool, flags TargetFlags) error {
	flags = flags.orDefault()
	if err := c.checkOverlaps(flags); err != nil {
		return err
	}
	if f, err := regular.OpenDir(c.Target); err == nil { // an existing target: is a run writing into it?
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		f.Close() // releases the probe's lock
		if err != nil {
			return c.lockedError(flags)
		}
	}
	_, err := c.checkDirs(force, false, flags)
	return err
}

// emptyDir removes everything in dir.
func emptyDir(dir string) error {
	ents, err := regular.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// checkOverlaps refuses a copy or external directory that overlaps a place the source is read
// from.
func (c *Copy) checkOverlaps(flags TargetFlags) error {
	for _, d := range []struct{ what, dir string }{{flags.Dir, c.Target}, {"the external directory", c.external()}} {
		if err := c.CheckOverlap(d.what, d.dir); err != nil {
			return err
		}
	}
	if discovery.SameOrWithin(c.Target, c.external()) || discovery.SameOrWithin(c.external(), c.Target) { // only a given --external-dir can
		return fmt.Errorf("--external-dir %s overlaps %s %s: they must not hold one another (the server takes every subdirectory of its data directory for a database)",
			c.external(), flags.Dir, c.Target)
	}
	return nil
}

// checkDirs is CheckTarget after the overlap and lock checks, writing nothing; created says
// Lock has just made the target. A new or empty directory is used as it is; one holding
// IncompleteMarker only with force, and one holding anything else never. It returns the
// interrupted copies that force says to empty.
func (c *Copy) checkDirs(force, created bool, flags TargetFlags) (toEmpty []string, err error) {
	for _, d := range []string{c.Target, c.external()} {
		if created && d == c.Target {
			continue
		}
		ents, err := regular.ReadDir(d)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			what := flags.Dir
			if d != c.Target {
				what = "the external directory"
			}
			return nil, fmt.Errorf("%s %w: name a new directory", what, err)
		}
		_, merr := os.Stat(filepath.Join(d, IncompleteMarker))
		marked := merr == nil
		switch {
		case marked && !force && flags.Force == "":
			return nil, fmt.Errorf("%s holds an interrupted recovery (%s is there): it is not usable; remove it or give %s a new directory",
				d, IncompleteMarker, flags.Dir)
		case marked && !force:
			return nil, fmt.Errorf("%s holds an interrupted recovery (%s is there): it is not usable; pass %s to remove it and start again",
				d, IncompleteMarker, flags.Force)
		case marked:
			toEmpty = append(toEmpty, d)
		case len(ents) == 0:
			// An empty directory holds nothing to lose (a mount point made for the copy): used
			// as a new one is.
		case flags.Force == "":
			return nil, fmt.Errorf("%s is not empty: %s needs a new directory; name another", d, flags.Dir)
		default:
			return nil, fmt.Errorf("%s is not empty and is not an interrupted innoscope copy (no %s): innoscope only writes into new or empty directories, and %s only removes its own interrupted copies",
				d, IncompleteMarker, flags.Force)
		}
	}
	return toEmpty, nil
}

// markIncomplete writes IncompleteMarker into dir.
func markIncomplete(dir string) error {
	if err := os.Mkdir(dir, 0o750); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return os.WriteFile(filepath.Join(dir, IncompleteMarker),
		[]byte("innoscope recover has not finished: this copy is not a recovered data directory\n"), 0o640)
}

// Finish removes the markers of a completed copy (the copy's and its external directory's)
// and makes the removals durable.
func (c *Copy) Finish() error {
	for _, d := range []string{c.external(), c.Target} {
		err := os.Remove(filepath.Join(d, IncompleteMarker))
		if errors.Is(err, fs.ErrNotExist) && d != c.Target {
			continue
		}
		if err != nil {
			return err
		}
		if err := SyncDir(d); err != nil {
			return err
		}
	}
	return nil
}

// openDir keeps dir open for Sync.
func (c *Copy) openDir(dir string) error {
	d, err := regular.OpenDir(dir)
	if err != nil {
		return err
	}
	c.dirs = append(c.dirs, d)
	return nil
}

// Sync makes everything written into the copy durable: one syncfs(2) of each file system
// holding the copy or its external directory, in place of an fsync of each file. It must be
// called after the replay and before the copy's redo log is written (ResetLog), which is the
// copy's commit point: until then the copy's log is the placeholder the server refuses and the
// incomplete marker is in place, so a crash before it leaves a copy that is never started
// whatever reached the disk; after syncfs returns, every file and directory entry of the copy is
// on disk, and only then does the valid log (written to a temporary file, fsynced, renamed,
// directory fsynced) appear. syncfs reports a write-back error of the file system since the
// directory was opened (Linux 5.8+), which was before the first file of the copy was written.
func (c *Copy) Sync() error {
	var first error
	for _, d := range c.dirs {
		if err := unix.Syncfs(int(d.Fd())); err != nil && first == nil {
			first = fmt.Errorf("%s: syncfs: %w", d.Name(), err)
		}
	}
	c.closeDirs()
	return first
}

// closeDirs closes the directories kept open for Sync.
func (c *Copy) closeDirs() {
	for _, d := range c.dirs {
		d.Close()
	}
	c.dirs = nil
}

// unusableLogHeader is the first block of the copy's redo log while the copy is incomplete: the
// server refuses to start on it ("Invalid log header checksum"), so a half-made copy is never
// started; ResetLog replaces it at the end.
var unusableLogHeader = []byte("innoscope: incomplete copy, this is not a redo log\n")

// placeholderLog creates the copy's redo log as a file of size bytes whose header the server
// refuses.
func (c *Copy) placeholderLog(size int64) error {
	p := c.LogPath()
	if err := c.mkdir(filepath.Dir(p)); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o660)
	if err != nil {
		return err
	}
	_, err = f.Write(unusableLogHeader)
	if err == nil {
		err = f.Truncate(max(size, int64(len(unusableLogHeader))))
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = SyncDir(filepath.Dir(p))
	}
	return err
}
