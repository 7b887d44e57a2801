package cmd

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"innoscope/finding"
	"innoscope/internal/lab"
)

// quoted is the server message a finding quotes in its parentheses.
var quoted = regexp.MustCompile(`\(("(?:[^"\\]|\\.)*")\)`)

// TestUpgradeRefusal105: the installed MariaDB 10.11 started on a copy of each real MariaDB 10.5
// crash refuses every directory whose log holds anything after its checkpoint ("Upgrade after a
// crash is not supported") and upgrades a clean 10.5 log. `diagnose` reports
// CRASH_UPGRADE_REFUSED exactly when 10.11 refuses, quoting the line 10.11 logged, its verdict's
// first line says "refuse to start", and the finding names both ways out (the log's own server
// version, `innoscope recover`); on the directory 10.11 starts, no error at all. `recover` still
// replays the refused ones (TestCrashUpgrade105 starts 10.11 on its copies).
func TestUpgradeRefusal105(t *testing.T) {
	for _, name := range scenarios105 {
		t.Run(name, func(t *testing.T) {
			s := lab.MariaDB105.Get(t, name)
			before := lab.HashTree(t, s.Crashed)
			copyDir := filepath.Join(t.TempDir(), "copy")
			lab.CopyDir(t, s.Crashed, copyDir)
			server := &lab.Scenario{Options: s.Options} // MariaDB 10.11, the lab's server
			v := server.ServerVerdict(t, copyDir)
			var refusal string
			for _, e := range serverErrors(t, v.ErrLog) {
				if i := strings.Index(e, "Upgrade after a crash is not supported"); i >= 0 {
					refusal = e[i:]
				}
			}
			refused := refusal != ""
			t.Logf("10.11 on a copy: started %v, refusal %q", v.Started, refusal)
			if refused == v.Started {
				t.Fatalf("10.11: started %v, refusal %q\n%s", v.Started, refusal, serverLines(t, v.ErrLog))
			}

			j := diagnoseJSONOf(t, s.Crashed)
			var got *finding.Finding
			for i, f := range j.Findings {
				if f.Code == "CRASH_UPGRADE_REFUSED" {
					got = &j.Findings[i]
				} else if f.Severity == finding.Error {
					t.Errorf("diagnose error %s: %s", f.Code, f.Message)
				}
			}
			if (got != nil) != refused {
				t.Fatalf("CRASH_UPGRADE_REFUSED %v, 10.11 refused: %v (%q); findings %s", got != nil, refused, refusal, severityCodes(j))
			}
			out, _, code := run("diagnose", s.Crashed)
			first, _, _ := strings.Cut(out, "\n")
			if refused != strings.Contains(first, "refuse to start") {
				t.Errorf("verdict %q, 10.11 refused: %v", first, refused)
			}
			if want := map[bool]int{true: ExitFindings, false: ExitClean}[refused]; code != want {
				t.Errorf("diagnose: exit %d, want %d", code, want)
			}
			if got != nil {
				m := quoted.FindStringSubmatch(got.Message)
				var q string
				if m != nil {
					q, _ = strconv.Unquote(m[1])
				}
				if q == "" || !strings.HasPrefix(refusal, q) || got.Severity != finding.Error {
					t.Errorf("the finding quotes %q, 10.11 logged %q: %s", q, refusal, got.Message)
				}
				for _, w := range []string{"refuse to start", "MariaDB 10.5-10.7", "shut it down cleanly", "innoscope recover"} {
					if !strings.Contains(got.Message, w) {
						t.Errorf("the finding does not say %q: %s", w, got.Message)
					}
				}
			}
			if after := lab.HashTree(t, s.Crashed); !mapsEqual(before, after) {
				t.Error("the crashed directory changed")
			}
		})
	}
}
