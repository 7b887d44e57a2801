package cmd

import (
	"fmt"
	"strings"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/report"
)

// rollbackForecast is what crash recovery will roll back, from the undo logs as the diagnosis
// read them after applying the log in memory (nil when they were not read).
func rollbackForecast(d *analysis.Diagnosis) *discovery.RollbackForecast {
	if d.Input.Undo == nil {
		return nil
	}
	f := discovery.ForecastRollback(d.Input.Undo.Trxs)
	return &f
}

// addRollbackFinding adds ROLLBACK_PENDING (info) to a diagnosis whose undo logs leave
// transactions to roll back or to clean up, in the words the server prints at start-up.
func addRollbackFinding(d *analysis.Diagnosis) {
	f := rollbackForecast(d)
	if f == nil || f.Transactions == 0 {
		return
	}
	msg := fmt.Sprintf("%d transaction(s) which must be rolled back or cleaned up in total %d row operations to undo",
		f.Transactions, f.RowsToUndo)
	var each []string
	for i, t := range f.Trxs {
		if i == 5 {
			each = append(each, fmt.Sprintf("%d more", len(f.Trxs)-5))
			break
		}
		if t.Prepared {
			each = append(each, fmt.Sprintf("trx %d: XA PREPARE, left for the transaction coordinator", t.ID))
		} else {
			each = append(each, fmt.Sprintf("trx %d: %s rows", t.ID, report.Thousands(int64(t.Rows))))
		}
	}
	msg += " (" + strings.Join(each, "; ") + "); the server rolls the active ones back when it starts"
	end := d.Analysis.Map.EndLSN
	dir, name := d.Layout.SystemFile()
	d.Findings = append(d.Findings, report.Finding{Severity: report.Info, Code: "ROLLBACK_PENDING",
		File: dir + "/" + name, LSN: &end, Message: msg})
	d.Summary["info"]++
}

// diagnoseOutcome is the verdict's outcome of a diagnosis: the pages recovery applies records
// to and the transactions it rolls back.
func diagnoseOutcome(d *analysis.Diagnosis) report.Outcome {
	o := report.Outcome{Pages: len(d.Analysis.Pages)}
	if f := rollbackForecast(d); f != nil {
		o.RollBack, o.RowsToUndo = int64(f.Transactions-f.Prepared), int64(f.RowsToUndo)
	}
	return o
}
