package replay

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"

	"innoscope/discovery"
)

// The undo log layout the server reads at start to find the transactions it rolls back
// (MariaDB 10.11 trx0sys.h, trx0rseg.h, trx0undo.h): the TRX_SYS page of the system tablespace
// lists 128 rollback segments (space id, page), each rollback segment header page has one
// slot per undo log segment (innodb_page_size / 16 of them), and the first page of an undo log
// segment holds its state and the offset of its last undo log header, which starts with the
// transaction id.
const (
	trxSysPage    = 5
	trxSysRsegs   = discovery.FilPageData + 8 + 10 // TRX_SYS_RSEGS, after TRX_SYS_TRX_ID_STORE and an FSEG header
	trxSysNRsegs  = 128
	trxRsegSlots  = discovery.FilPageData + 34 // TRX_RSEG_UNDO_SLOTS
	trxUndoSegHdr = discovery.FilPageData + 18 // TRX_UNDO_SEG_HDR, after TRX_UNDO_PAGE_HDR
	trxUndoActive = 1                          // TRX_UNDO_STATE of a transaction the server rolls back
	undoPageNull  = 0xffffffff
)

// activeTransactions are the ids of the transactions the copy's undo logs hold as active: the
// server rolls them back when it starts (trx_lists_init_at_db_start, then the rollback of
// recovered transactions), whether it ran crash recovery or not.
func (r *recovery) activeTransactions() (map[uint64]bool, error) {
	sys, err := r.space(0)
	if err != nil || sys == nil {
		return nil, fmt.Errorf("the system tablespace of the copy: %v", err)
	}
	p, err := sys.read(trxSysPage)
	if err != nil {
		return nil, err
	}
	be := binary.BigEndian
	active := map[uint64]bool{}
	for i := 0; i < trxSysNRsegs; i++ {
		o := trxSysRsegs + 8*i
		space, page := be.Uint32(p[o:]), be.Uint32(p[o+4:])
		if page == undoPageNull {
			continue
		}
		ts, err := r.space(space)
		if err != nil {
			return nil, err
		}
		if ts == nil {
			return nil, fmt.Errorf("%s: page %d: rollback segment %d is in tablespace %d, which the copy does not have", sys.path, trxSysPage, i, space)
		}
		rp, err := ts.read(page)
		if err != nil {
			return nil, err
		}
		for s := 0; s < r.opt.PageSize/16 && trxRsegSlots+4*s+4 <= len(rp); s++ {
			up := be.Uint32(rp[trxRsegSlots+4*s:])
			if up == undoPageNull {
				continue
			}
			u, err := ts.read(up)
			if err != nil {
				return nil, err
			}
			if be.Uint16(u[trxUndoSegHdr:]) != trxUndoActive {
				continue
			}
			last := int(be.Uint16(u[trxUndoSegHdr+2:]))
			if last < trxUndoSegHdr || last+8 > len(u) {
				return nil, fmt.Errorf("%s: page %d: undo log segment of rollback segment %d slot %d: last undo log header at offset %d",
					ts.path, up, i, s, last)
			}
			active[be.Uint64(u[last:])] = true
		}
	}
	return active, nil
}

// sysReader reads a tablespace of the copy page by page (the system tablespace may span
// several files), for discovery's dictionary readers.
type sysReader struct{ t *tsFile }

func (s sysReader) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) {
		no := (off + int64(n)) / int64(s.t.phys)
		pg, err := s.t.read(uint32(no))
		if err != nil {
			return n, err
		}
		n += copy(p[n:], pg[(off+int64(n))%int64(s.t.phys):])
	}
	return n, nil
}

// rollbackPlan is what the server's rollback of the transactions a crash left active does to
// the files of the tablespaces recovery opened (see planRollback).
type rollbackPlan struct {
	renames map[uint32]Event // the rename the rollback undoes: the file goes back to its Name
	removes map[uint32]bool  // tablespaces whose file the rollback deletes
}

// planRollback reads the copy's undo logs and data dictionary after the replay and returns
// what the server's rollback of the active transactions does to the files of the tablespaces
// its own crash recovery opened (those the log names): the server on the copy runs the same
// rollback without crash recovery, when those tablespaces are not open, and cannot do it there.
//
// A rename: the rename of a table changes its SYS_TABLES row (the key: the old row is
// delete-marked and the new one inserted by the same transaction) and then the file. The
// server's own recovery opens the tablespace from the log under the new name, and the rollback
// restores the row and renames the file back (row_undo_ins_parse_undo_rec,
// TRX_UNDO_RENAME_TABLE). The server on a copy opens the table by its restored name, so the copy
// must hold the file there: else it finds no file ("Cannot open datafile ... #TMP#") and loses
// the table. Crash-sweep seed 1089: the crash cut an ADD PARTITION after the rename of
// s2t1#P#p1#TMP# to s2t1#P#p1 and before its commit; the DDL log then renames the partition
// forward again.
//
// A creation: CREATE TABLE inserts the clustered index's SYS_INDEXES row before it creates the
// file; the rollback of that insert deletes the tablespace (dict_drop_index_tree, then
// fil_delete_tablespace), which only an open tablespace can be: the server on a copy would
// leave the file behind (an ADD PARTITION cut while it created the #TMP# partitions).
func (r *recovery) planRollback() (*rollbackPlan, error) {
	plan := &rollbackPlan{renames: map[uint32]Event{}, removes: map[uint32]bool{}}
	last := map[uint32]Event{}
	for id, s := range r.an.Map.Spaces {
		if s.Deleted || id == 0 || r.spaces[id] == nil {
			continue
		}
		last[id] = Event{}
		for _, e := range s.Events {
			if e.Kind == Rename {
				last[id] = e
			}
		}
	}
	if len(last) == 0 {
		return plan, nil
	}
	active, err := r.activeTransactions()
	if err != nil {
		return nil, fmt.Errorf("reading the copy's undo logs to find what the server rolls back: %w", err)
	}
	if len(active) == 0 {
		return plan, nil
	}
	sys, err := r.space(0)
	if err != nil || sys == nil {
		return nil, fmt.Errorf("the system tablespace of the copy: %v", err)
	}
	n, err := sys.pages()
	if err != nil {
		return nil, err
	}
	f, err := discovery.NewFile(sysReader{sys}, n*int64(sys.phys), sys.path)
	if err != nil {
		return nil, err
	}
	tables, err := discovery.ReadDictTables(f)
	if err != nil {
		return nil, fmt.Errorf("reading the copy's SYS_TABLES to find what the server rolls back: %w", err)
	}
	indexes, err := discovery.ReadDictIndexes(f)
	if err != nil {
		return nil, fmt.Errorf("reading the copy's SYS_INDEXES to find what the server rolls back: %w", err)
	}
	for _, ix := range indexes {
		if _, ok := last[ix.SpaceID]; ok && !ix.Deleted && ix.Type&1 != 0 && active[ix.TrxID] &&
			!filepath.IsAbs(r.an.Map.Spaces[ix.SpaceID].Name) {
			plan.removes[ix.SpaceID] = true
		}
	}
	for id, e := range last {
		if e.Kind != Rename || plan.removes[id] {
			continue
		}
		for _, live := range tables {
			if live.Deleted || live.SpaceID != id || !active[live.TrxID] {
				continue
			}
			for _, old := range tables {
				if !old.Deleted || old.ID != live.ID || old.TrxID != live.TrxID || old.Name == live.Name {
					continue
				}
				if tableName(e.Name) != old.Name || tableName(e.NewName) != live.Name {
					return nil, fmt.Errorf("tablespace %d: the log renames %s to %s (LSN %d) while SYS_TABLES has %s renamed to %s by transaction %d, which the server rolls back: cannot tell where the rollback leaves the file",
						id, e.Name, e.NewName, e.LSN, old.Name, live.Name, live.TrxID)
				}
				plan.renames[id] = e
			}
		}
	}
	return plan, nil
}

// removeCreated deletes the copy's file of tablespace id, whose creation the server rolls back
// (planRollback), and returns its result.
func (r *recovery) removeCreated(id uint32) (SpaceResult, error) {
	t := r.spaces[id]
	t.close()
	delete(r.spaces, id)
	if err := os.Remove(t.path); err != nil {
		return SpaceResult{}, fmt.Errorf("removing the file of tablespace %d, whose creation the server rolls back: %w", id, err)
	}
	return SpaceResult{ID: id, Path: t.path, PagesWritten: t.written, Created: t.created,
		Removed: "its CREATE is rolled back"}, nil
}

// renameBack moves t's file in the copy back to the log's name before its last rename e (from
// planRollback), unless it is there already (the crash cut the rename before the file was
// renamed); it returns the file's former path when it moved it. A DATA DIRECTORY file moves
// back within the copy's external directory, and the links follow it as the rollback's rename
// makes them: the old name's .isl names the file, the new name's is removed.
func (r *recovery) renameBack(t *tsFile, e Event) (string, error) {
	want := r.opt.CopyPath(e.Name)
	if discovery.ResolvePath(want) == discovery.ResolvePath(t.path) {
		return "", nil
	}
	if err := renameSpace(t, want); err != nil {
		return "", fmt.Errorf("%w (the server's rollback of the rename's transaction moves the file back to %s)", err, e.Name)
	}
	from := t.path
	t.path = want
	if filepath.IsAbs(e.Name) {
		isl := func(name string) string {
			return filepath.Join(r.opt.Copy.Datadir, filepath.FromSlash(tableName(name))+".isl")
		}
		if err := os.WriteFile(isl(e.Name), []byte(want+"\n"), 0o640); err != nil {
			return "", err
		}
		if err := os.Remove(isl(e.NewName)); err != nil && !os.IsNotExist(err) {
			return "", err
		}
	}
	return from, nil
}
