package replay

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"innoscope/discovery"
)

// RecoveredLink is an .isl of the copy that recover wrote after the replay, from the copy's
// recovered data dictionary: a live DATA DIRECTORY table (SYS_TABLES, as the log leaves it)
// whose tablespace the log names, and whose link in the copy named another file or none.
//
// MariaDB 10.11 leaves this after EXCHANGE PARTITION of a DATA DIRECTORY partition with a table
// of another name, followed by RENAME TABLE of that table to another database (crash-sweep seed
// 1249): the exchange renames the partition's file to DATA_DIR/db1/x.ibd and writes db1/x.isl;
// RENAME TABLE db1.x TO db2.x keeps the file's folder (os_file_make_new_pathname), so the file's
// path does not change and the server renames no file and writes no db2/x.isl. Only SYS_TABLES
// says the table is db2/x now, and that change may still be only in the redo log (the log has no
// file record for it). The server's crash recovery opens the tablespace by the log's name and
// the table by its space id, never reading a link; a server started without crash recovery
// looks for db2/x.isl, does not find it, tries ./db2/x.ibd and loses the table ("Cannot open
// datafile for read-only", CHECK TABLE: Corrupt).
type RecoveredLink struct {
	ISL     string `json:"isl"`      // the copy's .isl file
	Was     string `json:"was"`      // what it named before ("": it did not exist)
	Target  string `json:"target"`   // the copy's file of the table's tablespace, which it names now
	SpaceID uint32 `json:"space_id"` // the table's, in the recovered SYS_TABLES and the log
	Table   string `json:"table"`    // db/t as the recovered SYS_TABLES spells it
}

// String says what the copy has that the source does not, and why.
func (l RecoveredLink) String() string {
	was := "did not exist"
	if l.Was != "" {
		was = "named " + l.Was
	}
	return fmt.Sprintf("%s %s; it names %s in the copy: the recovered SYS_TABLES has DATA DIRECTORY table %s in space %d, to which the redo log gives that file, and the server's crash recovery opens the table from it",
		l.ISL, was, l.Target, l.Table, l.SpaceID)
}

// linkRecovered writes the copy's .isl of every live DATA DIRECTORY table of the copy's
// recovered SYS_TABLES whose tablespace the log names and whose file is outside the copy's data
// directory, where the link is missing or names another file (RecoveredLink). Rows a
// transaction the crash left active wrote last are left alone: the server's rollback changes
// them (planRollback moves the file and the links of a rename it undoes).
func (r *recovery) linkRecovered() ([]RecoveredLink, error) {
	dd := discovery.ResolvePath(r.opt.Copy.Datadir)
	ext := map[uint32]string{} // logged tablespaces of the copy outside its data directory → file
	for id, s := range r.an.Map.Spaces {
		if t := r.spaces[id]; t != nil && id != 0 && !s.Deleted {
			if !discovery.Within(discovery.ResolvePath(t.path), dd) {
				ext[id] = t.path
			}
		}
	}
	if len(ext) == 0 {
		return nil, nil
	}
	st, err := r.recoveredDict()
	if err != nil {
		return nil, fmt.Errorf("reading the copy's SYS_TABLES for the links of its DATA DIRECTORY tables: %w", err)
	}
	active, err := r.activeTransactions()
	if err != nil {
		return nil, fmt.Errorf("reading the copy's undo logs for the links of its DATA DIRECTORY tables: %w", err)
	}
	var out []RecoveredLink
	for _, d := range st.tables {
		p, ok := ext[d.SpaceID]
		if !ok || d.Deleted || !d.DataDir() || active[d.TrxID] || !strings.Contains(d.Name, "/") {
			continue
		}
		isl := filepath.Join(r.opt.Copy.Datadir, filepath.FromSlash(d.Name)+".isl")
		was, err := discovery.ReadISL(isl)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if err == nil && discovery.ResolvePath(was) == discovery.ResolvePath(p) {
			continue
		}
		if err := r.opt.mkdirAll(filepath.Dir(isl)); err != nil {
			return nil, err
		}
		if err := writeDurably(isl, []byte(p+"\n")); err != nil {
			return nil, err
		}
		out = append(out, RecoveredLink{ISL: isl, Was: was, Target: p, SpaceID: d.SpaceID, Table: d.Name})
	}
	return out, nil
}

// activeTransactions are the ids of the transactions of the copy's undo logs that the server
// rolls back (active, not XA PREPAREd).
func (r *recovery) activeTransactions() (map[uint64]bool, error) {
	trxs, err := r.recoveredTrxs()
	if err != nil {
		return nil, err
	}
	active := map[uint64]bool{}
	for _, t := range trxs {
		if !t.Prepared() {
			active[t.ID] = true
		}
	}
	return active, nil
}

// writeDurably writes a small file and syncs it and its directory.
func writeDurably(p string, b []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(p))
}
