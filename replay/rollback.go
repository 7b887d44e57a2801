package replay

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"innoscope/discovery"
)

// RolledBackDDL is one file effect of the rollback of a DDL transaction that the crash left
// uncommitted, done in the copy because the server, started on it without crash recovery, has
// not loaded the tablespaces and cannot do it itself.
type RolledBackDDL struct {
	TrxID   uint64 `json:"trx_id"`
	UndoNo  uint64 `json:"undo_no"`
	Action  string `json:"action"` // "delete": a tablespace the transaction created; "rename": a RENAME undone
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
	return fmt.Sprintf("the crash left DDL transaction %d uncommitted: as the server's rollback does, %s (tablespace %d) was renamed back to %s",
		e.TrxID, e.Path, e.SpaceID, e.To)
}

// RollbackRefusal is a rollback effect innoscope does not model: recover refuses rather than
// produce a copy the server would open differently from its own crash recovery.
type RollbackRefusal struct {
	TrxID uint64
	Table string
	Why   string
}

func (e *RollbackRefusal) Error() string {
	return fmt.Sprintf("the crash left DDL transaction %d (table %s) uncommitted and its rollback %s: innoscope cannot make the copy the server's own crash recovery would leave",
		e.TrxID, e.Table, e.Why)
}

// rollbackDDL performs the file effects of the rollback of every active (neither committed nor
// prepared) transaction of the recovered undo logs, in the server's order (newest undo record
// first), for the tablespaces the server's crash recovery has open when it rolls back (those the
// log names): rolling back the insert of a clustered index into SYS_INDEXES drops its
// tablespace (the file is deleted); TRX_UNDO_RENAME_TABLE renames the table's file back.
// The server started on the copy then rolls the transaction back in its dictionary and finds
// the files where its own recovery leaves them.
func (r *recovery) rollbackDDL() error {
	trxs, err := r.recoveredTrxs()
	if err != nil {
		return fmt.Errorf("reading the undo logs of the recovered copy: %w", err)
	}
	if len(ActiveDDL(trxs)) == 0 {
		return nil
	}
	st, err := r.recoveredDict()
	if err != nil {
		return err
	}
	for _, e := range PlanRollback(trxs, st.tables, st.indexes) {
		var err error
		if e.Action == "delete" {
			err = r.rollbackCreate(e)
		} else {
			err = r.rollbackRename(e)
		}
		if err != nil {
			return err
		}
	}
	return nil
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

// loaded is the copy's file of space id when the server's crash recovery has the tablespace
// open at rollback time (the log names it and does not delete it); nil otherwise.
func (r *recovery) loaded(id uint32) (*tsFile, error) {
	s := r.an.Map.Spaces[id]
	if id == 0 || s == nil || s.Deleted {
		return nil, nil
	}
	t, err := r.space(id)
	var missing *MissingError
	if errors.As(err, &missing) {
		return nil, nil
	}
	return t, err
}

// local reports a file in its database directory of the copy's data directory (not a DATA
// DIRECTORY file, whose rename back also writes the table's .isl).
func (r *recovery) local(p string) bool {
	return discovery.ResolvePath(filepath.Dir(filepath.Dir(p))) == discovery.ResolvePath(r.opt.Copy.Datadir)
}

// rollbackCreate deletes the file of the tablespace whose clustered index insert is rolled back.
func (r *recovery) rollbackCreate(e RolledBackDDL) error {
	t, err := r.loaded(e.SpaceID)
	if err != nil || t == nil {
		return err
	}
	if e.Table == "" {
		e.Table = tableName(t.path)
	}
	t.close()
	r.spaces[e.SpaceID] = nil
	if err := os.Remove(t.path); err != nil {
		return fmt.Errorf("rolling back DDL transaction %d: %w", e.TrxID, err)
	}
	e.Path = t.path
	r.res.RolledBackDDL = append(r.res.RolledBackDDL, e)
	return nil
}

// rollbackRename renames the file of a table whose RENAME is rolled back to its former name.
func (r *recovery) rollbackRename(e RolledBackDDL) error {
	if e.Action != "rename" {
		return &RollbackRefusal{TrxID: e.TrxID, Table: e.Table, Why: "renames a table id that SYS_TABLES does not have"}
	}
	t, err := r.loaded(e.SpaceID)
	if err != nil || t == nil {
		return err
	}
	to := r.opt.CopyPath("./" + e.Table + ".ibd")
	remote := !r.local(t.path)
	if remote {
		// a DATA DIRECTORY file is renamed within its directory (DIR/db/name.ibd)
		to = filepath.Join(filepath.Dir(filepath.Dir(t.path)), filepath.FromSlash(e.Table)+".ibd")
	}
	if discovery.ResolvePath(to) == discovery.ResolvePath(t.path) {
		return nil
	}
	if _, err := os.Lstat(to); err == nil {
		return &RollbackRefusal{TrxID: e.TrxID, Table: e.Table, Why: fmt.Sprintf("renames tablespace %d from %s back to %s, which exists", e.SpaceID, t.path, to)}
	}
	e.Path = t.path
	from := t.path
	if err := renameSpace(t, to); err != nil {
		return err
	}
	t.path, e.To = to, to
	if remote {
		// The server's rollback renames a DATA DIRECTORY tablespace it has open as a rename
		// does: the table's link names the renamed file and the link of the name it leaves is
		// removed (the DDL log of a cut ADD/REORGANIZE PARTITION then renames #TMP# again and
		// must be able to create that link: seed 1089's DATA DIRECTORY case).
		isl := filepath.Join(r.opt.Copy.Datadir, filepath.FromSlash(e.Table)+".isl")
		if err := os.WriteFile(isl, []byte(to+"\n"), 0o640); err != nil {
			return fmt.Errorf("rolling back DDL transaction %d: %w", e.TrxID, err)
		}
		if err := removeLinksTo(r.opt.Copy.Datadir, from, isl); err != nil {
			return fmt.Errorf("rolling back DDL transaction %d: %w", e.TrxID, err)
		}
	}
	r.res.RolledBackDDL = append(r.res.RolledBackDDL, e)
	return nil
}

// removeLinksTo removes the .isl files of datadir's database directories that name file, but
// keep. (A link is named after the table, whose database need not be the file's folder.)
func removeLinksTo(datadir, file, keep string) error {
	links, err := filepath.Glob(filepath.Join(datadir, "*", "*.isl"))
	if err != nil {
		return err
	}
	want := discovery.ResolvePath(file)
	for _, l := range links {
		if l == keep {
			continue
		}
		target, err := discovery.ReadISL(l)
		if err != nil || discovery.ResolvePath(target) != want {
			continue
		}
		if err := os.Remove(l); err != nil {
			return err
		}
	}
	return nil
}

// recoveredTrxs are the active and prepared transactions of the copy's undo logs after the
// replay, read once.
func (r *recovery) recoveredTrxs() ([]discovery.UndoTrx, error) {
	if r.recovered == nil {
		r.recovered = &recoveredState{}
	}
	if r.recovered.trxs == nil {
		trxs, err := discovery.ReadUndoTrxs(r.pageReader(false))
		if err != nil {
			return nil, err
		}
		r.recovered.trxs = append([]discovery.UndoTrx{}, trxs...)
	}
	return r.recovered.trxs, nil
}

// recoveredDict is SYS_TABLES and SYS_INDEXES of the copy's system tablespace after the replay,
// read once.
func (r *recovery) recoveredDict() (*recoveredState, error) {
	if r.recovered == nil {
		r.recovered = &recoveredState{}
	}
	if r.recovered.tables == nil {
		sys, err := discovery.OpenFile(filepath.Join(r.opt.Copy.SystemFile()))
		if err != nil {
			return nil, err
		}
		defer sys.Close()
		tables, err := discovery.ReadDictTables(sys)
		if err != nil {
			return nil, err
		}
		indexes, err := discovery.ReadDictIndexes(sys)
		if err != nil {
			return nil, err
		}
		r.recovered.tables, r.recovered.indexes = append([]discovery.DictTable{}, tables...), indexes
	}
	return r.recovered, nil
}
