package view

import (
	"fmt"
	"sort"

	"innoscope/changes"
	"innoscope/report"
)

// ReportTransactions is the HTML report's section on the transactions in the log after the
// checkpoint (trxs, as log changes lists them; err why they could not be read), by table and
// state, with the loss ledger (nil: no finding cuts the log); command lists them row by row.
func ReportTransactions(trxs []*changes.Trx, err error, ledger *changes.Ledger, command string) *report.TrxSection {
	s := &report.TrxSection{Ledger: ledger, Command: command}
	if err != nil {
		s.Note = fmt.Sprintf("The transactions were not read: %v", err)
		return s
	}
	type key struct{ table, state string }
	rows := map[key]*report.TrxRow{}
	seen := map[key]map[uint64]bool{}
	for _, t := range trxs {
		for _, ch := range t.Changes {
			if ch.RolledBack && t.State != changes.RolledBack {
				continue // undone by a rollback to a savepoint
			}
			name := ch.Table
			if name == "" {
				name = fmt.Sprintf("table id %d", ch.TableID)
			}
			k := key{name, t.State}
			r := rows[k]
			if r == nil {
				r = &report.TrxRow{Table: name, State: t.State}
				rows[k], seen[k] = r, map[uint64]bool{}
			}
			if !seen[k][t.ID] {
				seen[k][t.ID] = true
				r.Trxs++
			}
			switch ch.Op {
			case changes.Insert:
				r.Inserts++
			case changes.Update:
				r.Updates++
			case changes.Delete:
				r.Deletes++
			}
			if ch.Inexact != "" {
				r.Inexact++
			}
		}
	}
	order := map[string]int{changes.Committed: 0, changes.RolledBack: 1, changes.Prepared: 2, changes.Open: 3}
	for _, r := range rows {
		s.Rows = append(s.Rows, *r)
	}
	sort.Slice(s.Rows, func(i, j int) bool {
		a, b := s.Rows[i], s.Rows[j]
		if a.Table != b.Table {
			return a.Table < b.Table
		}
		return order[a.State] < order[b.State]
	})
	return s
}
