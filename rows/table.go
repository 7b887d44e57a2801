// Package rows decodes the rows of an InnoDB table offline: the table's definition from the
// InnoDB dictionary in the system tablespace (SYS_TABLES, SYS_COLUMNS, SYS_INDEXES, SYS_FIELDS)
// and its .frm file (display types only), then the leaf level of its clustered index, left to
// right, record by record, every value formatted as the MariaDB server prints it.
package rows

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"innoscope/discovery"
)

// InnoDB main types (data0type.h).
const (
	dataVarchar   = 1
	dataChar      = 2
	dataFixBinary = 3
	dataBinary    = 4
	dataBlob      = 5
	dataInt       = 6
	dataSys       = 8
	dataFloat     = 9
	dataDouble    = 10
	dataDecimal   = 11
	dataVarMySQL  = 12
	dataMySQL     = 13
	dataGeometry  = 14
	dataNotNull   = 256
	dataUnsigned  = 512
	dictClustered = 1
	dictUnique    = 2
	dictVirtual   = 128 // DICT_VIRTUAL: an index on a VIRTUAL column
	sysRowIDLen   = 6
	sysTrxIDLen   = 6
	sysRollPtrLen = 7
	fieldRefSize  = 20 // BTR_EXTERN_FIELD_REF_SIZE
)

// Column is a user column in the order SELECT * gives them.
type Column struct {
	Name string
	Frm  FrmField
	Dict discovery.DictColumn
}

// field is one field of a clustered index record, in its physical order.
type field struct {
	col      int // index in Table.Cols; -1 for a system column or a dropped one
	name     string
	fixed    int  // fixed length in the record (0: variable)
	nullable bool // has a bit in the NULL bitmap
	big      bool // its length may take 2 bytes (maximum over 255 bytes, or a BLOB)
}

// Table is a table's definition as the rows decoder needs it.
type Table struct {
	Name string // db/table in the file-name encoding
	// DB and Table are the database and the table as SQL spells them (of a partition: its
	// table); QuotedName quotes them for a statement.
	DB, Table string
	File      string // the tablespace file
	SpaceID   uint32
	Root      uint32 // clustered index root page (of Index's view: the index's)
	IndexID   uint64
	// IndexName is the secondary index an Index view reads ("": the clustered index).
	IndexName string
	Cols      []Column
	// Virtual are the VIRTUAL columns (computed by the server, not stored), left out of Cols.
	Virtual []string
	// PK lists the columns of the clustered index key (indexes into Cols); empty for a table
	// whose rows are ordered by the hidden DB_ROW_ID.
	PK []int
	// TimeZone is the server's time zone, in which TIMESTAMP values are shown (UTC by default).
	TimeZone *time.Location
	// fields are the clustered index fields as the dictionary gives them (the physical layout
	// unless an instant ALTER dropped or reordered columns: see instant.go).
	fields []field
	nUniq  int
	// The table's dictionary rows, for Index: its indexes, their fields, its id.
	idxs    []discovery.DictIndex
	flds    []discovery.DictField
	tableID uint64
	shown   string // db.table as messages name it
	compact bool   // the dictionary's row format is COMPACT, DYNAMIC or COMPRESSED (else REDUNDANT)
}

// Open reads the definition of table db.name from the dictionary in the system tablespace of
// layout s and from the table's .frm, and finds its tablespace file.
func Open(s discovery.Layout, db, name string) (*Table, error) {
	dir, sysName := s.SystemFile()
	sys, err := discovery.OpenFile(filepath.Join(dir, sysName))
	if err != nil {
		return nil, err
	}
	defer sys.Close()
	db, name = fileName(db), fileName(name)
	sqlDB, sqlName := discovery.SQLName(db), discovery.SQLName(tableOf(name))
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
	frmPath := filepath.Join(s.Datadir, db, tableOf(name)+".frm")
	frm, err := ReadFrm(frmPath)
	if err != nil {
		return nil, err
	}
	t := &Table{Name: full, DB: sqlDB, Table: sqlName, SpaceID: dt.SpaceID, TimeZone: time.UTC, shown: shown, compact: dt.Compact}
	var dcols []discovery.DictColumn
	for _, c := range cols {
		if c.TableID == dt.ID && !c.Deleted && !c.Virtual() {
			dcols = append(dcols, c)
		}
	}
	sort.Slice(dcols, func(i, j int) bool { return dcols[i].Pos < dcols[j].Pos })
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
		coll := collation(dcols[i].PRType)
		if f.Type == myEnum || f.Type == mySet {
			coll = f.Charset
		}
		if (isString(f.Type) || f.Type == myEnum || f.Type == mySet) && !convertible(coll) {
			return nil, fmt.Errorf("%s: column %s: %s", frmPath, f.Name, charsetError(coll))
		}
		byName[strings.ToLower(f.Name)] = len(t.Cols)
		t.Cols = append(t.Cols, Column{Name: f.Name, Frm: f, Dict: dcols[i]})
	}
	if len(t.Cols) != len(dcols) {
		return nil, fmt.Errorf("%s: %d columns, SYS_COLUMNS has %d", frmPath, len(t.Cols), len(dcols))
	}
	var ci *discovery.DictIndex
	for i := range idxs {
		if idxs[i].TableID == dt.ID && !idxs[i].Deleted && idxs[i].Type&dictClustered != 0 {
			ci = &idxs[i]
		}
	}
	if ci == nil {
		return nil, fmt.Errorf("%s: table %s has no clustered index in SYS_INDEXES", sys.Path, shown)
	}
	t.Root, t.IndexID = ci.PageNo, ci.ID
	t.idxs, t.flds, t.tableID = idxs, flds, dt.ID
	var key []discovery.DictField
	for _, f := range flds {
		if f.IndexID == ci.ID && !f.Deleted {
			key = append(key, f)
		}
	}
	sort.Slice(key, func(i, j int) bool { return key[i].Pos < key[j].Pos })
	for i, k := range key {
		c, ok := byName[strings.ToLower(k.ColName)]
		if !ok {
			return nil, fmt.Errorf("%s: clustered index column %s is not a column of %s", sys.Path, k.ColName, shown)
		}
		if n, _ := keyField(k, i == 0); n != 0 {
			return nil, fmt.Errorf("%s: clustered index of %s holds a prefix of column %s: not supported", sys.Path, shown, k.ColName)
		}
		t.PK = append(t.PK, c)
	}
	if t.File, err = tableFile(s, sys.Path, dt, db, name); err != nil {
		return nil, err
	}
	t.layout()
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

// layout builds the clustered index fields in their physical order (before any instant
// ALTER): the key, DB_TRX_ID, DB_ROLL_PTR, then every other column in SYS_COLUMNS order.
func (t *Table) layout() {
	inKey := map[int]bool{}
	add := func(c int) { t.fields = append(t.fields, colField(c, t.Cols[c].Dict)) }
	if len(t.PK) == 0 {
		t.fields = append(t.fields, field{col: -1, name: "DB_ROW_ID", fixed: sysRowIDLen})
	}
	for _, c := range t.PK {
		inKey[c] = true
		add(c)
	}
	t.nUniq = max(len(t.PK), 1)
	t.fields = append(t.fields, field{col: -1, name: "DB_TRX_ID", fixed: sysTrxIDLen}, field{col: -1, name: "DB_ROLL_PTR", fixed: sysRollPtrLen})
	order := make([]int, 0, len(t.Cols))
	for c := range t.Cols {
		if !inKey[c] {
			order = append(order, c)
		}
	}
	sort.Slice(order, func(i, j int) bool { return t.Cols[order[i]].Dict.Pos < t.Cols[order[j]].Dict.Pos })
	for _, c := range order {
		add(c)
	}
}

// colField describes column c as a record field: fixed-length or not (dict_col_get_fixed_size:
// in COMPACT and later, a CHAR in a character set of variable width is stored as variable;
// REDUNDANT records store every field's end offset and do not need it).
func colField(c int, col discovery.DictColumn) field {
	f := field{col: c, name: col.Name, nullable: col.PRType&dataNotNull == 0,
		big: col.Len > 255 || col.MType == dataBlob || col.MType == dataGeometry}
	switch col.MType {
	case dataChar, dataFixBinary, dataInt, dataFloat, dataDouble, dataSys:
		f.fixed = int(col.Len)
	case dataMySQL:
		if mi, ma := mbLen(collation(col.PRType)); mi == ma || col.PRType&1024 != 0 {
			f.fixed = int(col.Len)
		}
	}
	return f
}

// fileName is a database or table name as the server names its files and its InnoDB
// dictionary entries (discovery.FileName), from the name as SQL spells it; a partition's
// "#P#" and "#SP#" stay. A name (or a part of a partition's) already in that encoding (it
// holds an '@' and encodes back to itself) is taken as given.
func fileName(s string) string {
	var b strings.Builder
	for {
		loc := partMarker.FindStringIndex(s)
		part := s
		if loc != nil {
			part = s[:loc[0]]
		}
		if strings.Contains(part, "@") && discovery.FileName(discovery.SQLName(part)) == part {
			b.WriteString(part)
		} else {
			b.WriteString(discovery.FileName(part))
		}
		if loc == nil {
			return b.String()
		}
		b.WriteString(s[loc[0]:loc[1]])
		s = s[loc[1]:]
	}
}

// partMarker is what joins a table and its partition, or a partition and its subpartition, in
// their names.
var partMarker = regexp.MustCompile(`(?i)#S?P#`)

// QuotedName is the table as a statement names it: `db`.`table`, each quoted (Quote).
func (t *Table) QuotedName() string { return QuoteIdent(t.DB) + "." + QuoteIdent(t.Table) }

// tableOf is the table a partition's name belongs to ("t#P#p0" -> "t"): its .frm.
func tableOf(name string) string {
	if i := strings.Index(strings.ToUpper(name), "#P#"); i > 0 {
		return name[:i]
	}
	return name
}

// collation is the collation id in a precise type.
func collation(prtype uint32) int { return int(prtype>>16) & 0x7fff }

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
