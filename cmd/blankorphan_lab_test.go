package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// TestBlankOrphan: a datafile no table refers to whose page 0 is blank (all zero) is an
// ORPHAN_FILE that says so and names no space id; the server starts on the directory (it never
// opens the file), as the warning says. Before, the finding said "(space 0)": page 0 read as
// the system tablespace's id.
func TestBlankOrphan(t *testing.T) {
	s := lab.Get(t, "clean")
	dir := copyScenario(t, s)
	blank := filepath.Join(dir, "db", "blank.ibd")
	if err := os.WriteFile(blank, make([]byte, 65536), 0o640); err != nil {
		t.Fatal(err)
	}
	srvCopy := filepath.Join(t.TempDir(), "srv")
	lab.CopyDir(t, dir, srvCopy)
	up, errLog := tryServer(t, srvCopy, s.Options...)
	if !up {
		t.Fatalf("the server does not start with a blank orphan file:\n%s", errLog)
	}
	fs, code := findingCodes(t, "diagnose", "--json", dir)
	f, ok := fs["ORPHAN_FILE"]
	if !ok || code == ExitFindings || f.File != blank || f.SpaceID != nil || !strings.Contains(f.Message, "page 0 is blank") || strings.Contains(f.Message, "space 0") {
		t.Errorf("diagnose with a blank orphan (the server starts): exit %d, ORPHAN_FILE %v %+v", code, ok, f)
	}
}
