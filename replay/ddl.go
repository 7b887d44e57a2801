package replay

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"

	"innoscope/discovery"
	"innoscope/report"
)

// ddlTables are the db/table names the pending actions of a DDL log touch (nil log: none).
// Their statements were cut by the crash: after InnoDB's recovery, which rolls back the
// statement's uncommitted dictionary transaction (renaming a file back), the server's DDL
// recovery completes or reverts them.
func ddlTables(l *discovery.DDLLog) map[string]bool {
	tables := map[string]bool{}
	for _, chain := range l.Pending() {
		for _, e := range chain {
			for _, n := range []string{e.DB + "/" + e.Name, e.FromDB + "/" + e.FromName, e.DB + "/" + e.ExtraName,
				e.Name, e.FromName, e.TmpName} {
				if t := tableName(strings.TrimPrefix(n, "./")); t != "" && !strings.HasSuffix(t, "/") && !strings.HasPrefix(t, "/") {
					tables[t] = true
				}
			}
		}
	}
	return tables
}

// pendingDDL reads datadir's ddl_recovery.log and returns ddlTables of it.
func pendingDDL(datadir string) (map[string]bool, error) {
	l, err := discovery.ReadDDLLog(filepath.Join(datadir, "ddl_recovery.log"))
	if err != nil {
		return nil, err
	}
	return ddlTables(l), nil
}

// deferredFinding: a file too short for page 0 is usable when the log rebuilds page 0 or does
// not change the tablespace at all (the server's recover_deferred); otherwise recovery fails.
func deferredFinding(in Input, e expectation, t discovery.Tablespace) *report.Finding {
	if in.Analysis == nil {
		return nil
	}
	read, named := in.Analysis.Pages[PageID{e.id, 0}]
	if named && !read {
		return nil // INIT_PAGE rebuilds page 0
	}
	for id := range in.Analysis.Pages {
		if id.Space == e.id {
			return &report.Finding{Severity: report.Error, Code: "SPACE_ID_MISMATCH", SpaceID: u32(e.id), File: t.Path, LSN: e.lsn,
				Message: fmt.Sprintf("the file is too short to hold page 0 (%s) and the log changes space %d without rebuilding page 0: the server cannot apply the log (\"Cannot apply log to ... of corrupted file\")", t.Error, e.id)}
		}
	}
	return nil
}

// ddlLogFindings: the statements ddl_recovery.log makes the server complete or revert after
// crash recovery (DDL_RECOVERY, info), and the db/table names their actions touch.
func ddlLogFindings(in Input) ([]report.Finding, map[string]bool) {
	path := filepath.Join(in.Datadir, "ddl_recovery.log")
	l, err := discovery.ReadDDLLog(path)
	if err != nil {
		return []report.Finding{{Severity: report.Warning, Code: "DDL_RECOVERY", File: path,
			Message: "cannot read the DDL log: " + err.Error()}}, nil
	}
	tables := ddlTables(l)
	var what []string
	for _, chain := range l.Pending() {
		for _, e := range chain {
			if e.ActionName() == "store query" {
				continue
			}
			w := fmt.Sprintf("%s %s", e.ActionName(), strings.TrimPrefix(e.Name, "./"))
			if e.DB != "" {
				w = fmt.Sprintf("%s %s.%s", e.ActionName(), e.DB, e.Name)
			}
			if e.FromName != "" {
				w += " (from " + strings.TrimPrefix(strings.TrimPrefix(e.FromDB+"."+e.FromName, "."), "./") + ")"
			}
			what = append(what, fmt.Sprintf("%s, phase %d", w, e.Phase))
		}
	}
	if len(what) == 0 {
		return nil, tables
	}
	return []report.Finding{{Severity: report.Info, Code: "DDL_RECOVERY", File: path,
		Message: fmt.Sprintf("after crash recovery the server completes or reverts %d interrupted DDL action(s): %s", len(what), strings.Join(what, "; "))}}, tables
}

// The undo log layout the server reads at start to find the transactions it rolls back
// (MariaDB 10.11 trx0sys.h, trx0rseg.h, trx0undo.h): the TRX_SYS page of the system tablespace
// lists 128 rollback segments (space id, page), each rollback segment header page has one
// slot per undo log segment (innodb_page_size / 16 of them), and the first page of an undo log
// segment holds its state and the offset of its last undo log header, which starts with the
// transaction id.
const (
	trxSysPage      = 5
	trxSysRsegs     = discovery.FilPageData + 8 + 10 // TRX_SYS_RSEGS, after TRX_SYS_TRX_ID_STORE and an FSEG header
	trxSysNRsegs    = 128
	trxRsegSlots    = discovery.FilPageData + 34 // TRX_RSEG_UNDO_SLOTS
	trxUndoSegHdr   = discovery.FilPageData + 18 // TRX_UNDO_SEG_HDR, after TRX_UNDO_PAGE_HDR
	trxUndoActive   = 1                          // TRX_UNDO_STATE of a transaction the server rolls back
	undoPageNull    = 0xffffffff
	maxUndoLogFirst = 1 << 16
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

// rolledBackRenames returns, for each tablespace whose last logged rename belongs to a
// transaction the server rolls back, the log's name of the file before that rename: where the
// rollback puts the file. The rename of a table changes its SYS_TABLES row (the key: the old
// row is delete-marked and the new one inserted by the same transaction) and then the file. The
// server's own recovery opens the tablespace from the log under the new name, and the rollback
// restores the row and renames the file back (row_undo_ins_parse_undo_rec, TRX_UNDO_RENAME_TABLE).
// The server on a copy opens the table by its restored name, so the copy must hold the file
// there: else it finds no file ("Cannot open datafile ... #TMP#") and loses the table. Crash-sweep
// seed 1089: the crash cut an ADD PARTITION after the rename of s2t1#P#p1#TMP# to s2t1#P#p1 and
// before its commit; the DDL log then renames the partition forward again.
func (r *recovery) rolledBackRenames() (map[uint32]string, error) {
	last := map[uint32]Event{}
	for id, s := range r.an.Map.Spaces {
		if s.Deleted || id == 0 {
			continue
		}
		for _, e := range s.Events {
			if e.Kind == Rename {
				last[id] = e
			}
		}
	}
	if len(last) == 0 {
		return nil, nil
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
	dict, err := discovery.ReadDictTables(f)
	if err != nil {
		return nil, fmt.Errorf("reading the copy's SYS_TABLES to find the renames the server rolls back: %w", err)
	}
	active, err := r.activeTransactions()
	if err != nil {
		return nil, fmt.Errorf("reading the copy's undo logs to find the renames the server rolls back: %w", err)
	}
	out := map[uint32]string{}
	for id, e := range last {
		for _, live := range dict {
			if live.Deleted || live.SpaceID != id || !active[live.TrxID] {
				continue
			}
			for _, old := range dict {
				if !old.Deleted || old.ID != live.ID || old.TrxID != live.TrxID || old.Name == live.Name {
					continue
				}
				if tableName(e.Name) != old.Name || tableName(e.NewName) != live.Name {
					return nil, fmt.Errorf("tablespace %d: the log renames %s to %s (LSN %d) while SYS_TABLES has %s renamed to %s by transaction %d, which the server rolls back: cannot tell where the rollback leaves the file",
						id, e.Name, e.NewName, e.LSN, old.Name, live.Name, live.TrxID)
				}
				out[id] = e.Name
			}
		}
	}
	return out, nil
}

// renameBack moves t's file in the copy to the log's name before its last rename (from
// rolledBackRenames), unless it is there already (the crash cut the rename before the file
// was renamed); it returns the file's former path when it moved it.
func (r *recovery) renameBack(t *tsFile, name string) (string, error) {
	want := r.opt.CopyPath(name)
	if discovery.ResolvePath(want) == discovery.ResolvePath(t.path) {
		return "", nil
	}
	if filepath.IsAbs(name) {
		return "", fmt.Errorf("tablespace %d: the server rolls back the rename of DATA DIRECTORY file %s to %s (its file and .isl go back to the old name): innoscope does not make that copy",
			t.id, name, t.path)
	}
	if err := renameSpace(t, want); err != nil {
		return "", fmt.Errorf("%w (the server's rollback of the rename's transaction moves the file back to %s)", err, name)
	}
	from := t.path
	t.path = want
	return from, nil
}
