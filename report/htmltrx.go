package report

import "innoscope/changes"

// TrxSection is the report's section on the transactions in the log after the checkpoint:
// their row changes by table and state (log changes), and the loss ledger when a finding
// cuts the log.
type TrxSection struct {
	// Note says why the transactions were not read ("": they were).
	Note string
	// Rows are the row changes by table and state, tables in name order.
	Rows []TrxRow
	// Command lists them row by row.
	Command string
	// Ledger is what the cut of the log loses (nil: no finding cuts it).
	Ledger *changes.Ledger
}

// TrxRow is one table's transactions of one state and their row changes.
type TrxRow struct {
	Table, State                    string
	Trxs, Inserts, Updates, Deletes int
	Inexact                         int // changes not decoded exactly (log changes says why)
}

// LostRow is one table of a lost transaction, as the ledger's table shows it.
type LostRow struct {
	Trx       uint64
	CommitLSN uint64 // 0: maybe lost (open where the log could not be read on)
	changes.TableLoss
}

// LostRows are the ledger's transactions, lost then maybe lost, a row per table.
func (s *TrxSection) LostRows() []LostRow {
	if s == nil || s.Ledger == nil {
		return nil
	}
	var out []LostRow
	for _, t := range s.Ledger.Transactions {
		for _, tl := range t.Tables {
			out = append(out, LostRow{Trx: t.ID, CommitLSN: t.CommitLSN, TableLoss: tl})
		}
	}
	for _, t := range s.Ledger.MaybeLost {
		for _, tl := range t.Tables {
			out = append(out, LostRow{Trx: t.ID, TableLoss: tl})
		}
	}
	return out
}
