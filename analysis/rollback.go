package analysis

import (
	"fmt"
	"sort"

	"innoscope/discovery"
)

// RolledBackDDL is one file effect of the rollback of a DDL transaction that the crash left
// uncommitted, done in the copy because the server, started on it without crash recovery, has
// not loaded the tablespaces and cannot do it itself.
type RolledBackDDL struct {
	TrxID   uint64 `json:"trx_id"`
	UndoNo  uint64 `json:"undo_no"`
	Action  string `json:"action"` // "delete": a tablespace the transaction created; "rename": a RENAME undone; "kept": a RENAME undone whose file already had the old name
	Table   string `json:"table"`  // db/table as the rollback leaves it (rename) or as created (delete)
	SpaceID uint32 `json:"space_id"`
	Path    string `json:"path"`
	To      string `json:"to,omitempty"`
}

// String says what was done, for recover's notes.
func (e RolledBackDDL) String() string {
	if e.Action == "delete" {
		return fmt.Sprintf("the crash left DDL transaction %d uncommitted: as the server's rollback does, %s (tablespace %d, created by it) was removed",
			e.TrxID, e.Path, e.SpaceID)
	}
	if e.Action == "kept" {
		return fmt.Sprintf("the crash left DDL transaction %d uncommitted: %s (tablespace %d) already has the name the server's rollback gives its table back (%s)",
			e.TrxID, e.Path, e.SpaceID, e.Table)
	}
	return fmt.Sprintf("the crash left DDL transaction %d uncommitted: as the server's rollback does, %s (tablespace %d) was renamed back to %s",
		e.TrxID, e.Path, e.SpaceID, e.To)
}

// ActiveDDL are the transactions of trxs that crash recovery rolls back (active, not prepared)
// and that changed the dictionary (SYS_TABLES, SYS_INDEXES) or renamed a table, newest first.
func ActiveDDL(trxs []discovery.UndoTrx) []discovery.UndoTrx {
	var ddl []discovery.UndoTrx
	for _, t := range trxs {
		if t.State == discovery.UndoActive && isDDL(t) {
			ddl = append(ddl, t)
		}
	}
	sort.Slice(ddl, func(i, j int) bool { return ddl[i].ID > ddl[j].ID })
	return ddl
}

// isDDL: the transaction changed the dictionary (SYS_TABLES, SYS_INDEXES) or renamed a table.
func isDDL(t discovery.UndoTrx) bool {
	for _, rec := range t.Records {
		if rec.Type == discovery.UndoRenameTable || rec.TableID == discovery.DictTablesID || rec.TableID == discovery.DictIndexesID {
			return true
		}
	}
	return false
}

// PlanRollback lists the file effects of rolling back the active DDL transactions of trxs, in
// the server's order, against the dictionary as recovery leaves it (tables, indexes): "delete"
// for a rolled-back insert of a clustered index with its own tablespace, "rename" (Table is the
// name restored) for TRX_UNDO_RENAME_TABLE. Path and To are left for the caller.
func PlanRollback(trxs []discovery.UndoTrx, tables []discovery.DictTable, indexes []discovery.DictIndex) []RolledBackDDL {
	var out []RolledBackDDL
	for _, t := range ActiveDDL(trxs) {
		for i := len(t.Records) - 1; i >= 0; i-- {
			rec := t.Records[i]
			switch {
			case rec.Type == discovery.UndoInsertRec && rec.TableID == discovery.DictIndexesID:
				for _, ix := range indexes {
					if ix.TableID == rec.IndexTableID && ix.ID == rec.IndexID && !ix.Deleted && ix.Type&1 != 0 && ix.SpaceID != 0 {
						out = append(out, RolledBackDDL{TrxID: t.ID, UndoNo: rec.UndoNo, Action: "delete",
							Table: tableByID(tables, ix.TableID).Name, SpaceID: ix.SpaceID})
					}
				}
			case rec.Type == discovery.UndoRenameTable:
				tab := tableByID(tables, rec.TableID)
				e := RolledBackDDL{TrxID: t.ID, UndoNo: rec.UndoNo, Action: "rename", Table: rec.Name, SpaceID: tab.SpaceID}
				if tab.ID == 0 {
					e.Action = "unknown table"
				}
				out = append(out, e)
			}
		}
	}
	return out
}

// tableByID is the SYS_TABLES row with table id id, a live one first (zero value: none). The
// row may be delete-marked by the same transaction: TRUNCATE renames the table to #sql-ibN
// and drops it before it commits.
func tableByID(tables []discovery.DictTable, id uint64) discovery.DictTable {
	var found discovery.DictTable
	for _, t := range tables {
		if t.ID == id && (found.ID == 0 || !t.Deleted) {
			found = t
		}
	}
	return found
}
