package rows

import (
	"fmt"
	"sort"
	"strings"

	"innoscope/discovery"
)

// ErrUncommitted refuses a table that transactions the crash left uncommitted changed: its
// records hold their changes (inserted rows, new values, delete marks), which the server rolls
// back when it starts, so the rows as stored are not what the server shows.
type ErrUncommitted struct {
	Table string
	Trxs  []uint64 // the transactions, by id
	Ops   int      // their undo records for the table
}

func (e ErrUncommitted) Error() string {
	ids := make([]string, len(e.Trxs))
	for i, id := range e.Trxs {
		ids[i] = fmt.Sprint(id)
	}
	return fmt.Sprintf("%s: %d row operations of uncommitted transaction(s) %s (the server rolls an active one back when it "+
		"starts, and keeps an XA-prepared one until XA COMMIT or ROLLBACK, showing the committed rows meanwhile): the stored "+
		"rows are not what it shows. Read the table through the server, or pass --uncommitted to print the records as "+
		"stored (with those changes)", e.Table, e.Ops, strings.Join(ids, ", "))
}

// CheckCommitted refuses (ErrUncommitted) table t when an active or XA-prepared transaction's
// undo log, as on disk, holds records for it.
func CheckCommitted(s discovery.Layout, t *Table) error {
	read, closeAll, err := discovery.UndoPages(s)
	if err != nil {
		return err
	}
	defer closeAll()
	trxs, err := discovery.ReadUndoTrxs(read)
	if err != nil {
		return fmt.Errorf("reading the undo logs: %w", err)
	}
	e := ErrUncommitted{Table: discovery.SQLTableName(t.Name)}
	for _, trx := range trxs {
		n := 0
		for _, r := range trx.Records {
			if r.TableID == t.TableID {
				n++
			}
		}
		if n > 0 {
			e.Trxs, e.Ops = append(e.Trxs, trx.ID), e.Ops+n
		}
	}
	if len(e.Trxs) == 0 {
		return nil
	}
	sort.Slice(e.Trxs, func(i, j int) bool { return e.Trxs[i] < e.Trxs[j] })
	return e
}
