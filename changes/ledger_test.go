package changes

import (
	"fmt"
	"testing"
)

// TestLost: the ledger's lost transactions are those committed at or after the cut, their
// changes counted by table and operation without those a rollback to a savepoint removed; the
// maybe lost are those open at the end with every change before the unreadable part; rolled
// back transactions and those committed before the cut are neither.
func TestLost(t *testing.T) {
	ch := func(lsn uint64, table string, op Op, undone bool) *Change {
		return &Change{LSN: lsn, Table: table, Op: op, RolledBack: undone}
	}
	trxs := []*Trx{
		{ID: 1, State: Committed, EndLSN: 90, Changes: []*Change{ch(50, "db.a", Insert, false)}},
		{ID: 2, State: Committed, EndLSN: 100, Changes: []*Change{ch(60, "db.b", Delete, false), ch(70, "db.a", Update, false), ch(80, "db.a", Insert, true)}},
		{ID: 3, State: RolledBack, EndLSN: 120, Changes: []*Change{ch(110, "db.a", Insert, true)}},
		{ID: 4, State: Committed, EndLSN: 130, Changes: []*Change{ch(125, "", Insert, false)}},
		{ID: 5, State: Open, Changes: []*Change{ch(95, "db.b", Update, false)}},
		{ID: 6, State: Open, Changes: []*Change{ch(95, "db.b", Update, false), ch(140, "db.b", Update, false)}},
	}
	trxs[3].Changes[0].TableID = 77
	lost, maybe := Lost(trxs, 100, 100)
	if got := fmt.Sprint(lost); got != "[{2 100 60 [{db.a 0 1 0 0} {db.b 0 0 1 0}]} {4 130 125 [{table id 77 1 0 0 0}]}]" {
		t.Errorf("lost %s", got)
	}
	if got := fmt.Sprint(maybe); got != "[{5 0 95 [{db.b 0 1 0 0}]}]" {
		t.Errorf("maybe lost %s", got)
	}
	if _, maybe := Lost(trxs, 100, 0); maybe != nil {
		t.Errorf("maybe lost %v with the whole log read", maybe)
	}
	l := &Ledger{Transactions: lost}
	if got := fmt.Sprint(l.ByTable()); got != "[{db.a 0 1 0 0} {db.b 0 0 1 0} {table id 77 1 0 0 0}]" {
		t.Errorf("by table %s", got)
	}
}
