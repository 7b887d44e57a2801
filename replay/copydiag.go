package replay

import (
	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/finding"
)

// CopyDiagnosis is what the server will meet when it is started on a finished copy: the
// diagnosis of the copy itself (its log holds nothing to recover, so what is left is what the
// replay does not change: a table whose file is missing or carries another id, a missing .frm,
// the DDL recovery and the rollback the server does at start, orphan files, ...).
type CopyDiagnosis struct {
	Verdict  finding.Verdict   `json:"verdict"`
	Findings []finding.Finding `json:"findings"`
	// FailingTables are the tables the server will not be able to open, and why (the code
	// of the finding that says so).
	FailingTables []analysis.FailingTable `json:"failing_tables"`
	// AllPages: every page of the copy was checked (CORRUPT_PAGE and pages newer than the
	// copy's log are in Findings); false: only the pages the replay read (recover --skip-pages).
	AllPages bool `json:"all_pages_checked"`
}

// DiagnoseCopy diagnoses the copy laid out as l (Outcome.CopyLayout). allPages checks every
// page of the copy, as diagnose does: a page the log does not change is copied as the source
// has it, and a corrupt one there is what the server meets on the copy (CHECK TABLE fails), so
// the copy's verdict names its table. Without allPages (recover --skip-pages) only page 0 of
// each file, the dictionary and the undo logs are read, and the --skip-pages note is left out.
//
// rolledBack are the file effects of the uncommitted DDL transactions the replay rolled back in
// the copy (RecoverResult.RolledBackDDL): the copy's dictionary still holds those transactions'
// rows, which the server's rollback undoes when it starts, so what it says of their tables
// (a file missing, renamed, of another id) is not what the server meets; it is left out.
func DiagnoseCopy(l discovery.Layout, rolledBack []analysis.RolledBackDDL, allPages bool) (*CopyDiagnosis, error) {
	d, err := analysis.Run(l, analysis.Options{Policy: analysis.PolicyMariaDB, SkipPages: !allPages, Undo: RecoveredUndo})
	if err != nil {
		return nil, err
	}
	spaces, tables := map[uint32]bool{}, map[string]bool{}
	for _, e := range rolledBack {
		spaces[e.SpaceID] = true
		tables[e.Table] = true
		tables[analysis.TableName(e.Path)] = true
		if e.To != "" {
			tables[analysis.TableName(e.To)] = true
		}
	}
	fs := []finding.Finding{}
	for _, f := range d.Findings {
		if f.Code == "PAGES_NOT_CHECKED" && f.File == l.Datadir && f.SpaceID == nil { // --skip-pages's
			continue
		}
		if f.Code == "WRITES_OUTSIDE" { // the copy's links name its own external directory, made for it
			continue
		}
		if f.Severity > finding.Info && (f.SpaceID != nil && spaces[*f.SpaceID] || tables[analysis.TableName(f.File)]) {
			continue // a table of a DDL transaction the server rolls back at start
		}
		fs = append(fs, f)
	}
	ft := analysis.FailingTables(d.Input, fs)
	if ft == nil {
		ft = []analysis.FailingTable{}
	}
	return &CopyDiagnosis{Verdict: finding.MakeVerdict(fs, d.Outcome()), Findings: fs, FailingTables: ft, AllPages: allPages}, nil
}
