package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/finding"
	"innoscope/internal/lab"
)

// serverErrors are the [ERROR] lines of a server error log without their timestamps.
func serverErrors(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if i := strings.Index(l, "[ERROR]"); i >= 0 {
			out = append(out, l[i:])
		}
	}
	return out
}

// TestCrashUpgrade105: `recover` replays real MariaDB 10.5 crashes into a copy and writes the
// copy's log in the 10.8 format at the end LSN (a crash-upgrade: MariaDB 10.11 refuses the
// crashed directory itself, "Upgrade after a crash is not supported"). MariaDB 10.11 started on
// the copy runs no crash recovery, and every user table's CHECKSUM TABLE and CHECK TABLE equal
// what 10.5's own crash recovery of the same directory gave. 10.11 logs no error beyond those
// it logs on 10.5's own recovered directory (10.5's system tables before mariadb-upgrade).
// `verify` checks each copy without fault; on the crashes it reports CRASH_UPGRADE_REFUSED
// (10.11 refuses the directory itself) and so exits 1. The crashed directory is not changed.
func TestCrashUpgrade105(t *testing.T) {
	for _, name := range scenarios105 {
		t.Run(name, func(t *testing.T) {
			s := lab.MariaDB105.Get(t, name)
			before := lab.HashTree(t, s.Crashed)
			tmp := t.TempDir()
			copyDir := filepath.Join(tmp, "copy")
			if out, errs, code := run("recover", s.Crashed, "--into", copyDir); code != ExitClean {
				t.Fatalf("recover: exit %d\n%s\n%s", code, out, errs)
			}
			server := &lab.Scenario{Options: s.Options} // MariaDB 10.11, the lab's server
			v := server.ServerVerdict(t, copyDir)
			t.Logf("10.11 on the copy: %s", strings.ReplaceAll(serverLines(t, v.ErrLog), "\n", " | "))
			if !v.Started || v.CrashRecovery || !v.TablesOK {
				t.Errorf("10.11 on the copy: started %v, crash recovery %v, tables ok %v\n%s", v.Started, v.CrashRecovery, v.TablesOK, v.Checks)
			}
			if want := s.Checksums(t); v.Checksums != want || want == "" {
				t.Errorf("CHECKSUM TABLE on the copy (10.11):\n%s10.5's own recovery:\n%s", v.Checksums, want)
			}
			if want := s.Checks(t); v.Checks != want {
				t.Errorf("CHECK TABLE on the copy (10.11):\n%s10.5's own recovery:\n%s", v.Checks, want)
			}
			// The errors 10.11 logs on a directory 10.5 recovered and shut down itself.
			base := filepath.Join(tmp, "base")
			lab.CopyDir(t, filepath.Join(s.Dir, "server"), base)
			bv := server.ServerVerdict(t, base)
			known := map[string]bool{}
			for _, e := range serverErrors(t, bv.ErrLog) {
				known[e] = true
			}
			for _, e := range serverErrors(t, v.ErrLog) {
				if !known[e] {
					t.Errorf("10.11 on the copy: %s (not logged on 10.5's own recovered directory)", e)
				}
			}
			// verify replays and checks the copy; its only error is that 10.8+ refuses the
			// crashed directory itself (CRASH_UPGRADE_REFUSED, on every crash: not clean105).
			out, errs, code := run("verify", "--json", s.Crashed)
			var vj struct {
				PagesVerified int64             `json:"pages_verified"`
				Findings      []finding.Finding `json:"findings"`
			}
			if err := json.Unmarshal([]byte(out), &vj); err != nil {
				t.Fatalf("verify: exit %d: %v\n%s", code, err, errs)
			}
			refusals := 0
			for _, f := range vj.Findings {
				if f.Code == "CRASH_UPGRADE_REFUSED" {
					refusals++
				} else if f.Severity == finding.Error {
					t.Errorf("verify: %s: %s", f.Code, f.Message)
				}
			}
			want := map[bool]int{true: ExitFindings, false: ExitClean}[refusals > 0]
			if code != want || vj.PagesVerified == 0 || (refusals > 0) != (name != "clean105") {
				t.Errorf("verify: exit %d, %d pages verified, %d CRASH_UPGRADE_REFUSED\n%s", code, vj.PagesVerified, refusals, errs)
			}
			if after := lab.HashTree(t, s.Crashed); !mapsEqual(before, after) {
				t.Error("the crashed directory changed")
			}
		})
	}
}
