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
	files, err := Files(dir, name)
	if err != nil {
		if name == "" {
			return nil, nil, err
		}
		s, derr := dictSource(dir, name)
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
				s, err = dictSource(dir, n)
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
		for _, n := range dictOnlyTables(dir, listed) {
			s, err := dictSource(dir, n)
			if err != nil {
				skipped = append(skipped, err)
				continue
			}
			out = append(out, s)
		}
	}
	return out, skipped, nil
}

// dictOnlyTables lists ("DB.TABLE") the user tables of the InnoDB dictionary of the data
// directory dir that listed does not hold (none when the dictionary cannot be read): not the
// server's own, not a partition, an intermediate #sql table or a FULLTEXT auxiliary table.
func dictOnlyTables(dir string, listed map[string]bool) []string {
	l, err := discovery.NewLayout(map[string]string{"datadir": dir})
	if err != nil {
		return nil
	}
	sysDir, sysName := l.SystemFile()
	sys, err := discovery.OpenFile(filepath.Join(sysDir, sysName))
	if err != nil {
		return nil
	}
	defer sys.Close()
	tables, err := discovery.ReadDictTables(sys)
	if err != nil {
		return nil
	}
	var out []string
	for _, t := range tables {
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

// dictSource is the statement of table name ("DB.TABLE") of the data directory dir from the
// InnoDB dictionary in its system tablespace (CreateTableDict).
func dictSource(dir, name string) (Source, error) {
	db, table, ok := strings.Cut(name, ".")
	if !ok || db == "" || table == "" {
		return Source{}, fmt.Errorf("%q: give the table as DB.TABLE", name)
	}
	l, err := discovery.NewLayout(map[string]string{"datadir": dir})
	if err != nil {
		return Source{}, err
	}
	stmt, err := CreateTableDict(l, db, table)
	if err != nil {
		return Source{}, err
	}
	if ibd, err := discovery.ReadISL(filepath.Join(dir, FileName(db), FileName(table)+".isl")); err == nil && ibd != "" {
		stmt += " DATA DIRECTORY=" + quoteString(filepath.Dir(filepath.Dir(ibd))+"/")
	}
	sysDir, sys := l.SystemFile()
	return Source{File: filepath.Join(sysDir, sys), DB: db, Table: table, Create: stmt}, nil
}
