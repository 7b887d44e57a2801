package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// TestLogNamesDeniedPathAsNobody (issue 28 item 6): a readable copy of a crashed data directory
// whose log (and .isl) names a DATA DIRECTORY file in a directory only root may enter, innoscope
// run as nobody. diagnose said "mariadbd will refuse to start: MISSING_FILE" (exit 1) and verify
// "FAILED ... permission denied" (exit 1): innoscope's own limit blamed on the server, which runs
// as another user. Both, and every command taking a data directory, now exit 2 with the OS
// error, as for every other permission problem; with the .isl removed (only the log names the
// file) too. The test's own directory tree: nothing shared is chmod'ed.
func TestLogNamesDeniedPathAsNobody(t *testing.T) {
	lab.Require(t)
	base := t.TempDir()
	nobody := asNobody(t, base)
	crashed, ext := crashDataDirectory(t, filepath.Join(base, "crash"), []string{"--innodb-log-file-size=16M"})
	dir := filepath.Join(base, "d")
	lab.CopyDir(t, crashed, dir)
	for _, p := range []string{filepath.Join(base, "crash"), ext, filepath.Join(ext, "db"), filepath.Join(ext, "db", "r.ibd")} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The control: readable, nobody's diagnosis is root's.
	root := cliIn(t, base, hangLimit, nil, "diagnose", dir)
	if r := cliIn(t, base, hangLimit, nobody, "diagnose", dir); r.code != root.code || r.stdout != root.stdout || root.code == ExitError {
		t.Fatalf("readable: nobody's diagnose (exit %d) differs from root's (exit %d)\n%s%s\n%s", r.code, root.code, r.stdout, r.stderr, root.stdout)
	}
	if err := os.Chmod(ext, 0o700); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(ext, 0o755)
	want := filepath.Join(ext, "db", "r.ibd") + ": permission denied"
	for _, isl := range []bool{true, false} {
		if !isl {
			if err := os.Remove(filepath.Join(dir, "db", "r.isl")); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range datadirCommands(t.TempDir()) {
			if !isl && c[0] == "spaces" {
				continue // lists the files it finds: without the link, the file is not one of them
			}
			r := cliIn(t, base, hangLimit, nobody, append(c, dir)...)
			wantCouldNotRun(t, strings.Join(c, " ")+map[bool]string{true: "", false: " (no .isl)"}[isl], r, want, "root or mysql")
		}
	}
}
