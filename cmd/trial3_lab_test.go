package cmd

import (
	"encoding/json"
	"strings"
	"testing"

	"innoscope/internal/lab"
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
