package cmd

import (
	"encoding/json"
	"strings"
	"testing"

	"innoscope/finding"
	"innoscope/internal/lab"
)

// verdictScenarios are the lab crashes the verdict line is checked on: every scenario of
// scripts/mariadb-lab.sh (the fixture scenario is the committed fixture's source). encrypted
// is the regression test of full_crc32 encrypted pages, whose space id field is encrypted:
// diagnose reported them as CORRUPT_PAGE_NEEDED (page id mismatch) while the server recovers.
var verdictScenarios = []string{"dml", "ddl", "alter_force", "data_directory", "instant", "undo", "wrapped",
	"clean", "compressed", "pages64k", "layout", "formats_default", "formats_crc32", "formats_4k",
	"formats_64k", "compressed_new", "compressed_new_4k", "ddl_churn", "tmp_partition", "tmp_partition_create",
	"tmp_partition_dd", "rename_dd_db", "inplace_part", "create_part_frm", "encrypted", "defaults"}

// TestVerdictFirstLine: on every lab crash the first line of `diagnose` is the verdict, judged
// against what the real server did with the same crash: it started (no "refuse"), ran crash
// recovery ("apply N pages") or did not ("nothing to recover"), and the sentence names the most
// severe finding's code when there is a warning or an error. `verify` starts with the same
// forecast (it said "apply 89 pages" where diagnose said 127, without the rollback), and a
// replay innoscope cannot do (encrypted) is exit 2, not "mariadbd will refuse to start:
// REPLAY_FAILED" for a crash the server recovers.
func TestVerdictFirstLine(t *testing.T) {
	forServers(t, func(t *testing.T, srv *lab.Server) {
		for _, name := range scenariosOn(srv, verdictScenarios) {
			t.Run(name, func(t *testing.T) {
				s := srv.Get(t, name)
				where, _ := splitOptions(s.Options)
				args, first := diagnoseVerdict(t, s)
				t.Logf("%s", first)
				var d diagnoseJSON
				jout, _, _ := run(append(args, "--json")...)
				if err := json.Unmarshal([]byte(jout), &d); err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(first, "mariadbd will ") {
					t.Fatalf("the first line is no verdict: %q", first)
				}
				if s.Verdict.Started != !strings.Contains(first, "refuse to start") {
					t.Errorf("the server started=%v; the verdict: %q", s.Verdict.Started, first)
				}
				// an error verdict ("will start, but tables will fail: ...") leads with the error,
				// not with the pages (inplace_part)
				if !strings.Contains(first, ", but ") && s.Verdict.CrashRecovery != strings.Contains(first, " apply ") {
					t.Errorf("the server ran crash recovery=%v; the verdict: %q", s.Verdict.CrashRecovery, first)
				}
				if sorted := finding.SortFindings(d.Findings); len(sorted) > 0 && sorted[0].Severity > finding.Info &&
					!strings.Contains(first, sorted[0].Code) {
					t.Errorf("the verdict %q does not name the most severe finding %s", first, sorted[0].Code)
				}
				// verify states the same forecast (pages, rollback) before what its replay adds; a
				// replay beyond innoscope (an encrypted tablespace) is exit 2, never a refusal
				// blamed on the server.
				vout, verrs, vcode := run(append([]string{"verify", s.Crashed}, where...)...)
				vfirst := strings.SplitN(vout, "\n", 2)[0]
				switch {
				case vcode == ExitError:
					if !strings.Contains(verrs, "cannot verify") || !strings.Contains(verrs, "limit of innoscope") {
						t.Errorf("verify: exit 2: %s", verrs)
					}
				case s.Verdict.Started == strings.Contains(vfirst, "refuse to start"):
					t.Errorf("the server started=%v; verify's verdict: %q", s.Verdict.Started, vfirst)
				case !strings.HasPrefix(vfirst, first) && !strings.Contains(vfirst, "COPY_"):
					t.Errorf("verify's verdict %q does not start as diagnose's %q", vfirst, first)
				}
			})
		}
	})
}

// diagnoseVerdict runs `diagnose` on a scenario's crash (with the options that say where its
// files are) and returns its arguments and its first line, the verdict; exit 2 fails the test.
func diagnoseVerdict(t *testing.T, s *lab.Scenario) (args []string, first string) {
	t.Helper()
	where, _ := splitOptions(s.Options)
	args = append([]string{"diagnose", s.Crashed}, where...)
	out, errs, code := run(args...)
	if code == ExitError {
		t.Fatalf("diagnose: exit %d: %s", code, errs)
	}
	return args, strings.SplitN(out, "\n", 2)[0]
}
