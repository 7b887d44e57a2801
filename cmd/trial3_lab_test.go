package cmd

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/internal/lab"
	"innoscope/replay"
)

// The third new-user trial of the front end: each test failed before its fix.

// TestVerifyFailOn: verify's outcome (OK or FAILED, "ok" in JSON) follows --fail-on as its exit
// status does; it said OK and exited 1 with --fail-on info on a crash the server recovers (an
// info finding: UNCLEAN_SHUTDOWN).
func TestVerifyFailOn(t *testing.T) {
	s := lab.Get(t, "dml")
	where, _ := splitOptions(s.Options)
	for _, c := range []struct {
		failOn string
		ok     bool
		word   string
	}{{"error", true, ": OK: "}, {"info", false, ": FAILED (--fail-on info): "}, {"none", true, ": OK (--fail-on none): "}} {
		args := append([]string{"verify", s.Crashed, "--tmpdir", t.TempDir(), "--fail-on", c.failOn}, where...)
		out, errs, code := run(append(args, "--json")...)
		var j struct {
			OK     bool   `json:"ok"`
			FailOn string `json:"fail_on"`
		}
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatalf("verify --fail-on %s --json: %v\n%s%s", c.failOn, err, out, errs)
		}
		want := ExitClean
		if !c.ok {
			want = ExitFindings
		}
		if j.OK != c.ok || j.FailOn != c.failOn || code != want {
			t.Errorf("verify --fail-on %s --json: ok=%v fail_on=%q exit %d, want ok=%v exit %d", c.failOn, j.OK, j.FailOn, code, c.ok, want)
		}
		out, _, code = run(args...)
		if !strings.Contains(out, c.word) || code != want {
			t.Errorf("verify --fail-on %s: exit %d, no %q in\n%s", c.failOn, code, c.word, out)
		}
	}
}

// TestVerifyKeepNamesItsFlags: verify's refusals of its --keep directory name --keep, never
// recover's --into or --force (verify has neither); they said "pass --force to use it". The
// directory refused is left as it was.
func TestVerifyKeepNamesItsFlags(t *testing.T) {
	s := lab.Get(t, "dml")
	where, _ := splitOptions(s.Options)
	root := t.TempDir()
	empty, full, marked := filepath.Join(root, "empty"), filepath.Join(root, "full"), filepath.Join(root, "marked")
	for _, d := range []string{empty, full, marked} {
		if err := os.Mkdir(d, 0o750); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(full, "x"), filepath.Join(marked, replay.IncompleteMarker)} {
		if err := os.WriteFile(f, []byte("x"), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	before := lab.HashTree(t, root)
	for _, c := range []struct{ dir, want string }{
		{empty, "exists (empty): --keep needs a new directory"},
		{full, "is not empty: --keep needs a new directory"},
		{marked, "holds an interrupted recovery"},
	} {
		_, errs, code := run(append([]string{"verify", s.Crashed, "--skip-pages", "--keep", c.dir}, where...)...)
		if code != ExitError || !strings.Contains(errs, c.want) || !strings.Contains(errs, "--keep") ||
			strings.Contains(errs, "--into") || strings.Contains(errs, "--force") {
			t.Errorf("verify --keep %s: exit %d, want %d and %q naming --keep (not --into, --force):\n%s", c.dir, code, ExitError, c.want, errs)
		}
	}
	if after := lab.HashTree(t, root); !maps.Equal(before, after) {
		t.Errorf("verify wrote into the --keep directories it refused: %v, was %v", after, before)
	}
}
