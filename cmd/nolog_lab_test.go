package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/internal/lab"
	"innoscope/replay"
)

// TestNoRedoLogSalvageAgainstServer: ib_logfile0 deleted or emptied (the folk remedy) from a real
// crash. The server refuses the directory ("File ./ib_logfile0 was not found", "ib_logfile0 is
// empty, and LSN is unknown"); diagnose said so, but its advice led nowhere: `recover --salvage`
// exited 2 ("no redo log"). Now the LOG_UNREADABLE finding and plain recover's refusal name the
// salvage, and the salvage makes a copy with a new empty log at the largest page LSN (one
// new_log action, exit 1: what the log held is lost), naming the files with pages that may be
// inconsistent. The real server starts on the copy without crash recovery and without a page "in
// the future"; every table failing CHECK TABLE there is in a file the salvage named; and every
// table that passes CHECK TABLE when the server itself is forced onto the same directory
// (innodb_force_recovery=6, its own way past a missing log) passes on the copy too.
func TestNoRedoLogSalvageAgainstServer(t *testing.T) {
	for _, c := range []struct{ name, scenario, said string }{
		{"deleted", "dml", "File ./ib_logfile0 was not found"},
		{"emptied", "dml", "ib_logfile0 is empty, and LSN is unknown"},
		{"deleted after DDL", "ddl", "File ./ib_logfile0 was not found"},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			d := damage(t, c.scenario, func(t *testing.T, dir string) {
				p := filepath.Join(dir, "ib_logfile0")
				var err error
				if c.name == "emptied" {
					err = os.Truncate(p, 0)
				} else {
					err = os.Remove(p)
				}
				if err != nil {
					t.Fatal(err)
				}
			})
			if d.server.Started || !strings.Contains(d.errLog, c.said) {
				t.Fatalf("the server started, or refused without saying %q: %+v", c.said, d.server)
			}
			j, _ := d.diagnose(t)
			if fs := findings(j, "LOG_UNREADABLE"); len(fs) != 1 || !strings.Contains(fs[0].Message, "recover --salvage") ||
				!strings.Contains(fs[0].Message, c.said) {
				t.Errorf("LOG_UNREADABLE %+v: want the server's words and the salvage", fs)
			}
			// Besides the new log, a DDL whose log is lost can leave a file the dictionary gives
			// another name (relocated): which, depends on the crash.
			sv := runSalvage(t, d, salvageCase{name: c.name, scenario: c.scenario})
			var named string
			newLogs := 0
			for _, a := range sv.j.Salvage {
				named += a.File + " " + a.MovedTo + " " + a.Detail + "\n"
				if a.Action == replay.SalvageNewLog {
					newLogs++
					if a.Pages == 0 || a.LSN == 0 || a.File != filepath.Join(d.dir, "ib_logfile0") {
						t.Errorf("new_log action %+v", a)
					}
				}
			}
			if newLogs != 1 || sv.code != ExitFindings {
				t.Errorf("recover --salvage: exit %d, %d new_log actions; want exit 1 and one", sv.code, newLogs)
			}
			v := d.s.ServerVerdict(t, sv.copy)
			t.Logf("server on the salvaged copy: started=%v crash_recovery=%v errors=%d\n%s\n%s", v.Started, v.CrashRecovery, v.Errors,
				serverLines(t, v.ErrLog), strings.TrimSpace(v.Checks))
			b, _ := os.ReadFile(v.ErrLog)
			if !v.Started || v.CrashRecovery || strings.Contains(string(b), "in the future") {
				t.Fatalf("server on the copy: started=%v crash_recovery=%v (or a page in the future)", v.Started, v.CrashRecovery)
			}
			forced := filepath.Join(d.base, "forced")
			lab.CopyDir(t, d.dir, forced)
			fv := (&lab.Scenario{Options: append(append([]string{}, d.s.Options...), "--innodb-force-recovery=6")}).ServerVerdict(t, forced)
			t.Logf("the server forced onto the directory (innodb_force_recovery=6): started=%v\n%s", fv.Started, strings.TrimSpace(fv.Checks))
			onCopy := checkResults(v.Checks)
			for tbl, res := range onCopy {
				if res != "OK" && !strings.Contains(named, "/"+strings.ReplaceAll(tbl, ".", "/")+".ibd") {
					t.Errorf("%s fails CHECK TABLE on the copy (%s) and the salvage did not name its file as possibly inconsistent", tbl, res)
				}
			}
			for tbl, res := range checkResults(fv.Checks) {
				if res == "OK" && onCopy[tbl] != "OK" {
					t.Errorf("%s passes CHECK TABLE under innodb_force_recovery=6 but not on the salvaged copy (%q)", tbl, onCopy[tbl])
				}
			}
		})
	}
}

// checkResults maps each table of a verdict's CHECK TABLE lines (table<TAB>result) to its
// result.
func checkResults(checks string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(checks), "\n") {
		if tbl, res, ok := strings.Cut(l, "\t"); ok {
			m[tbl] = res
		}
	}
	return m
}
