package schema

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"innoscope/discovery"
)

// FromDictionary reads the definition of table db.name from the dictionary in the system
// tablespace of layout s (SYS_TABLES, SYS_COLUMNS, SYS_INDEXES, SYS_FIELDS: the InnoDB types,
// the indexes) and from the table's .frm (the SQL types), and finds its tablespace file. The
// names are given as SQL spells them (or encoded as the server names its files).
func FromDictionary(s discovery.Layout, db, name string) (*Table, error) {
	dir, sysName := s.SystemFile()
	sys, err := discovery.OpenFile(filepath.Join(dir, sysName))
	if err != nil {
		return nil, err
	}
	defer sys.Close()
	return FromDictionaryIn(s, sys, db, name)
}

// FromDictionaryIn is FromDictionary with the dictionary read from sys, the system tablespace
// as the caller has it (its pages as the redo log leaves them, for a table the log creates).
func FromDictionaryIn(s discovery.Layout, sys *discovery.File, db, name string) (*Table, error) {
	db, name = FileName(db), FileName(name)
	sqlDB, sqlName := discovery.SQLName(db), discovery.SQLName(TableOf(name))
	full := db + "/" + name
	shown := sqlDB + "." + sqlName // as messages name it: db.table as SQL spells it
	tables, err := discovery.ReadDictTables(sys)
	if err != nil {
		return nil, err
	}
	var dt *discovery.DictTable
	for i := range tables {
		if !tables[i].Deleted && tables[i].Name == full {
			dt = &tables[i]
		}
	}
	if dt == nil {
		if err := partitioned(tables, s.Datadir, sqlDB, db, name); err != nil {
			return nil, err
		}
		return nil, notInnoDB(s.Datadir, sys.Path, db, name)
	}
	cols, err := discovery.ReadDictColumns(sys)
	if err != nil {
		return nil, err
	}
	idxs, err := discovery.ReadDictIndexes(sys)
	if err != nil {
		return nil, err
	}
	flds, err := discovery.ReadDictFields(sys)
	if err != nil {
		return nil, err
	}
	frmPath := filepath.Join(s.Datadir, db, TableOf(name)+".frm")
	frm, err := ReadFrm(frmPath)
	gone := errors.Is(err, fs.ErrNotExist)
	if err != nil && !gone {
		return nil, err
	}
	t := &Table{Name: full, DB: sqlDB, TableName: sqlName, Shown: shown, Compact: dt.Compact, Frm: frmPath, SpaceID: dt.SpaceID, TableID: dt.ID}
	var dcols []discovery.DictColumn
	for _, c := range cols {
		if c.TableID == dt.ID && !c.Deleted && !c.Virtual() {
			dcols = append(dcols, c)
		}
	}
	sort.Slice(dcols, func(i, j int) bool { return dcols[i].Pos < dcols[j].Pos })
	if gone {
		// The .frm is gone: the SQL types as far as the dictionary gives them (CreateTableDict
		// writes the same); a column it does not describe whole refuses the table.
		t.Frm = ""
		frm = nil
		for _, c := range dcols {
			st, err := SQLTypeOf(c)
			if err != nil {
				return nil, fmt.Errorf("%s: %s has no .frm, and the InnoDB dictionary does not describe it whole: %v; give its .frm, or its CREATE TABLE to `innoscope undrop DIR %s --schema FILE.sql`", frmPath, shown, err, shown)
			}
			dictDisplay(&st, c)
			frm = append(frm, FrmColumn{Name: c.Name, SQLType: st})
		}
	}
	byName := map[string]int{}
	for _, f := range frm {
		i := -1
		for k, c := range dcols {
			if strings.EqualFold(c.Name, f.Name) {
				i = k
			}
		}
		if i < 0 {
			if f.Generated { // VIRTUAL: a stored generated column is in SYS_COLUMNS
				t.Virtual = append(t.Virtual, f.Name)
				continue
			}
			return nil, fmt.Errorf("%s: column %s is not in SYS_COLUMNS", frmPath, f.Name)
		}
		byName[strings.ToLower(f.Name)] = len(t.Cols)
		t.Cols = append(t.Cols, Column{Name: f.Name, SQL: f.SQLType, InnoDB: dcols[i]})
	}
	if len(t.Cols) != len(dcols) {
		return nil, fmt.Errorf("%s: %d columns, SYS_COLUMNS has %d", frmPath, len(t.Cols), len(dcols))
	}
	found := false
	for i := range idxs {
		d := &idxs[i]
		if d.TableID != dt.ID || d.Deleted {
			continue
		}
		ix := Index{Name: d.Name, ID: d.ID, Root: d.PageNo, Type: d.Type}
		var key []discovery.DictField
		for _, f := range flds {
			if f.IndexID == d.ID && !f.Deleted {
				key = append(key, f)
			}
		}
		sort.Slice(key, func(i, j int) bool { return key[i].Pos < key[j].Pos })
		for i, k := range key {
			prefix, desc := keyField(k, i == 0)
			ix.Fields = append(ix.Fields, IndexField{Col: k.ColName, Prefix: prefix, Desc: desc})
		}
		if d.Type&IndexClustered == 0 {
			t.Indexes = append(t.Indexes, ix)
			continue
		}
		t.Clustered, found = ix, true
	}
	if !found {
		return nil, fmt.Errorf("%s: table %s has no clustered index in SYS_INDEXES", sys.Path, shown)
	}
	for _, k := range t.Clustered.Fields {
		c, ok := byName[strings.ToLower(k.Col)]
		if !ok {
			return nil, fmt.Errorf("%s: clustered index column %s is not a column of %s", sys.Path, k.Col, shown)
		}
		t.PK = append(t.PK, c)
	}
	if t.File, err = tableFile(s, sys.Path, dt, db, name); err != nil {
		return nil, err
	}
	return t, nil
}

// tableFile is the tablespace file of the table: db/name.ibd, the file its .isl names (DATA
// DIRECTORY), or the system tablespace.
func tableFile(s discovery.Layout, sysPath string, dt *discovery.DictTable, db, name string) (string, error) {
	if dt.SpaceID == 0 {
		return sysPath, nil
	}
	isl := filepath.Join(s.Datadir, db, name+".isl")
	if _, err := os.Stat(isl); err == nil {
		return discovery.ReadISL(isl)
	}
	return filepath.Join(s.Datadir, db, name+".ibd"), nil
}

// keyField reads the SYS_FIELDS.POS of an index field: its column prefix length in bytes (0:
// the whole column) and whether the field is DESC. POS is written in one of two forms for a
// whole index. In the narrow form (an index of whole, ascending columns) it is the field's
// position alone. When any field of the index holds a column prefix or, since MariaDB 10.8,
// is descending, every POS of the index takes the wide form instead: the position in the high
// 16 bits; in the low 16 the prefix length (at most 15 bits) with bit 15 (0x8000) set for a
// DESC field. The server (dict_load_field_low, dict0load.cc) cannot tell the two forms apart
// for the first field, whose position is 0, so it reads the first field, and any POS above
// 0xffff, in the wide form. A DESC field is stored as an ascending one is: only the order of
// the B-tree's records is reversed on it.
func keyField(f discovery.DictField, first bool) (prefix int, desc bool) {
	if first || f.Pos > 0xffff {
		return int(f.Pos & 0x7fff), f.Pos&0x8000 != 0
	}
	return 0, false
}

// notInnoDB is the error for a table SYS_TABLES does not hold: another engine's table (by the
// files the server keeps beside its .frm), a view, or no table at all.
func notInnoDB(datadir, sys, db, name string) error {
	base := filepath.Join(datadir, db, name)
	for _, e := range []struct{ ext, engine string }{{".MAI", "an Aria"}, {".MYI", "a MyISAM"}, {".CSV", "a CSV"}} {
		if _, err := os.Stat(base + e.ext); err == nil {
			return fmt.Errorf("%s.%s is %s table (%s): rows reads InnoDB tables only", db, name, e.engine, base+e.ext)
		}
	}
	frm, err := readFrmImage(base + ".frm")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: no table %s.%s in SYS_TABLES, and no %s", sys, db, name, base+".frm")
	case err != nil:
		return fmt.Errorf("no table %s.%s in SYS_TABLES (%s), and its .frm cannot be read: %w", db, name, sys, err)
	case strings.HasPrefix(string(frm), "TYPE=VIEW"):
		return fmt.Errorf("%s.%s is a view (%s): rows reads InnoDB tables only", db, name, base+".frm")
	}
	return fmt.Errorf("%s.%s is not an InnoDB table (%s exists, %s has no such table): rows reads InnoDB tables only", db, name, base+".frm", sys)
}
