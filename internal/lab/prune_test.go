package lab

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestPrune: of the scenario sets beside a new one, only those unused for PruneAfter whose
// lock is free are removed; a recent set, a locked old one and other folders stay.
func TestPrune(t *testing.T) {
	base := t.TempDir()
	old := time.Now().Add(-PruneAfter - time.Hour)
	mk := func(name string, used time.Time) string {
		d := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Join(d, "scenario"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, ".used"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(filepath.Join(d, ".used"), used, used); err != nil {
			t.Fatal(err)
		}
		return d
	}
	stale, stale105 := mk("0123456789ab", old), mk("mariadb105-0123456789ac", old)
	recent, locked := mk("0123456789ad", time.Now()), mk("0123456789ae", old)
	stale118 := mk("mariadb118-0123456789af", old)
	pkg, pkg118 := mk("mariadb-10.5-bullseye", old), mk("mariadb-11.8-trixie", old)
	lock, err := os.OpenFile(filepath.Join(locked, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	removed := prune(filepath.Join(base, "fedcba987654"))
	if len(removed) != 3 {
		t.Errorf("removed %v, want the three stale sets", removed)
	}
	for d, want := range map[string]bool{stale: false, stale105: false, stale118: false, recent: true, locked: true, pkg: true, pkg118: true} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", d, err == nil, want)
		}
	}
}
