package lab

import (
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"time"
)

// A scenario set (one directory per hash of the lab scripts and server version) is marked used
// by every test process that reads it; sets nobody used for PruneAfter are removed when a new
// set is generated beside them, so that editing the lab script does not leave gigabytes behind.

// PruneAfter is how long an unused scenario set is kept.
const PruneAfter = 48 * time.Hour

// setName matches the scenario set directories generate makes (a server's prefix, mariadb118-,
// then a hash), not the folders of the fetched servers (mariadb-11.8-trixie).
var setName = regexp.MustCompile(`^(mariadb[0-9]+-)?[0-9a-f]{12}$`)

var marked sync.Map // set directory → struct{}: marked used by this process

// markUsed stamps dir/.used with the time now, once per process.
func markUsed(dir string) {
	if _, done := marked.LoadOrStore(dir, struct{}{}); done {
		return
	}
	stamp := filepath.Join(dir, ".used")
	now := time.Now()
	if err := os.Chtimes(stamp, now, now); err != nil {
		if f, err := os.Create(stamp); err == nil {
			f.Close()
		}
	}
}

// prune removes the scenario sets beside keep that were last used (their .used stamp, else
// the directory's own time) more than PruneAfter ago and that no process is generating into
// (their .lock is free). It reports the removed directories.
func prune(keep string) []string {
	base := filepath.Dir(keep)
	entries, err := os.ReadDir(base)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		dir := filepath.Join(base, e.Name())
		if !e.IsDir() || dir == keep || !setName.MatchString(e.Name()) {
			continue
		}
		fi, err := os.Stat(filepath.Join(dir, ".used"))
		if err != nil {
			fi, err = os.Stat(dir)
		}
		if err != nil || time.Since(fi.ModTime()) < PruneAfter {
			continue
		}
		lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			continue
		}
		if syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil && os.RemoveAll(dir) == nil {
			removed = append(removed, dir)
		}
		lock.Close()
	}
	return removed
}
