package replay

import (
	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/report"
)

// CopyDiagnosis is what the server will meet when it is started on a finished copy: the
// diagnosis of the copy itself (its log holds nothing to recover, so what is left is what the
// replay does not change: a table whose file is missing or carries another id, a missing .frm,
// the DDL recovery and the rollback the server does at start, orphan files, ...).
type CopyDiagnosis struct {
	Verdict  report.Verdict   `json:"verdict"`
	Findings []report.Finding `json:"findings"`
	// FailingTables are the tables the server will not be able to open, and why (the code
	// of the finding that says so).
	FailingTables []analysis.FailingTable `json:"failing_tables"`
}

// DiagnoseCopy diagnoses the copy laid out as l (Outcome.CopyLayout). Like recover's replay it
// reads only the pages of the dictionary and the undo logs, not every page (`verify` does):
// the --skip-pages note is left out.
func DiagnoseCopy(l discovery.Layout) (*CopyDiagnosis, error) {
	d, err := analysis.Run(l, analysis.Options{Policy: analysis.PolicyMariaDB, SkipPages: true, Undo: RecoveredUndo})
	if err != nil {
		return nil, err
	}
	fs := []report.Finding{}
	for _, f := range d.Findings {
		if f.Code == "PAGES_NOT_CHECKED" && f.File == l.Datadir && f.SpaceID == nil { // --skip-pages's
			continue
		}
		fs = append(fs, f)
	}
	ft := analysis.FailingTables(d.Input, fs)
	if ft == nil {
		ft = []analysis.FailingTable{}
	}
	return &CopyDiagnosis{Verdict: report.MakeVerdict(fs, d.Outcome()), Findings: fs, FailingTables: ft}, nil
}
