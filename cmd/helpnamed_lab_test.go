package cmd

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"innoscope/internal/lab"
)

// TestDataDirectoryNamedHelp: a data directory called h or help, given by that relative name,
// is read like any other (every command printed its help text and exited 0: urfave/cli's help
// subcommand took the argument; new-user trial), and a bad flag's message names the whole
// command (it said "see innoscope stats --help" for log stats).
func TestDataDirectoryNamedHelp(t *testing.T) {
	s := lab.Get(t, "dml")
	base := t.TempDir()
	want, _, _ := run("log", "stats", "--json", s.Crashed)
	for _, name := range []string{"h", "help"} {
		lab.CopyDir(t, s.Crashed, filepath.Join(base, name))
		for _, args := range [][]string{{"log", "stats", "--json", name}, {"diagnose", "--json", name}} {
			r := cliIn(t, base, time.Minute, nil, args...)
			if strings.Contains(r.stdout, "USAGE:") || !strings.HasPrefix(strings.TrimSpace(r.stdout), "{") {
				t.Errorf("innoscope %v: exit %d, printed help or no JSON:\n%.300s", args, r.code, r.stdout)
			}
		}
		r := cliIn(t, base, time.Minute, nil, "log", "stats", "--json", name)
		if strings.ReplaceAll(r.stdout, filepath.Join(base, name), s.Crashed) != want {
			t.Errorf("log stats of %s differs from the crash's own", name)
		}
	}
	if _, errs, code := run("log", "stats", "--bogus", s.Crashed); code != ExitError || !strings.Contains(errs, "see innoscope log stats --help") {
		t.Errorf("log stats --bogus: exit %d, %s", code, errs)
	}
}
