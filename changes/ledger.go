package changes

import (
	"fmt"
	"sort"
)

// Ledger is what a recovery that stops at a cut in the log loses, in rows: the transactions
// committed after the cut (the server's recovery finds them open and rolls them back), with
// their changes counted by table and operation.
type Ledger struct {
	Finding string `json:"finding"` // the finding that cuts the log (LOG_DAMAGED, LOG_TRUNCATED, ...)
	File    string `json:"file"`
	CutLSN  uint64 `json:"cut_lsn"` // where the server's recovery (and the salvage) stop
	// ReadToLSN is how far the log past the cut was read (0: none of it could be read).
	ReadToLSN uint64 `json:"read_to_lsn,omitempty"`
	// Unknown says which part of the lost log cannot be read, and that what it held is unknown
	// ("": the whole lost part was read).
	Unknown      string    `json:"unknown,omitempty"`
	Transactions []LostTrx `json:"transactions"`
	// MaybeLost are transactions open at the end of the log read whose changes all lie before
	// an unreadable part after the cut: if that part held their commit, they are lost too (if
	// not, they were open at the crash and every recovery rolls them back).
	MaybeLost []LostTrx `json:"maybe_lost,omitempty"`
	// Command prints the lost transactions' changes row by row ("": none to print).
	Command string `json:"command,omitempty"`
	// Error: the ledger could not be made (the finding stands as it is).
	Error string `json:"error,omitempty"`
}

// LostTrx is one committed transaction a recovery stopping at the cut loses.
type LostTrx struct {
	ID        uint64      `json:"trx_id"`
	CommitLSN uint64      `json:"commit_lsn"`
	FirstLSN  uint64      `json:"first_lsn"` // its first change in the log
	Tables    []TableLoss `json:"tables"`
}

// TableLoss counts a lost transaction's row changes of one table.
type TableLoss struct {
	Table   string `json:"table"` // db.table ("table id N" when not in the dictionary)
	Inserts int    `json:"inserts"`
	Updates int    `json:"updates"`
	Deletes int    `json:"deletes"`
	// Inexact counts the changes whose values could not be decoded exactly (log changes says why).
	Inexact int `json:"inexact,omitempty"`
}

// Rows is the count of row changes of the table.
func (t TableLoss) Rows() int { return t.Inserts + t.Updates + t.Deletes }

// Lost is the ledger's transactions from trxs (Resolve's, in commit order): those committed
// at or after cut, each change that no rollback to a savepoint removed counted; and, when the
// log is unreadable from LSN unread on (0: all of it was read), the transactions open at the
// end whose changes all lie before unread (Ledger.MaybeLost).
func Lost(trxs []*Trx, cut, unread uint64) (lost, maybe []LostTrx) {
	lost = lossOf(trxs, func(t *Trx) bool { return t.State == Committed && t.EndLSN >= cut })
	if unread != 0 {
		maybe = lossOf(trxs, func(t *Trx) bool {
			if t.State != Open && t.State != Prepared {
				return false
			}
			for _, ch := range t.Changes {
				if ch.LSN >= unread {
					return false
				}
			}
			return true
		})
	}
	return lost, maybe
}

// lossOf counts the changes of the transactions of trxs that lost says are lost.
func lossOf(trxs []*Trx, lost func(*Trx) bool) []LostTrx {
	out := []LostTrx{}
	for _, t := range trxs {
		if !lost(t) {
			continue
		}
		lt := LostTrx{ID: t.ID, CommitLSN: t.EndLSN}
		by := map[string]*TableLoss{}
		for _, ch := range t.Changes {
			if lt.FirstLSN == 0 || ch.LSN < lt.FirstLSN {
				lt.FirstLSN = ch.LSN
			}
			if ch.RolledBack {
				continue
			}
			name := ch.Table
			if name == "" {
				name = fmt.Sprintf("table id %d", ch.TableID)
			}
			tl := by[name]
			if tl == nil {
				tl = &TableLoss{Table: name}
				by[name] = tl
			}
			switch ch.Op {
			case Insert:
				tl.Inserts++
			case Update:
				tl.Updates++
			case Delete:
				tl.Deletes++
			}
			if ch.Inexact != "" {
				tl.Inexact++
			}
		}
		for _, tl := range by {
			lt.Tables = append(lt.Tables, *tl)
		}
		sort.Slice(lt.Tables, func(i, j int) bool { return lt.Tables[i].Table < lt.Tables[j].Table })
		if len(lt.Tables) > 0 {
			out = append(out, lt)
		}
	}
	return out
}

// ByTable sums the ledger's transactions by table.
func (l *Ledger) ByTable() []TableLoss {
	by := map[string]*TableLoss{}
	var names []string
	for _, t := range l.Transactions {
		for _, tl := range t.Tables {
			s := by[tl.Table]
			if s == nil {
				s = &TableLoss{Table: tl.Table}
				by[tl.Table] = s
				names = append(names, tl.Table)
			}
			s.Inserts += tl.Inserts
			s.Updates += tl.Updates
			s.Deletes += tl.Deletes
			s.Inexact += tl.Inexact
		}
	}
	sort.Strings(names)
	out := make([]TableLoss, 0, len(names))
	for _, n := range names {
		out = append(out, *by[n])
	}
	return out
}
