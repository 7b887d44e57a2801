package cmd

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// TestRollbackForecast105 (new-user trial): on a MariaDB 10.5 crash, diagnose gave no rollback
// forecast (its undo logs were not replayed for a log of 512-byte blocks), although the
// transactions the crash left uncommitted are rolled back all the same. For every 10.5 lab
// crash, ROLLBACK_PENDING gives the count the 10.5 server's own recovery printed ("N
// transaction(s) which must be rolled back or cleaned up in total M row operations to undo"),
// and is absent where it printed none.
func TestRollbackForecast105(t *testing.T) {
	line := regexp.MustCompile(`\d+ transaction\(s\) which must be rolled back or cleaned up in total \d+ row operations to undo`)
	seen := 0
	for _, name := range scenarios105 {
		s := lab.MariaDB105.Get(t, name)
		b, err := os.ReadFile(s.Verdict.ErrLog)
		if err != nil {
			t.Fatal(err)
		}
		want := line.FindString(string(b))
		var got string
		for _, f := range diagnoseJSONOf(t, s.Crashed).Findings {
			if f.Code == "ROLLBACK_PENDING" {
				got = f.Message
			}
		}
		if want == "" && got != "" || want != "" && !strings.HasPrefix(got, want) {
			t.Errorf("%s: the 10.5 server printed %q; ROLLBACK_PENDING %q", name, want, got)
		}
		if want != "" {
			seen++
		}
	}
	if seen == 0 {
		t.Fatal("no 10.5 lab crash has a transaction to roll back: the test compares nothing")
	}
}
