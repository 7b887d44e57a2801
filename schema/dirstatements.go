package schema

import (
	"fmt"
	"path/filepath"
	"strings"

	"innoscope/discovery"
)

// DirStatements reads the statements of the tables of the data directory dir, or of the table
// name ("DB.TABLE"): from each table's .frm; from a MySQL 8 file's SDI (a partitioned table
// once, the tables of the general tablespaces beside the database directories); for a MariaDB
// table whose .frm is gone, from the InnoDB dictionary (CreateTableDict), also when no file of
// it is in a database directory (its rows in ibdata1, or a DATA DIRECTORY table with its .isl
// only). A MariaDB table's statement gets its DATA DIRECTORY from its .isl. Listing every
// table, one whose statement cannot be read is skipped, its error in skipped.
func DirStatements(dir, name string) (out []Source, skipped []error, err error) {
	dict := &dirDict{dir: dir}
	defer dict.close()
	files, err := Files(dir, name)
	if err != nil {
		if name == "" {
			return nil, nil, err
		}
		s, derr := dict.source(name)
		if derr != nil {
			return nil, nil, fmt.Errorf("%v; and from the InnoDB dictionary: %v", err, derr)
		}
		return []Source{s}, nil, nil
	}
	listed := map[string]bool{}
	for _, f := range files {
		var ss []Source
		if strings.HasSuffix(f, ".ibd") && HasSDI(f) {
			// MySQL 8: the table named, or every table of a general tablespace.
			ss, err = StatementsOf(f, name)
		} else {
			var s Source
			s, err = StatementOf(f)
			if err != nil && strings.HasSuffix(f, ".ibd") {
				// A MariaDB table's .ibd without its .frm: the InnoDB dictionary's statement.
				db, table := filepath.Base(filepath.Dir(f)), TableOf(strings.TrimSuffix(filepath.Base(f), ".ibd"))
				n := discovery.SQLName(db) + "." + discovery.SQLName(table)
				listed[n] = true // said once, here, if it cannot be read
				s, err = dict.source(n)
			}
			ss = []Source{s}
		}
		if err != nil && name != "" {
			return nil, nil, err
		} else if err != nil {
			skipped = append(skipped, err)
			continue
		}
		for _, s := range ss {
			s.WithDataDirectory()
			listed[s.DB+"."+s.Table] = true
			out = append(out, s)
		}
	}
	if name == "" {
		for _, n := range dict.onlyTables(listed) {
			s, err := dict.source(n)
			if err != nil {
				skipped = append(skipped, err)
				continue
			}
			out = append(out, s)
		}
	}
	return out, skipped, nil
}

// dirDict is the InnoDB dictionary of the data directory dir, opened on first need (sysDict)
// and read once for every statement DirStatements writes from it.
type dirDict struct {
	dir    string
	opened bool
	l      discovery.Layout
	d      *sysDict
	err    error // why it could not be opened
}

// open opens the dictionary, once.
func (x *dirDict) open() (*sysDict, error) {
	if !x.opened {
		x.opened = true
		if x.l, x.err = discovery.NewLayout(map[string]string{"datadir": x.dir}); x.err == nil {
			x.d, x.err = openSysDict(x.l)
		}
	}
	return x.d, x.err
}

func (x *dirDict) close() {
	if x.d != nil {
		x.d.close()
	}
}

// onlyTables lists ("DB.TABLE") the user tables of the dictionary that listed does not hold
// (none when the dictionary cannot be read): not the server's own, not a partition, an
// intermediate #sql table or a FULLTEXT auxiliary table.
func (x *dirDict) onlyTables(listed map[string]bool) []string {
	d, err := x.open()
	if err != nil {
		return nil
	}
	var out []string
	for _, t := range d.tables {
		db, table, ok := strings.Cut(t.Name, "/")
		switch {
		case t.Deleted || !ok || strings.Contains(strings.ToUpper(table), "#P#") || strings.HasPrefix(table, "#sql") ||
			strings.HasPrefix(strings.ToUpper(table), "FTS_") || db == "mysql" || db == "sys" || strings.HasPrefix(t.Name, "SYS_"):
			continue
		}
		n := discovery.SQLName(db) + "." + discovery.SQLName(table)
		if !listed[n] {
			listed[n] = true
			out = append(out, n)
		}
	}
	return out
}

// source is the statement of table name ("DB.TABLE") from the dictionary (CreateTableDict),
// with the DATA DIRECTORY of its .isl.
func (x *dirDict) source(name string) (Source, error) {
	db, table, ok := strings.Cut(name, ".")
	if !ok || db == "" || table == "" {
		return Source{}, fmt.Errorf("%q: give the table as DB.TABLE", name)
	}
	d, err := x.open()
	if err != nil {
		return Source{}, err
	}
	stmt, err := d.create(db, table)
	if err != nil {
		return Source{}, err
	}
	if ibd, err := discovery.ReadISL(filepath.Join(x.dir, FileName(db), FileName(table)+".isl")); err == nil && ibd != "" {
		stmt += " DATA DIRECTORY=" + quoteString(filepath.Dir(filepath.Dir(ibd))+"/")
	}
	return Source{File: d.sys.Path, DB: db, Table: table, Create: stmt}, nil
}
