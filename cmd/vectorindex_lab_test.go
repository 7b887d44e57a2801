package cmd

import (
	"strings"
	"testing"

	"innoscope/finding"
	"innoscope/internal/lab"
)

// TestVectorIndexNoMissingFrm: the 11.8 defaults crash has a table with a VECTOR INDEX, whose
// graph is an InnoDB table db/vec#i#01 with no .frm of its own (its table's db/vec.frm
// describes it). 11.8 recovered the crash and every table passed CHECK TABLE; diagnose said
// "MISSING_FRM: InnoDB's dictionary has table db/vec#i#01 ... its .frm is missing" (a warning).
// It must report no warning or error there.
func TestVectorIndexNoMissingFrm(t *testing.T) {
	s := lab.MariaDB118.Get(t, "defaults")
	if checks := s.Checks(t); !strings.Contains(checks, "db.vec\tOK") || strings.Contains(strings.ReplaceAll(checks, "\tOK\n", ""), "\t") {
		t.Fatalf("11.8's CHECK TABLE after its recovery:\n%s", checks)
	}
	d := diagnoseFindings(t, s.Crashed)
	for _, f := range d.Findings {
		if f.Severity >= finding.Warning {
			t.Errorf("diagnose %s %s: %s", f.Severity, f.Code, f.Message)
		}
	}
}
