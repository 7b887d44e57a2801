package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"innoscope/discovery"
	"innoscope/internal/lab"
)

// TestDDLLogAgainstServer: for every crash scenario, the number of execute entries innoscope
// reads from ddl_recovery.log is the number the server executed after its own crash recovery
// ("DDL_LOG: Crash recovery executed N entries", absent for none); ddl_churn, crashed in a
// copying ALTER TABLE, leaves one to revert.
func TestDDLLogAgainstServer(t *testing.T) {
	re := regexp.MustCompile(`DDL_LOG: Crash recovery executed (\d+) entries`)
	for _, name := range recoverScenarios {
		t.Run(name, func(t *testing.T) {
			s := lab.Get(t, name)
			b, err := os.ReadFile(s.Verdict.ErrLog)
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			if m := re.FindSubmatch(b); m != nil {
				want, _ = strconv.Atoi(string(m[1]))
			}
			l, err := discovery.ReadDDLLog(filepath.Join(s.Crashed, "ddl_recovery.log"))
			if err != nil {
				t.Fatal(err)
			}
			if got := l.Executed(); got != want {
				t.Errorf("%d execute entries read, the server executed %d", got, want)
			}
			if name != "ddl_churn" {
				return
			}
			alter := false
			for _, chain := range l.Pending() {
				for _, e := range chain {
					t.Logf("pending: %s phase %d: %s.%s (from %s.%s)", e.ActionName(), e.Phase, e.DB, e.Name, e.FromDB, e.FromName)
					alter = alter || e.ActionName() == "alter table"
				}
			}
			if !alter {
				t.Error("the interrupted copying ALTER TABLE is not pending")
			}
		})
	}
}
