package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"innoscope/analysis"
	"innoscope/internal/lab"
)

// applyPages is the page count of a verdict line ("mariadbd will start and apply 1,234 pages").
var applyPages = regexp.MustCompile(`\bapply ([0-9,]+) pages?\b`)

// TestVerdictPagesAreServerCount: on every lab crash the server recovered, the verdict line of
// `diagnose` says as many pages as the server printed for the same crash ("InnoDB: To recover:
// N pages", lab Verdict.ToRecoverPages), and `diagnose --json` carries that count as
// to_recover_pages beside pages_with_records (the distinct pages with records after the
// checkpoint, which the verdict used to say: 127 for dml where the server says 112). On 11.8
// the count leaves the start-up's reads in (it said 113 where 11.8 printed 130 on dml). Known
// gap, skipped: where the 11.8 log creates a tablespace whose page 0 is blank, 11.8 takes one
// page more off than innoscope knows why (ddl: 60, 11.8 59; defaults: 231, 11.8 230).
func TestVerdictPagesAreServerCount(t *testing.T) {
	forServers(t, func(t *testing.T, srv *lab.Server) {
		for _, name := range scenariosOn(srv, verdictScenarios) {
			t.Run(name, func(t *testing.T) {
				s := srv.Get(t, name)
				if !s.Verdict.CrashRecovery || s.Verdict.ToRecoverPages < 0 {
					t.Skipf("the server ran no crash recovery on %s", name)
				}
				if srv == lab.MariaDB118 && logCreatesSpace(t, s.Crashed) {
					t.Skipf("known gap: the 11.8 log of %s creates a tablespace (the server's count is one page lower per blank page 0)", name)
				}
				args, first := diagnoseVerdict(t, s)
				// an error verdict ("will start, but tables will fail: ...") leads with the error
				// and names no pages (inplace_part); its JSON count is still checked
				got := s.Verdict.ToRecoverPages
				if m := applyPages.FindStringSubmatch(first); m != nil {
					var err error
					if got, err = strconv.Atoi(strings.ReplaceAll(m[1], ",", "")); err != nil {
						t.Fatal(err)
					}
				} else if !strings.Contains(first, ", but ") {
					t.Fatalf("the verdict names no page count: %q", first)
				}
				var j struct {
					ToRecover *int `json:"to_recover_pages"`
					WithRecs  *int `json:"pages_with_records"`
				}
				jout, _, _ := run(append(args, "--json")...)
				if err := json.Unmarshal([]byte(jout), &j); err != nil {
					t.Fatal(err)
				}
				t.Logf("verdict %d pages, server %d, pages with records %v", got, s.Verdict.ToRecoverPages, intOr(j.WithRecs))
				if got != s.Verdict.ToRecoverPages {
					t.Errorf("the verdict says %d pages (%q); the server said \"To recover: %d pages\"", got, first, s.Verdict.ToRecoverPages)
				}
				if j.ToRecover == nil || *j.ToRecover != s.Verdict.ToRecoverPages {
					t.Errorf("diagnose --json: to_recover_pages %v, the server said %d", intOr(j.ToRecover), s.Verdict.ToRecoverPages)
				}
				if j.WithRecs == nil || *j.WithRecs < s.Verdict.ToRecoverPages {
					t.Errorf("diagnose --json: pages_with_records %v, fewer than the server's %d", intOr(j.WithRecs), s.Verdict.ToRecoverPages)
				}
			})
		}
	})
}

// logCreatesSpace reports whether the log of a crashed directory creates a tablespace.
func logCreatesSpace(t *testing.T, dir string) bool {
	for _, sp := range mapOf(t, dir) {
		for _, e := range sp.Events {
			if e.Kind == analysis.Create {
				return true
			}
		}
	}
	return false
}

// intOr is *p, or -1 for nil.
func intOr(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

// TestVerdictPagesMissingCreatedFile: the ddl crash with the file of a table created after the
// checkpoint deleted (the log creates it and rebuilds its page 0). The server's recovery creates
// the file and prints its own "To recover" count; the verdict's is the same (it counted page 0
// of that tablespace, one more: new-user trial).
func TestVerdictPagesMissingCreatedFile(t *testing.T) {
	d := damage(t, "ddl", func(t *testing.T, dir string) {
		if err := os.Remove(filepath.Join(dir, "db", "fresh.ibd")); err != nil {
			t.Fatal(err)
		}
	})
	m := regexp.MustCompile(`To recover: (\d+) pages`).FindStringSubmatch(d.errLog)
	if m == nil {
		t.Fatal("the server printed no To recover count")
	}
	j, _ := d.diagnose(t)
	if want, _ := strconv.Atoi(m[1]); j.ToRecoverPages != want {
		t.Errorf("diagnose: to_recover_pages %d; the server: To recover: %d pages", j.ToRecoverPages, want)
	}
}
