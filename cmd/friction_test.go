package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMistypedNamesSuggest: a mistyped command or flag names the one meant (a command said only
// `unknown command "diagnos" (see innoscope --help)`, a flag "flag provided but not defined:
// -jsn"); a word near nothing suggests nothing, and the commands are listed instead.
func TestMistypedNamesSuggest(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"diagnos", dir}, "did you mean `innoscope diagnose`?"},
		{[]string{"diag", dir}, "did you mean `innoscope diagnose`?"},
		{[]string{"verfy", dir}, "did you mean `innoscope verify`?"},
		{[]string{"lgo", "stats", dir}, "did you mean `innoscope log`?"},
		{[]string{"log", "recrods", dir}, "did you mean `innoscope log records`? (see innoscope log --help)"},
		{[]string{"help", "rpeort"}, "did you mean `innoscope report`?"},
		{[]string{"diagnose", "--jsn", dir}, "did you mean --json? (see innoscope diagnose --help)"},
		{[]string{"diagnose", dir, "--skip-page"}, "did you mean --skip-pages?"},
		{[]string{"recover", dir, "--intoo", filepath.Join(dir, "copy")}, "did you mean --into?"},
		{[]string{"log", "records", "--spcae", "3", dir}, "did you mean --space? (see innoscope log records --help)"},
		{[]string{"xyzzy", dir}, "the commands are log, spaces, pages, map, diagnose, recover, verify, rows, undrop, schema, adopt, report"},
	} {
		out, errs, code := run(c.args...)
		if code != ExitError || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", c.args, code, out, errs, c.want)
		}
	}
	if _, errs, _ := run("spaces", "--no-such-flag", dir); strings.Contains(errs, "did you mean") {
		t.Errorf("a flag near none suggested one: %q", errs)
	}
}

// TestNoCommand: innoscope (and `innoscope log`) without a command printed the help on stdout
// and exited 0, so a script whose command word came out empty passed. The help now goes to
// stderr with a line saying no command was given, exit 2; --help and `help` still print it on
// stdout, exit 0.
func TestNoCommand(t *testing.T) {
	for _, args := range [][]string{nil, {"log"}} {
		out, errs, code := run(args...)
		if code != ExitError || out != "" || !strings.Contains(errs, "USAGE:") || !strings.Contains(errs, "innoscope: no command given") {
			t.Errorf("innoscope %v: exit %d, stdout %q, stderr %q; want exit 2, the help and a line on stderr", args, code, out, errs)
		}
	}
	for _, args := range [][]string{{"--help"}, {"help"}, {"log", "--help"}, {"help", "log"}} {
		if out, errs, code := run(args...); code != ExitClean || !strings.Contains(out, "USAGE:") || errs != "" {
			t.Errorf("innoscope %v: exit %d, stderr %q; want the help on stdout, exit 0", args, code, errs)
		}
	}
}

// TestSecondArgumentMeantFlag: `recover DIR COPY` said "expected one DIR argument"; it now says
// --into COPY was probably meant, and writes nothing (as `verify DIR COPY`, --keep, and `report
// DIR FILE.html`, --out).
func TestSecondArgumentMeantFlag(t *testing.T) {
	dir, second := t.TempDir(), filepath.Join(t.TempDir(), "second")
	for _, c := range []struct{ cmd, flag string }{{"recover", "into"}, {"verify", "keep"}, {"report", "out"}} {
		_, errs, code := run(c.cmd, dir, second)
		want := "did you mean --" + c.flag + " " + second + "? (innoscope " + c.cmd + " " + dir + " --" + c.flag + " " + second + ")"
		if code != ExitError || !strings.Contains(errs, want) {
			t.Errorf("%s DIR %s: exit %d, %q; want exit 2 and %q", c.cmd, second, code, errs, want)
		}
		if _, err := os.Stat(second); err == nil {
			t.Fatalf("%s DIR %s created it", c.cmd, second)
		}
	}
	if _, errs, code := run("diagnose", dir, second); code != ExitError || !strings.Contains(errs, "expected one DIR argument, got 2 arguments") {
		t.Errorf("diagnose DIR X: exit %d, %q", code, errs)
	}
	if _, errs, code := run("recover", dir, second, "--into", second); code != ExitError || strings.Contains(errs, "did you mean") {
		t.Errorf("recover DIR X --into X: exit %d, %q (--into is given: nothing to suggest)", code, errs)
	}
}

// TestRowsFileFlagsNeedDatadir: `rows FILE.ibd` refuses, before reading the file, every flag
// that needs the data directory (`--deleted` was silently ignored: the live rows were printed).
func TestRowsFileFlagsNeedDatadir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "t.ibd")
	for _, args := range [][]string{{"--deleted"}, {"--uncommitted"}, {"--index", "k"}, {"--versions"}, {"--as-of-trx", "5"}, {"--allow-live"}} {
		out, errs, code := run(append([]string{"rows", file}, args...)...)
		if code != ExitError || out != "" || !strings.Contains(errs, args[0]+" needs the data directory (DIR DB.TABLE)") {
			t.Errorf("rows FILE.ibd %v: exit %d, %q", args, code, errs)
		}
	}
}
