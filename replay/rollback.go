package replay

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"innoscope/analysis"
	"innoscope/discovery"
)

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
	if len(analysis.ActiveDDL(trxs)) == 0 {
		return nil
	}
	st, err := r.recoveredDict()
	if err != nil {
		return err
	}
	for _, e := range analysis.PlanRollback(trxs, st.tables, st.indexes) {
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
func (r *recovery) rollbackCreate(e analysis.RolledBackDDL) error {
	t, err := r.loaded(e.SpaceID)
	if err != nil || t == nil {
		return err
	}
	if e.Table == "" {
		e.Table = analysis.TableName(t.path)
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
func (r *recovery) rollbackRename(e analysis.RolledBackDDL) error {
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
		to = analysis.RemoteRenameTarget(t.path, e.Table)
	}
	if discovery.ResolvePath(to) == discovery.ResolvePath(t.path) {
		// The file already has that name (the crash came before the statement renamed it, and
		// crash recovery did not replay the logged rename): nothing to move, but the copy's
		// dictionary still holds the uncommitted name, which the server's rollback gives back.
		e.Action, e.Path, e.To = "kept", t.path, t.path
		r.res.RolledBackDDL = append(r.res.RolledBackDDL, e)
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
