package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdoptUsage: adopt without SRC, without --into, with a file that is no table's, or with
// one table given twice is refused (exit 2) with the next step, and writes nothing.
func TestAdoptUsage(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "notes.txt")
	os.WriteFile(other, []byte("x"), 0o644)
	kit := filepath.Join(dir, "kit")
	for _, d := range []string{"a", "b"} { // one table's file in two places (their contents are not read)
		os.MkdirAll(filepath.Join(dir, d, "db"), 0o755)
		os.WriteFile(filepath.Join(dir, d, "db", "t.ibd"), []byte("x"), 0o644)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"adopt", "--into", kit}, "expected SRC"},
		{[]string{"adopt", other}, "give --into DIR"},
		{[]string{"adopt", "--into", kit, other}, "give a table's .ibd, .frm or .par file"},
		{[]string{"adopt", "--into", kit, filepath.Join(dir, "missing.ibd")}, "missing.ibd"},
		{[]string{"adopt", "--into", kit, filepath.Join(dir, "a", "db", "t.ibd"), filepath.Join(dir, "b", "db", "t.ibd")}, "is given twice"},
	} {
		_, errs, code := run(c.args...)
		if code != ExitError || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %s", c.args, code, errs)
		}
	}
	if _, err := os.Stat(kit); err == nil {
		t.Error("a refused adopt wrote the kit's directory")
	}
}
