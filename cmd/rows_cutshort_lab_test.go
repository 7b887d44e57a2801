package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/discovery"
	"innoscope/internal/lab"
)

// TestRowsDirCutShort: `rows DIR DB.TABLE` on a data directory whose table file was cut short
// (the lab's cleanly shut down formats_default, db.dyn cut to its first 8 pages in a copy): the
// walk (its tree leads past the end: the leaves in file order) and --scan print only rows the
// table has, exit 1 and say the rows of the missing pages in use are lost, how many not known.
// Before (a new-user trial), --scan printed what it found and exited 0 with no loss said.
func TestRowsDirCutShort(t *testing.T) {
	s := lab.Get(t, "formats_default")
	full, errs, code := run("rows", s.Crashed, "db.dyn")
	if code != ExitClean {
		t.Fatalf("rows db.dyn: exit %d, %s", code, errs)
	}
	have := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSuffix(full, "\n"), "\n") {
		have[l] = true
	}
	cp := filepath.Join(t.TempDir(), "data")
	lab.CopyDir(t, s.Crashed, cp)
	ibd := filepath.Join(cp, "db", "dyn.ibd")
	fi, err := os.Stat(ibd)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() < 64*16384 {
		t.Fatalf("%s: %d bytes, too short to cut", ibd, fi.Size())
	}
	if err := os.Truncate(ibd, 8*16384); err != nil { // its root and a few leaves left
		t.Fatal(err)
	}
	for _, args := range [][]string{{"rows", cp, "db.dyn"}, {"rows", "--scan", cp, "db.dyn"}} {
		out, errs, code := run(args...)
		n := 0
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if l == "" {
				continue
			}
			if !have[l] {
				t.Errorf("%v printed a row the table does not have: %q", args, l)
			}
			n++
		}
		if code != ExitFindings || n >= len(have) || !strings.Contains(errs, "missing") || !strings.Contains(errs, "how many is not known") {
			t.Errorf("%v of the cut file: exit %d, %d of %d rows, %s", args, code, n, len(have), errs)
		}
		t.Logf("%v: %d of %d rows", args, n, len(have))
	}
}

// TestRowsDirCutShortFree: the same table cut after the pages it uses: the pages missing are
// all free by the extent descriptors, every row is printed, exit 0, and a note says nothing was
// lost there (before, the loss was counted as unknown).
func TestRowsDirCutShortFree(t *testing.T) {
	s := lab.Get(t, "formats_default")
	full, _, _ := run("rows", s.Crashed, "db.dyn")
	cp := filepath.Join(t.TempDir(), "data")
	lab.CopyDir(t, s.Crashed, cp)
	ibd := filepath.Join(cp, "db", "dyn.ibd")
	// The end of the last page the descriptors mark in use.
	fi, err := os.Stat(ibd)
	if err != nil {
		t.Fatal(err)
	}
	last := lastUsedPage(t, ibd)
	if fi.Size() <= (last+2)*16384 {
		t.Skipf("%s: no free pages after the last used one (%d of %d)", ibd, last, fi.Size()/16384)
	}
	if err := os.Truncate(ibd, (last+1)*16384); err != nil {
		t.Fatal(err)
	}
	out, errs, code := run("rows", cp, "db.dyn")
	if code != ExitClean || out != full || !strings.Contains(errs, "mark every one of them free") {
		t.Errorf("rows of the file cut after its last used page %d: exit %d, %s", last, code, errs)
	}
}

// lastUsedPage is the last page of the tablespace file path its extent descriptors mark in use.
func lastUsedPage(t *testing.T, path string) int64 {
	t.Helper()
	f, err := discovery.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	last, xdes := int64(0), f.Descriptors()
	for no := int64(0); no < f.Pages(); no++ {
		if used, known := xdes.Used(no); known && used {
			last = no
		}
	}
	return last
}
