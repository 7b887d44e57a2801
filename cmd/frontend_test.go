package cmd

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// TestHelpTopic: `innoscope help CMD [SUB]` prints the command's help.
func TestHelpTopic(t *testing.T) {
	for _, args := range [][]string{{"help", "diagnose"}, {"help", "log", "records"}, {"help"}} {
		out, errs, code := run(args...)
		if code != ExitClean || !strings.Contains(out, "USAGE:") {
			t.Errorf("%v: exit %d\n%s\n%s", args, code, out, errs)
		}
	}
	if out, _, _ := run("help", "diagnose"); !strings.Contains(out, "innoscope diagnose") {
		t.Errorf("help diagnose:\n%s", out)
	}
}

// TestUsageErrorOneLine: an unknown flag is one line naming the help, not the whole help.
func TestUsageErrorOneLine(t *testing.T) {
	out, errs, code := run("spaces", "--no-such-flag", t.TempDir())
	if code != ExitError || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "innoscope spaces --help") {
		t.Errorf("exit %d\nstdout %q\nstderr %q", code, out, errs)
	}
}

// TestJSONError: with --json a command that cannot run prints {"error", "file", "offset"} on
// stdout (the one human line stays on stderr).
func TestJSONError(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "ib_logfile0")
	if err := os.WriteFile(bad, make([]byte, 100), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"diagnose", "--json", filepath.Join(dir, "nonexistent")},
		{"log", "header", bad, "--json"},
	} {
		out, errs, code := run(args...)
		if code != ExitError {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, out, errs)
		}
		var j map[string]any
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatalf("%v: stdout is not JSON: %v\n%s", args, err, out)
		}
		for _, k := range []string{"error", "file", "offset"} {
			if _, ok := j[k]; !ok {
				t.Errorf("%v: no %q in %s", args, k, out)
			}
		}
		if j["file"] == nil {
			t.Errorf("%v: the failure names no file: %s", args, out)
		}
		t.Logf("%v: %s", args, strings.TrimSpace(out))
	}
}

// goInternals are what Go prints for values no message should show: maps, nil, empty or
// bracketed slices, structs, bad format verbs.
var goInternals = regexp.MustCompile(`map\[|<nil>|&\{|%!|\[\]$| \[\] |\[\]\)`)

// TestNoGoInternals reads every golden output for Go's formatting of internals.
func TestNoGoInternals(t *testing.T) {
	err := filepath.WalkDir(filepath.Join("testdata", "golden"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".json.golden") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, l := range strings.Split(string(b), "\n") {
			if goInternals.MatchString(l) {
				t.Errorf("%s:%d: %s", p, i+1, l)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_, errs, _ := run("spaces", "/etc/passwd")
	if goInternals.MatchString(errs) {
		t.Errorf("spaces on a file: %s", errs)
	}
}

// TestColorFlag: --color always colours a table even into a pipe, never and auto (not a
// terminal) do not; NO_COLOR does not override always.
func TestColorFlag(t *testing.T) {
	dir := filepath.Join("..", "fixtures", "mariadb-10.11-crash")
	t.Setenv("NO_COLOR", "1")
	for _, c := range []struct {
		mode string
		want bool
	}{{"always", true}, {"never", false}, {"auto", false}} {
		out, _, _ := run("diagnose", "--color", c.mode, dir)
		if got := strings.Contains(out, "\x1b["); got != c.want {
			t.Errorf("--color %s: colour %v, want %v", c.mode, got, c.want)
		}
	}
	if _, errs, code := run("diagnose", "--color", "sometimes", dir); code != ExitError || !strings.Contains(errs, "--color") {
		t.Errorf("--color sometimes: exit %d %s", code, errs)
	}
}

// TestReportOutInsideSource: `report --out` inside the data directory is refused before
// anything is read or written.
func TestReportOutInsideSource(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "crash")
	lab.CopyDir(t, filepath.Join("..", "fixtures", "mariadb-10.11-crash"), dir)
	before := lab.HashTree(t, dir)
	_, errs, code := run("report", dir, "--out", filepath.Join(dir, "r.html"))
	if code != ExitError || !strings.Contains(errs, "overlaps the source location "+dir) {
		t.Errorf("exit %d: %s", code, errs)
	}
	if !mapsEqual(before, lab.HashTree(t, dir)) {
		t.Error("report wrote into the data directory")
	}
}
