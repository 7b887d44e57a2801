// Package rows decodes the rows of an InnoDB table offline: the table's definition (package
// schema: from the InnoDB dictionary in the system tablespace and the table's .frm), then the
// leaf level of its clustered index, left to right, record by record, every value formatted as
// the MariaDB server prints it.
package rows

import (
	"fmt"
	"sort"
	"time"

	"innoscope/discovery"
	"innoscope/schema"
)

// Sizes of the system fields and of a reference to an off-page value.
const (
	sysRowIDLen   = 6
	sysTrxIDLen   = 6
	sysRollPtrLen = 7
	fieldRefSize  = 20 // BTR_EXTERN_FIELD_REF_SIZE
)

// Column is a stored column in the order SELECT * gives them.
type Column = schema.Column

// field is one field of a clustered index record, in its physical order.
type field struct {
	col      int // index in Table.Cols; -1 for a system column or a dropped one
	name     string
	fixed    int  // fixed length in the record (0: variable)
	nullable bool // has a bit in the NULL bitmap
	big      bool // its length may take 2 bytes (maximum over 255 bytes, or a BLOB)
}

// Table is a table's definition as the rows decoder reads it: the definition, whatever its
// source, and the index read (the clustered index, or the one an Index view reads).
type Table struct {
	schema.Table
	Root    uint32 // the root page of the index read
	IndexID uint64
	// IndexName is the secondary index an Index view reads ("": the clustered index).
	IndexName string
	// TimeZone is the server's time zone, in which TIMESTAMP values are shown (UTC by default).
	TimeZone *time.Location
	// fields are the clustered index fields as the dictionary gives them (the physical layout
	// unless an instant ALTER dropped or reordered columns: see instant.go).
	fields []field
	nUniq  int
	// vers are the row versions of each of fields (MySQL 8.0.29+ INSTANT ADD/DROP; nil: the
	// table has none).
	vers []*schema.RowVersion
	// src is the tablespace to read instead of File (undrop: the carved pages).
	src *discovery.File
	// imgReader is FindByRollPtr's, its file kept open between calls (Close).
	imgReader *reader
	// layouts are the layouts of leftmost leaf page images FindByRollPtr met (imageLayout).
	layouts map[imageLayoutKey]imageLayoutOf
}

// Open reads the definition of table db.name from the dictionary in the system tablespace of
// layout s and from the table's .frm (schema.FromDictionary), and finds its tablespace file.
func Open(s discovery.Layout, db, name string) (*Table, error) {
	def, err := schema.FromDictionary(s, db, name)
	if err != nil {
		return nil, err
	}
	return New(def)
}

// OpenIn is Open with the dictionary read from sys (schema.FromDictionaryIn).
func OpenIn(s discovery.Layout, sys *discovery.File, db, name string) (*Table, error) {
	def, err := schema.FromDictionaryIn(s, sys, db, name)
	if err != nil {
		return nil, err
	}
	return New(def)
}

// New prepares the rows decoder for a table's definition: its clustered index, and its columns
// checked (a character set rows does not convert, a clustered index on a column prefix are
// refused).
func New(def *schema.Table) (*Table, error) {
	t := &Table{Table: *def, Root: def.Clustered.Root, IndexID: def.Clustered.ID, TimeZone: time.UTC}
	for _, c := range t.Cols {
		coll := schema.Collation(c.InnoDB.PRType)
		if c.SQL.Type == schema.MyEnum || c.SQL.Type == schema.MySet {
			coll = c.SQL.Charset
		}
		if (isString(c.SQL.Type) || c.SQL.Type == schema.MyEnum || c.SQL.Type == schema.MySet) && !convertible(coll) {
			return nil, fmt.Errorf("%s: column %s: %s", t.Frm, c.Name, charsetError(coll))
		}
	}
	for _, k := range t.Clustered.Fields {
		if k.Prefix != 0 {
			return nil, fmt.Errorf("%s: clustered index of %s holds a prefix of column %s: not supported", t.File, t.Shown, k.Col)
		}
	}
	t.layout()
	return t, nil
}

// layout builds the clustered index fields in their physical order (before any instant
// ALTER): the key, DB_TRX_ID, DB_ROLL_PTR, then every other column in SYS_COLUMNS order.
func (t *Table) layout() {
	inKey := map[int]bool{}
	add := func(c int) { t.fields = append(t.fields, colField(c, t.Cols[c].InnoDB)) }
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
	if t.RowVersions {
		t.versionedLayout(order)
		return
	}
	sort.Slice(order, func(i, j int) bool { return t.Cols[order[i]].InnoDB.Pos < t.Cols[order[j]].InnoDB.Pos })
	for _, c := range order {
		add(c)
	}
}

// versionedLayout appends the fields after DB_ROLL_PTR of a MySQL table with row versions:
// the columns other than the key (order) and the dropped ones, by physical position, with the
// row versions of each in t.vers.
func (t *Table) versionedLayout(order []int) {
	type stored struct {
		col int // -1: dropped
		def *schema.Column
	}
	all := make([]stored, 0, len(order)+len(t.Dropped))
	for _, c := range order {
		all = append(all, stored{c, &t.Cols[c]})
	}
	for i := range t.Dropped {
		all = append(all, stored{-1, &t.Dropped[i]})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].def.InnoDB.Pos < all[j].def.InnoDB.Pos })
	t.vers = make([]*schema.RowVersion, len(t.fields), len(t.fields)+len(all))
	for _, s := range all {
		f := colField(s.col, s.def.InnoDB)
		if s.col < 0 {
			f.name = "(dropped " + s.def.Name + ")"
		}
		t.fields = append(t.fields, f)
		t.vers = append(t.vers, s.def.Version)
	}
}

// colField describes column c as a record field: fixed-length or not (dict_col_get_fixed_size:
// in COMPACT and later, a CHAR in a character set of variable width is stored as variable;
// REDUNDANT records store every field's end offset and do not need it).
func colField(c int, col discovery.DictColumn) field {
	f := field{col: c, name: col.Name, nullable: col.PRType&schema.DataNotNull == 0,
		big: col.Len > 255 || col.MType == schema.DataBlob || col.MType == schema.DataGeometry}
	switch col.MType {
	case schema.DataChar, schema.DataFixBinary, schema.DataInt, schema.DataFloat, schema.DataDouble, schema.DataSys:
		f.fixed = int(col.Len)
	case schema.DataMySQL:
		if mi, ma := mbLen(schema.Collation(col.PRType)); mi == ma || col.PRType&schema.DataBinaryTyp != 0 {
			f.fixed = int(col.Len)
		}
	}
	return f
}

// QuotedName is the table as a statement names it: `db`.`table`, each quoted (QuoteIdent).
func (t *Table) QuotedName() string { return QuoteIdent(t.DB) + "." + QuoteIdent(t.TableName) }
