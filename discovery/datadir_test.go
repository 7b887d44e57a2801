package discovery

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParentHintNamesRedoDirectory (issue 28 item 17): a parent folder given instead of a data
// directory is refused naming the data directories it holds; one that has only #innodb_redo
// (MySQL 8.0.30+'s log directory) was left out of the hint.
func TestParentHintNamesRedoDirectory(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	if err := os.MkdirAll(filepath.Join(a, "mysql"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(b, "#innodb_redo"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := Layout{Datadir: base}.CheckDatadir()
	if err == nil || !strings.Contains(err.Error(), "it holds data directories: "+a+", "+b) {
		t.Errorf("CheckDatadir(%s): %v; want the hint naming %s and %s", base, err, a, b)
	}
}
