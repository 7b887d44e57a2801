package analysis

import (
	"os"
	"path/filepath"
	"strings"

	"innoscope/discovery"
)

// DictEntry is a SYS_TABLES row with what the data directory has for it.
type DictEntry struct {
	discovery.DictTable
	// OnDisk is the row's name in SYS_TABLES on disk when recovery changes it (Name is then the
	// name after recovery: the replayed dictionary's, or the file name the log gives it).
	OnDisk  string                `json:"on_disk_name,omitempty"`
	Frm     bool                  `json:"frm"` // the server's table definition file (MariaDB .frm) exists
	Indexes []discovery.DictIndex `json:"indexes"`
	// moved: Name is not the row's own but one the log's file rename or the rollback of an
	// uncommitted RENAME gives the table.
	moved bool
}

// redoneDict is SYS_TABLES and SYS_INDEXES as InnoDB's crash recovery leaves them before its
// rollback: replayed in memory (in.Undo) when the diagnosis read them so, else on disk. A table
// the log renamed in the dictionary alone (RENAME TABLE of a DATA DIRECTORY table to another
// database under the same name moves no file: crash-sweep seed 12721) has its new name only here.
func redoneDict(in Input) ([]discovery.DictTable, []discovery.DictIndex) {
	if in.Undo != nil && len(in.Undo.Tables) > 0 {
		return in.Undo.Tables, in.Undo.Indexes
	}
	return in.Dict, in.Indexes
}

// Dictionary lists the user tables of SYS_TABLES, delete-marked history included, as they will
// be after recovery (redoneDict): a table whose tablespace the log deletes is deleted, one whose
// file the log renames takes the name of its last file (RENAME TABLE, EXCHANGE PARTITION). Each
// has the presence of its .frm file (partitions, db/t#P#p0, share the table's db/t.frm).
func Dictionary(in Input) []DictEntry {
	tables, indexes := redoneDict(in)
	return dictionary(in, tables, indexes)
}

// dictionary is Dictionary over the SYS_TABLES and SYS_INDEXES rows tables and indexes.
func dictionary(in Input, tables []discovery.DictTable, indexes []discovery.DictIndex) []DictEntry {
	var out []DictEntry
	ddl, _ := PendingDDL(in.Datadir)
	rollback := pendingRollback(in)
	onDisk := map[uint64]string{} // table id → its name in SYS_TABLES on disk
	for _, t := range in.Dict {
		if !t.Deleted {
			onDisk[t.ID] = t.Name
		}
	}
	for _, t := range tables {
		if strings.HasPrefix(t.Name, "SYS_") {
			continue
		}
		e := DictEntry{DictTable: t, Indexes: []discovery.DictIndex{}}
		if n, ok := onDisk[t.ID]; ok && n != t.Name {
			e.OnDisk = n
		}
		if in.Analysis != nil && t.SpaceID != 0 {
			if s := in.Analysis.Map.Spaces[t.SpaceID]; s != nil {
				if s.Deleted {
					e.Deleted = true
				} else if n := nameAfter(in.Datadir, t.Name, s.Name); n != "" && n != t.Name {
					if e.OnDisk == "" {
						e.OnDisk = t.Name
					}
					e.Name = n
				}
			}
		}
		rollBack(&e, rollback)
		e.moved = e.Name != t.Name
		_, err := os.Stat(filepath.Join(in.Datadir, frmName(e.Name)+".frm"))
		e.Frm = err == nil
		if e.OnDisk != "" && !e.Frm && (ddl[e.Name] || ddl[e.OnDisk]) {
			// a statement the DDL log completes or reverts: either name may be the final one
			_, err := os.Stat(filepath.Join(in.Datadir, frmName(e.OnDisk)+".frm"))
			e.Frm = err == nil
		}
		for _, ix := range indexes {
			if ix.TableID == t.ID {
				e.Indexes = append(e.Indexes, ix)
			}
		}
		out = append(out, e)
	}
	return out
}

// rollBack applies to e what the rollback of an uncommitted DDL transaction does (rollback,
// from pendingRollback): a RENAME undone gives the table back its name, a tablespace the
// transaction created is dropped.
func rollBack(e *DictEntry, rollback []RolledBackDDL) {
	for _, r := range rollback {
		if r.SpaceID != e.SpaceID || e.Deleted {
			continue
		}
		switch {
		case r.Action == "rename" && r.Table != e.Name:
			if e.OnDisk == "" {
				e.OnDisk = e.Name
			}
			e.Name = r.Table
			if e.OnDisk == e.Name {
				e.OnDisk = ""
			}
		case r.Action == "delete":
			e.Deleted = true
		}
	}
}

// TableName is the db/table name of a datafile name (./db/t.ibd, /dir/db/t.ibd).
func TableName(file string) string {
	f := filepath.ToSlash(strings.TrimSuffix(file, ".ibd"))
	parts := strings.Split(f, "/")
	if len(parts) < 2 {
		return ""
	}
	return parts[len(parts)-2] + "/" + parts[len(parts)-1]
}

// nameAfter is the name of table row (db/t on disk) after recovery when the log's last name for
// its tablespace is file: ./db/t2.ibd gives db/t2. A file outside the data directory (DATA
// DIRECTORY) lies in the folder of the database it was created in (RENAME TABLE keeps the
// directory and changes only the file name: os_file_make_new_pathname), so only its file name
// is the table's; the database stays the row's (crash-sweep seed 1006: db2/t#P#p0 in DATA_DIR/db1/).
func nameAfter(datadir, row, file string) string {
	if filepath.IsAbs(file) && !discovery.Within(discovery.ResolvePath(file), discovery.ResolvePath(datadir)) {
		db, _, ok := strings.Cut(row, "/")
		if !ok {
			return ""
		}
		return db + "/" + strings.TrimSuffix(filepath.Base(file), ".ibd")
	}
	return TableName(file)
}

// frmName is the table whose .frm describes name: a partition (db/t#P#p0, db/t#P#p0#SP#s0)
// is described by its table's, and so is the table of a high-level index (MariaDB 11.7+: the
// graph of a VECTOR INDEX is an InnoDB table db/t#i#01 of its own, with no .frm).
func frmName(name string) string {
	for _, sep := range []string{"#P#", "#p#", "#i#"} {
		if i := strings.Index(name, sep); i > 0 {
			return name[:i]
		}
	}
	return name
}
