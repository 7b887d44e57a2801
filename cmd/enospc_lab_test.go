package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/internal/lab"
	"innoscope/replay"
)

// smallTmpfs mounts a tmpfs of 2 MiB (smaller than any lab crash) and returns its directory;
// the test is skipped where mounting is not allowed (not root, no mount(8), a container
// without CAP_SYS_ADMIN).
func smallTmpfs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (%v: %s): the copy cannot be made to run out of space", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// TestNoSpaceLeftNamesIncompleteCopy: a recover whose copy runs out of space (a 2 MiB tmpfs)
// exits 2 with an error that says the copy is left incomplete, names the marker it holds and
// says --force is what reuses it (it said only "write ...: no space left on device"); verify
// --keep says the same in its own options (it has no --force). The marker is there, as said.
func TestNoSpaceLeftNamesIncompleteCopy(t *testing.T) {
	s := lab.Get(t, "dml")
	where, _ := splitOptions(s.Options)
	fs := smallTmpfs(t)
	for _, c := range []struct {
		cmd, flag string
		want      []string
		not       string
	}{
		{"recover", "--into", []string{"run again with --force"}, ""},
		{"verify", "--keep", []string{"give --keep a new directory"}, "--force"},
	} {
		copyDir := filepath.Join(fs, c.cmd)
		out, errs, code := run(append([]string{c.cmd, s.Crashed, c.flag, copyDir}, where...)...)
		t.Logf("%s: exit %d: %s", c.cmd, code, errs)
		if code != ExitError || out != "" {
			t.Errorf("%s %s on a full file system: exit %d, stdout %q (want 2, nothing)", c.cmd, c.flag, code, out)
		}
		for _, w := range append([]string{"no space left on device", copyDir + " is left incomplete", replay.IncompleteMarker}, c.want...) {
			if !strings.Contains(errs, w) {
				t.Errorf("%s %s on a full file system: no %q in %q", c.cmd, c.flag, w, errs)
			}
		}
		if c.not != "" && strings.Contains(errs, c.not) {
			t.Errorf("%s: names %s, which it does not have: %q", c.cmd, c.not, errs)
		}
		if _, err := os.Stat(filepath.Join(copyDir, replay.IncompleteMarker)); err != nil {
			t.Errorf("%s: the copy has no %s: %v", c.cmd, replay.IncompleteMarker, err)
		}
		if err := os.RemoveAll(copyDir); err != nil {
			t.Fatal(err)
		}
	}
}
