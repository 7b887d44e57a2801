package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// TestFrontEndTrial holds what a new-user trial of the CLI found (each failed before its fix):
// a mistyped command said "No help topic"; --fail-on=bogus was refused only after the whole
// report had printed; `rows --json` was no flag although every other command takes it;
// `diagnose --json` gave "trxs": null with nothing to roll back; `spaces --space 1` on an undo
// tablespace printed "space 1 is : FILE". A second trial: `rows` read an empty directory as a
// data directory without a log; `--space -1` or `--page -1` meant "every"; `diagnose DIR
// --datadir OTHER` silently read DIR; a JSON error named no offset where its message did;
// `pages --page N --records` showed a crashed directory's page as if it were current.
func TestFrontEndTrial(t *testing.T) {
	if _, errs, code := run("diagnos", "x"); code != ExitError || !strings.Contains(errs, `unknown command "diagnos"`) {
		t.Errorf("a mistyped command: exit %d, %q", code, errs)
	}
	s := lab.Get(t, "undo")
	where, _ := splitOptions(s.Options)
	if out, errs, code := run(append([]string{"diagnose", s.Crashed, "--fail-on=bogus"}, where...)...); code != ExitError || out != "" ||
		!strings.Contains(errs, "--fail-on") {
		t.Errorf("--fail-on=bogus: exit %d, stderr %q, stdout %d bytes (want exit 2 before any output)", code, errs, len(out))
	}
	if out, _, _ := run(append([]string{"diagnose", "--json", s.Crashed}, where...)...); strings.Contains(out, `"trxs": null`) ||
		strings.Contains(out, `"trxs":null`) {
		t.Errorf("diagnose --json: rollback trxs null:\n%s", out)
	}
	out, errs, code := run(append([]string{"spaces", s.Crashed, "--space", "1"}, where...)...)
	if first := strings.SplitN(out, "\n", 2)[0]; code != ExitClean || !strings.HasPrefix(first, "space 1 (no table): ") {
		t.Errorf("spaces --space 1 on an undo tablespace: exit %d %s: %q", code, errs, first)
	}

	empty := t.TempDir()
	if _, errs, code := run("rows", empty, "db.t"); code != ExitError || !strings.Contains(errs, "not a data directory") {
		t.Errorf("rows on an empty directory: exit %d, %q", code, errs)
	}
	for _, args := range [][]string{{"spaces", s.Crashed, "--space", "-1"}, {"log", "records", s.Crashed, "--page", "-1"},
		{"map", s.Crashed, "--space", "4294967296"}, {"pages", filepath.Join(s.Crashed, "ibdata1"), "--page", "-1"}} {
		if out, errs, code := run(args...); code != ExitError || out != "" || !strings.Contains(errs, "give a number from 0") {
			t.Errorf("%v: exit %d, %q (want a refusal, not every space or page)", args, code, errs)
		}
	}
	other := lab.Get(t, "dml")
	if out, errs, code := run(append([]string{"diagnose", s.Crashed, "--datadir", other.Crashed}, where...)...); code != ExitError || out != "" ||
		!strings.Contains(errs, "name different directories") {
		t.Errorf("diagnose DIR --datadir OTHER: exit %d, %q", code, errs)
	}
	short := filepath.Join(t.TempDir(), "short.ibd")
	if err := os.WriteFile(short, make([]byte, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _, code := run("pages", "--json", short); code != ExitError || !strings.Contains(out, `"offset":1000`) {
		t.Errorf("pages --json on a 1000-byte file: exit %d, %s (want the offset the message names)", code, out)
	}

	c := lab.Get(t, "clean")
	for _, d := range []struct {
		file  string
		stale bool
	}{{filepath.Join(other.Crashed, "db", "t1.ibd"), other.Verdict.CrashRecovery}, {filepath.Join(c.Crashed, "db", "t.ibd"), c.Verdict.CrashRecovery}} {
		_, errs, code := run("pages", d.file, "--page", "3", "--records")
		if code != ExitClean || strings.Contains(errs, "crash recovery needed") != d.stale {
			t.Errorf("pages %s --page 3 --records: exit %d, stderr %q (the server ran crash recovery there: %v)", d.file, code, errs, d.stale)
		}
	}
	j, _, jcode := run("rows", c.Crashed, "db.t", "--json")
	f, _, fcode := run("rows", c.Crashed, "db.t", "--format", "json")
	if jcode != ExitClean || fcode != ExitClean || j != f || j == "" {
		t.Errorf("rows --json: exit %d, %d bytes; --format json: exit %d, %d bytes", jcode, len(j), fcode, len(f))
	}
}
