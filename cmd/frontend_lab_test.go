package cmd

import (
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// TestFrontEndTrial holds what a new-user trial of the CLI found (each failed before its fix):
// a mistyped command said "No help topic"; --fail-on=bogus was refused only after the whole
// report had printed; `rows --json` was no flag although every other command takes it;
// `diagnose --json` gave "trxs": null with nothing to roll back; `spaces --space 1` on an undo
// tablespace printed "space 1 is : FILE".
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

	c := lab.Get(t, "clean")
	j, _, jcode := run("rows", c.Crashed, "db.t", "--json")
	f, _, fcode := run("rows", c.Crashed, "db.t", "--format", "json")
	if jcode != ExitClean || fcode != ExitClean || j != f || j == "" {
		t.Errorf("rows --json: exit %d, %d bytes; --format json: exit %d, %d bytes", jcode, len(j), fcode, len(f))
	}
}
