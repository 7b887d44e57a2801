package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// TestExternalDirInsideInto: `recover --external-dir` inside --into (or holding it, or the same
// directory) is refused, by a real run and a dry run alike (exit 2, both flags named, nothing
// created); it was accepted and the copy held its own external files. A crash with DATA
// DIRECTORY tables, so the external directory has files to take.
func TestExternalDirInsideInto(t *testing.T) {
	s := lab.Get(t, "data_directory")
	where, _ := splitOptions(s.Options)
	for _, c := range []struct{ into, ext string }{{"copy", "copy/ext"}, {"ext/copy", "ext"}, {"copy", "copy"}} {
		for _, dry := range []bool{false, true} {
			base := t.TempDir()
			into, ext := filepath.Join(base, c.into), filepath.Join(base, c.ext)
			args := append([]string{"recover", s.Crashed, "--into", into, "--external-dir", ext}, where...)
			if dry {
				args = append(args, "--dry-run")
			}
			out, errs, code := run(args...)
			if code != ExitError || out != "" || !strings.Contains(errs, "--external-dir "+ext+" overlaps --into "+into) {
				t.Errorf("%v: exit %d, stderr %q, stdout %d bytes (want a refusal naming both)", args[3:], code, errs, len(out))
			}
			if ents, _ := os.ReadDir(base); len(ents) != 0 {
				t.Errorf("%v: refused but created %v", args[3:], ents)
			}
		}
	}
	base := t.TempDir() // beside the copy is fine
	if _, errs, code := run(append([]string{"recover", s.Crashed, "--into", filepath.Join(base, "copy"), "--external-dir",
		filepath.Join(base, "ext")}, where...)...); code != ExitClean {
		t.Errorf("--external-dir beside --into: exit %d: %s", code, errs)
	}
}
