package analysis

import (
	"fmt"
	"strings"

	"innoscope/discovery"
	"innoscope/finding"
)

// RollbackForecast is what crash recovery will roll back, from the undo logs as the diagnosis
// read them after applying the log in memory (nil when they were not read).
func (d *Diagnosis) RollbackForecast() *discovery.RollbackForecast { return rollbackForecast(d.Input) }

func rollbackForecast(in Input) *discovery.RollbackForecast {
	if in.Undo == nil {
		return nil
	}
	f := discovery.ForecastRollback(in.Undo.Trxs)
	if f.Trxs == nil {
		f.Trxs = []discovery.TrxRollback{} // [] in JSON, not null
	}
	return &f
}

// rollbackFinding is ROLLBACK_PENDING (info) when the undo logs as recovery leaves them hold
// transactions to roll back or to clean up, in the words the server prints at start-up.
func rollbackFinding(in Input, s discovery.Layout) []finding.Finding {
	f := rollbackForecast(in)
	if f == nil || f.Transactions == 0 {
		return nil
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
			each = append(each, fmt.Sprintf("trx %d: %s rows", t.ID, finding.Thousands(int64(t.Rows))))
		}
	}
	msg += " (" + strings.Join(each, "; ") + "); the server rolls the active ones back when it starts"
	dir, name := s.SystemFile()
	return []finding.Finding{{Severity: finding.Info, Code: "ROLLBACK_PENDING", File: dir + "/" + name, Message: msg}}
}

// Outcome is the verdict's outcome of the diagnosis: the pages the server says it will recover
// ("InnoDB: To recover: N pages", ToRecover) and the transactions it rolls back.
func (d *Diagnosis) Outcome() finding.Outcome {
	o := finding.Outcome{Pages: d.ToRecover(), Logged: len(d.Analysis.Pages) > 0}
	if d.Input.Policy == PolicyMySQL8 {
		o.Server = "mysqld" // the policy judges the directory by MySQL 8's rules
	}
	if f := d.RollbackForecast(); f != nil {
		o.RollBack, o.RowsToUndo = int64(f.Transactions-f.Prepared), int64(f.RowsToUndo)
	}
	return o
}
