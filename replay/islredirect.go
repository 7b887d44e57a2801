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

// ISLRedirect is an .isl of the source whose target does not exist while the file the redo log
// gives the table's tablespace does: the copy's .isl names that file instead, or, when that file
// is the table's own in the data directory (db/t.ibd beside db/t.isl), the copy has no .isl.
//
// MariaDB 10.11 leaves this state behind after RENAME TABLE of a DATA DIRECTORY table (or
// partition) across databases followed by TRUNCATE and a rename back: the file stays in the
// DATA DIRECTORY's old database folder (dict_table_t::rename_tablespace keeps the directory of
// the old path, os_file_make_new_pathname), while db/t.isl names DATA_DIR/db/t.ibd. Its crash
// recovery loads the tablespace into memory under the name of the log's FILE_MODIFY record
// (recv_spaces, fil_ibd_load) and opens the table by its space id from there, never reading the
// .isl; a server started without crash recovery (innoscope's copy, or the server's own recovered
// directory on its next start) follows the .isl and loses the table ("A link file was found
// named ... but the linked tablespace ... could not be opened read-only").
//
// It also leaves an .isl naming nothing beside a table that has no DATA DIRECTORY at all: RENAME
// TABLE db2.x TO db1.y of a DATA DIRECTORY table writes db1/y.isl naming DATA_DIR/db2/y.ibd, and
// DROP TABLE db1.y deletes the file and the link of the tablespace's name, which is taken from
// the file's path (db2/y.isl), so db1/y.isl stays. When db1.y is created again (no DATA
// DIRECTORY) after the checkpoint, the server's recovery opens ./db1/y.ibd by the log's name and
// never reads the link; a server started without recovery reads it first, logs four [ERROR]
// lines, and then opens ./db1/y.ibd (crash-sweep seeds 1071, 1123, 1125). The server itself
// deletes an .isl naming the table's own file (fil_ibd_open: "a link file was found with the
// default path in it"), so the copy has none (NoLink).
type ISLRedirect struct {
	ISL     string `json:"isl"`      // the source's .isl file
	Stale   string `json:"stale"`    // the path it names, which does not exist ("": no .isl at all)
	Target  string `json:"target"`   // the file the redo log names for the table's tablespace
	SpaceID uint32 `json:"space_id"` // the table's, in SYS_TABLES and the log
	Table   string `json:"table"`    // db/t as the dictionary will spell it after recovery
	// NoLink: Target is the table's own file in the data directory; the copy has no .isl.
	NoLink bool `json:"no_link,omitempty"`
}

// String says what the copy does differently from the source, and why.
func (r ISLRedirect) String() string {
	if r.NoLink {
		return fmt.Sprintf("%s links to %s, which does not exist; the copy has no link: the redo log gives space %d of table %s its own file %s, from which the server's crash recovery opens the table without reading the link",
			r.ISL, r.Stale, r.SpaceID, r.Table, r.Target)
	}
	if r.Stale == "" {
		return fmt.Sprintf("%s does not exist although %s is a DATA DIRECTORY table; the copy gets it, naming %s: the redo log gives that file to space %d, and the server's crash recovery opens the table from it",
			r.ISL, r.Table, r.Target, r.SpaceID)
	}
	return fmt.Sprintf("%s links to %s, which does not exist; the copy's link names %s instead: the redo log gives that file to space %d of table %s, and the server's crash recovery opens the table from it",
		r.ISL, r.Stale, r.Target, r.SpaceID, r.Table)
}

// ISLRedirects finds the .isl files the copy must point elsewhere or leave out (see
// ISLRedirect): the .isl's target is missing, the dictionary as it will be after recovery
// (Dictionary: SYS_TABLES with the log's renames) has a live table by the .isl's name whose
// tablespace the log names (after the checkpoint, so the server's recovery loads it by that
// name), and that file exists and carries the table's space id (or a blank page 0 the log
// rebuilds).
func ISLRedirects(in Input) []ISLRedirect {
	if in.Analysis == nil || in.Analysis.Map == nil || in.Dict == nil {
		return nil
	}
	dict := Dictionary(in)
	// A name two rows end at (one row renamed by the log to the name another had on disk)
	// belongs to the renamed one: the other moved away in the same log.
	spaceOf := map[string]uint32{}
	renamed := map[string]bool{}
	for _, d := range dict {
		if d.Deleted || d.SpaceID == 0 || (renamed[d.Name] && d.OnDisk == "") {
			continue
		}
		spaceOf[d.Name], renamed[d.Name] = d.SpaceID, d.OnDisk != ""
	}
	logged := map[string]uint32{} // the last name the log gives a live tablespace → its id
	for id, s := range in.Analysis.Map.Spaces {
		if !s.Deleted && s.Name != "" {
			logged[absPath(in.Datadir, s.Name)] = id
		}
	}
	byPath := map[string]discovery.Tablespace{}
	for _, t := range in.Spaces {
		if t.Error == "" {
			byPath[discovery.ResolvePath(t.Path)] = t
		}
	}
	var out []ISLRedirect
	dd := discovery.ResolvePath(in.Datadir)
	for _, t := range in.Spaces {
		if !StaleISL(t) {
			continue
		}
		rel, err := filepath.Rel(dd, discovery.ResolvePath(t.ISL))
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		table := filepath.ToSlash(strings.TrimSuffix(rel, ".isl"))
		own := filepath.Join(dd, filepath.FromSlash(table)+".ibd")
		id, ok := spaceOf[table]
		if !ok {
			// A table created after the checkpoint has its SYS_TABLES row only in the log; the
			// file ./db/t.ibd beside the link is its own (only a table without DATA DIRECTORY
			// has it), and the log's name for it says which tablespace recovery loads there.
			if id, ok = logged[own]; !ok {
				continue
			}
		}
		s := in.Analysis.Map.Spaces[id]
		if s == nil || s.Deleted || s.Name == "" {
			continue
		}
		p := absPath(in.Datadir, s.Name)
		if p == discovery.ResolvePath(t.Path) || !holds(byPath, p, id) {
			continue
		}
		out = append(out, ISLRedirect{ISL: t.ISL, Stale: t.Path, Target: p, SpaceID: id, Table: table, NoLink: p == own})
	}
	// A DATA DIRECTORY table with no .isl of its own (RENAME TABLE across databases can leave it
	// in the old database's folder: crash-sweep seed 1065): the server without crash recovery
	// looks for ./db/t.ibd; the copy gets db/t.isl naming the file the log gives the table. Only
	// for a table whose name the log leaves as SYS_TABLES has it: a row whose tablespace the log
	// renames (RENAME swaps: crash-sweep seed 1096) no longer has that name after recovery, and
	// the table that does may well have no DATA DIRECTORY.
	for _, d := range dict {
		if d.Deleted || d.SpaceID == 0 || !d.DataDir() || d.OnDisk != "" || spaceOf[d.Name] != d.SpaceID {
			continue
		}
		isl := filepath.Join(dd, filepath.FromSlash(d.Name)+".isl")
		if _, err := os.Lstat(isl); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		s := in.Analysis.Map.Spaces[d.SpaceID]
		if s == nil || s.Deleted || s.Name == "" {
			continue
		}
		p := absPath(in.Datadir, s.Name)
		if within(discovery.ResolvePath(p), dd) || !holds(byPath, p, d.SpaceID) {
			continue
		}
		out = append(out, ISLRedirect{ISL: isl, Target: p, SpaceID: d.SpaceID, Table: d.Name})
	}
	return out
}

// holds reports whether the file at p (resolved) is tablespace id to the server's recovery: its
// page 0 carries id, or is blank (created after the checkpoint: recovery defers it and the log
// rebuilds page 0). From the scan when it found the file, else read (a file only the log names:
// no link reaches it).
func holds(byPath map[string]discovery.Tablespace, p string, id uint32) bool {
	if t, ok := byPath[p]; ok {
		return t.SpaceID == id || t.Note == discovery.NotePage0Zero
	}
	return spaceIDOf(p) == id
}

// spaceIDOf is the space id on page 0 of the file at p; 0 when it is unreadable.
func spaceIDOf(p string) uint32 {
	f, err := discovery.OpenFile(p)
	if err != nil {
		return 0
	}
	defer f.Close()
	return f.FSP.SpaceID
}

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
			if !within(discovery.ResolvePath(t.path), dd) {
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
		if err := os.MkdirAll(filepath.Dir(isl), 0o750); err != nil {
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
