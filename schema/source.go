package schema

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"innoscope/discovery"
)

// Source is one table's CREATE TABLE statement and the file it was read from.
type Source struct {
	File    string `json:"file"`
	DB      string `json:"database"`
	Table   string `json:"table"`
	Version int    `json:"mysqld_version_id,omitempty"`
	Create  string `json:"create_table"`
}

// Files lists the files the statements of DIR are read from: the table's .frm (or its
// .ibd without one: MySQL 8) of DB.TABLE, or of every table in DIR's database directories.
func Files(dir, name string) ([]string, error) {
	if name != "" {
		db, table, ok := strings.Cut(name, ".")
		if !ok || db == "" || table == "" {
			return nil, fmt.Errorf("%q: give the table as DB.TABLE", name)
		}
		base := filepath.Join(dir, FileName(db), FileName(table))
		for _, ext := range []string{".frm", ".ibd"} {
			if _, err := os.Stat(base + ext); err == nil {
				return []string{base + ext}, nil
			}
		}
		// A MySQL 8 partitioned table: a partition's file (its SDI leads to the table's).
		if parts, _ := filepath.Glob(base + "#[pP]#*.ibd"); len(parts) > 0 {
			sort.Strings(parts)
			return parts[:1], nil
		}
		// A table of a MySQL general tablespace: a file in the data directory whose SDI holds it.
		for _, g := range generalTablespaces(dir) {
			if _, err := ReadSDITable(g, name); err == nil {
				return []string{g}, nil
			}
		}
		return nil, fmt.Errorf("%s: neither %s.frm nor %s.ibd is there (nor a partition's file, nor a general tablespace holding %s): is %s the data directory, and %s the table's name?", dir, base, base, name, dir, name)
	}
	var out []string
	dbs, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, d := range dbs {
		switch d.Name() {
		case "mysql", "sys", "performance_schema", "#innodb_redo", "#innodb_temp":
			continue // the server's own tables
		}
		if !d.IsDir() {
			continue
		}
		sub := filepath.Join(dir, d.Name())
		frms, _ := filepath.Glob(filepath.Join(sub, "*.frm"))
		ibds, _ := filepath.Glob(filepath.Join(sub, "*.ibd"))
		have := map[string]bool{}
		for _, f := range frms {
			have[strings.TrimSuffix(f, ".frm")] = true
			out = append(out, f)
		}
		sort.Strings(ibds)
		for _, f := range ibds {
			t := TableOf(strings.TrimSuffix(f, ".ibd"))
			switch {
			case have[t] || strings.HasPrefix(strings.ToLower(filepath.Base(f)), "fts_"):
			case strings.Contains(strings.ToUpper(f), "#P#"):
				// A MySQL 8 partitioned table (no .frm): one of its partitions' files, whose
				// SDI leads to the table's definition.
				if HasSDI(f) {
					have[t] = true
					out = append(out, f)
				}
			default:
				out = append(out, f)
			}
		}
	}
	out = append(out, generalTablespaces(dir)...)
	sort.Strings(out)
	if len(out) == 0 {
		own, _ := filepath.Glob(filepath.Join(dir, "*.frm"))
		ibds, _ := filepath.Glob(filepath.Join(dir, "*.ibd"))
		if own = append(own, ibds...); len(own) > 0 {
			return nil, fmt.Errorf("%s: no .frm or .ibd file in its subdirectories, but %d table files in it: it is a database directory; give its parent (the data directory, whose subdirectories are the databases), or one table's file (schema %s)", dir, len(own), own[0])
		}
		return nil, fmt.Errorf("%s: no .frm or .ibd file in its database directories: give the data directory", dir)
	}
	return out, nil
}

// StatementOf reads the statement of the table of a .frm, or of an .ibd (its .frm beside it, else
// the SDI inside it).
func StatementOf(path string) (Source, error) {
	ss, err := StatementsOf(path, "")
	if err != nil {
		return Source{}, err
	}
	if len(ss) != 1 {
		return Source{}, fmt.Errorf("%s: a general tablespace of %d tables: name one", path, len(ss))
	}
	return ss[0], nil
}

// StatementsOf reads the statements of the tables of a .frm, or of an .ibd (its .frm beside it,
// else the SDI inside it: every table of a MySQL general tablespace, or the one name chooses).
func StatementsOf(path, name string) ([]Source, error) {
	frm := ""
	switch {
	case strings.HasSuffix(strings.ToLower(path), ".frm"):
		frm = path
	case strings.HasSuffix(strings.ToLower(path), ".ibd"):
		frm = FrmBeside(path)
	default:
		return nil, fmt.Errorf("%s: give a table's .frm (MariaDB, MySQL 5.x) or .ibd file (MySQL 8: the statement is read from the SDI inside it), or a data directory", path)
	}
	if frm != "" {
		if name != "" {
			return nil, fmt.Errorf("%s: DB.TABLE goes with a data directory or a MySQL general tablespace; this file names its table itself", path)
		}
		name := discovery.SQLName(TableOf(strings.TrimSuffix(filepath.Base(frm), filepath.Ext(frm))))
		stmt, err := CreateTableFrm(frm, name)
		if err != nil {
			return nil, err
		}
		return []Source{{File: frm, DB: discovery.SQLName(dirName(frm)), Table: name, Create: stmt}}, nil
	}
	if err := discovery.NotTablespace(path); err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); err == nil && !HasSDI(path) {
		return nil, noFrm(path)
	}
	var objs []*SDIObject
	if name != "" {
		o, err := ReadSDITable(path, name)
		if err != nil {
			return nil, err
		}
		objs = []*SDIObject{o}
	} else {
		var err error
		if objs, err = ReadSDITables(path); err != nil {
			return nil, err
		}
	}
	var out []Source
	for _, o := range objs {
		if ftsAuxiliary(o.Table.Name) {
			return nil, fmt.Errorf("%s: %s.%s is an auxiliary table of a FULLTEXT index (InnoDB's own, no statement of its own): the table's statement has the index", path, o.Table.SchemaRef, o.Table.Name)
		}
		out = append(out, Source{File: path, DB: o.Table.SchemaRef, Table: o.Table.Name, Version: o.MysqldVersionID, Create: CreateTable(&o.Table)})
	}
	return out, nil
}

// WithDataDirectory adds to the statement of a MariaDB table the DATA DIRECTORY clause SHOW
// CREATE TABLE writes, which the server takes from the table's .isl link (beside its .frm) and
// not from the .frm: the directory above the one of the database that holds the .ibd, with a
// trailing slash. A partitioned table (whose partitions have their own links) and a table
// without a link are left as they are. (`adopt` attaches tables in the target's data
// directory, so it does not ask for it.)
func (s *Source) WithDataDirectory() {
	if !strings.HasSuffix(strings.ToLower(s.File), ".frm") || strings.Contains(s.Create, "\n PARTITION BY") {
		return
	}
	ibd, err := discovery.ReadISL(strings.TrimSuffix(s.File, filepath.Ext(s.File)) + ".isl")
	if err != nil || ibd == "" {
		return
	}
	s.Create += " DATA DIRECTORY=" + quoteString(filepath.Dir(filepath.Dir(ibd))+"/")
}

// dirName is the name of the directory that holds the file at path (its database directory),
// however the path is spelled: "f.frm" in the working directory has its name, not ".".
func dirName(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return filepath.Base(filepath.Dir(path))
}

// generalTablespaces lists the MySQL general tablespaces in the data directory dir: the .ibd
// files beside the database directories whose SDI holds tables (not mysql.ibd, the undo and
// system tablespaces).
func generalTablespaces(dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.ibd"))
	var out []string
	for _, f := range files {
		if strings.EqualFold(filepath.Base(f), "mysql.ibd") || !HasSDI(f) {
			continue
		}
		recs, err := ReadSDI(f)
		if err != nil || strings.Contains(sdiSpaceName(recs), "/") {
			continue // a table's own tablespace ("db/t"): dir is a database directory
		}
		if objs, err := sdiTables(f, recs); err == nil && len(objs) > 0 {
			out = append(out, f)
		}
	}
	return out
}
