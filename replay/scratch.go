package replay

import (
	"errors"
	"fmt"
	"innoscope/internal/regular"
	"os"
	"path/filepath"
	"syscall"
)

// verifyLock is the file in verify's temporary directory that the run holds a lock on (flock)
// until it exits: a directory whose lock file nobody holds is what a killed run left.
const verifyLock = "innoscope-verify.lock"

// MakeScratch makes verify's temporary directory in tmpdir ("": the system's) and locks it: its
// lock file is locked under a temporary name and renamed into place, so that it never shows
// unlocked while the run lives. unlock releases it.
func MakeScratch(tmpdir string) (dir string, unlock func(), err error) {
	dir, err = os.MkdirTemp(tmpdir, "innoscope-verify-")
	if err != nil {
		return "", nil, err
	}
	f, err := os.CreateTemp(dir, verifyLock+".*")
	if err == nil {
		if err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
			err = os.Rename(f.Name(), filepath.Join(dir, verifyLock))
		}
		if err != nil {
			f.Close()
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return dir, func() { f.Close() }, nil
}

// RemoveStaleScratch removes the temporary directories earlier verify runs left in tmpdir ("": the
// system's) when they were killed (SIGKILL, a crash: no clean-up ran): those holding a lock
// file nobody holds. Directories without one (not made by a locking verify) are left alone.
// It returns the directories removed.
func RemoveStaleScratch(tmpdir string) []string {
	if tmpdir == "" {
		tmpdir = os.TempDir()
	}
	dirs, _ := filepath.Glob(filepath.Join(tmpdir, "innoscope-verify-*"))
	var removed []string
	for _, d := range dirs {
		f, err := regular.Open(filepath.Join(d, verifyLock))
		if err != nil {
			continue
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil && os.RemoveAll(d) == nil {
			removed = append(removed, d)
		}
		f.Close()
	}
	return removed
}

// IncompleteError is err, of a run that stopped after it had written into target (no space
// left, a failing disk), with the word on the copy left incomplete and what to do (again). A
// refusal of the target (TargetError) wrote nothing and is err alone.
func IncompleteError(err error, target, again string) error {
	var te TargetError
	if err == nil || errors.As(err, &te) {
		return err
	}
	if n := IncompleteNote(target, again); n != "" {
		return fmt.Errorf("%w; %s", err, n)
	}
	return err
}

// IncompleteNote is what is said of a copy target a run left: nothing unless it is marked
// incomplete; then that, and what to do (again, in the command's own options).
func IncompleteNote(target, again string) string {
	if _, err := os.Stat(filepath.Join(target, IncompleteMarker)); err != nil {
		return ""
	}
	return fmt.Sprintf("the copy %s is left incomplete, marked so by %s: it is not usable; %s",
		target, IncompleteMarker, again)
}

// IncompleteNoteFunc is IncompleteNote as a function to call later (on an interrupt).
func IncompleteNoteFunc(target, again string) func() string {
	return func() string { return IncompleteNote(target, again) }
}
