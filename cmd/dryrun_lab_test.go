package cmd

import (
	"path/filepath"
	"strings"
	"testing"

	"innoscope/finding"
	"innoscope/internal/lab"
)

// TestDryRunVerdictIsDiagnose: recover --dry-run's verdict line is diagnose's, on real crashes
// (DML, DDL, an undo truncation, rollbacks): it said "apply N pages" with N the pages that have
// records (dml: 127) where diagnose says the server's own count (112, its "To recover"; see
// TestVerdictPagesAreServerCount).
func TestDryRunVerdictIsDiagnose(t *testing.T) {
	for _, name := range []string{"dml", "ddl", "undo", "ddl_churn"} {
		s := lab.Get(t, name)
		where, _ := splitOptions(s.Options)
		diag, _, _ := run(append([]string{"diagnose", s.Crashed}, where...)...)
		dry, errs, code := run(append([]string{"recover", "--dry-run", s.Crashed}, where...)...)
		first := func(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
		if code != ExitClean || first(dry) != first(diag) || !strings.HasPrefix(first(diag), "mariadbd will start") {
			t.Errorf("%s: recover --dry-run (exit %d) says %q, diagnose %q\n%s", name, code, first(dry), first(diag), errs)
		}
		if s.Verdict.ToRecoverPages > 0 && !strings.Contains(first(dry), " "+finding.Thousands(int64(s.Verdict.ToRecoverPages))+" page") {
			t.Errorf("%s: recover --dry-run says %q; the server's To recover: %d pages", name, first(dry), s.Verdict.ToRecoverPages)
		}
		// The plan names the file of each space, the system tablespace's too (it was blank, the
		// others the log's relative names: new-user trial).
		if sys := filepath.Join(s.Crashed, "ibdata1"); strings.Contains(dry, "│ 0     │") && !strings.Contains(dry, "│ 0     │ "+sys+" ") {
			t.Errorf("%s: the plan does not name %s for space 0:\n%s", name, sys, dry)
		}
	}
}
