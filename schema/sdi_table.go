package schema

import (
	"encoding/json"
	"fmt"
	"strings"

	"innoscope/discovery"
)

// FromSDI reads the definition of a table whose tablespace is the MySQL 8 file path from the
// SDI inside it (ReadSDI): the one table of a file-per-table tablespace, or the table named
// ("DB.TABLE") of a general tablespace. The InnoDB types of the columns are derived as MySQL 8
// derives them (get_innobase_type_from_mysql_type, dict_col_t of ha_innodb.cc), their
// physical order from the clustered index. The file of one partition (or subpartition) of a
// partitioned table gives that partition's rows (PartitionOf).
func FromSDI(path, name string) (*Table, *SDIObject, error) {
	o, err := ReadSDITable(path, name)
	if err != nil {
		return nil, nil, err
	}
	d := &o.Table
	part := ""
	if d.PartitionType != 0 {
		if d, part, err = PartitionOf(d, path); err != nil {
			return nil, o, err
		}
	}
	t, err := TableFromDD(d, path)
	if t != nil && part != "" {
		t.Name += "#p#" + FileName(part)
		t.Shown += " partition " + part
	}
	return t, o, err
}

// ReadSDITable reads the dictionary entry of a table of the MySQL 8 file path from its SDI
// (what `schema` prints, whether or not rows can decode its records): the one table of the
// file, or the table name ("DB.TABLE", or TABLE when one database has it) of a general
// tablespace, which holds several.
func ReadSDITable(path, name string) (*SDIObject, error) {
	objs, err := ReadSDITables(path)
	if err != nil {
		return nil, err
	}
	if name == "" && len(objs) == 1 {
		return objs[0], nil
	}
	names := make([]string, len(objs))
	var match []*SDIObject
	for i, o := range objs {
		names[i] = o.Table.SchemaRef + "." + o.Table.Name
		if strings.EqualFold(names[i], name) || strings.EqualFold(o.Table.Name, name) {
			match = append(match, o)
		}
	}
	switch {
	case name == "":
		return nil, fmt.Errorf("%s: a general tablespace: its SDI holds %d tables (%s): name one (DB.TABLE after the file)", path, len(objs), strings.Join(names, ", "))
	case len(match) == 1:
		return match[0], nil
	case len(match) > 1:
		return nil, fmt.Errorf("%s: %s names %d tables of its SDI: name one as DB.TABLE (%s)", path, name, len(match), strings.Join(names, ", "))
	}
	return nil, fmt.Errorf("%s: its SDI holds no table %s (it holds %s)", path, name, strings.Join(names, ", "))
}

// ReadSDITables reads the dictionary entries of the tables of the MySQL 8 file path from its
// SDI: one for a table's own tablespace, several for a general tablespace (in the SDI's order);
// a partition's file gives its table's entry, from the first partition's file beside it.
func ReadSDITables(path string) ([]*SDIObject, error) {
	recs, err := ReadSDI(path)
	if err != nil {
		return nil, err
	}
	return sdiTables(path, recs)
}

// sdiTables is ReadSDITables on the SDI records recs of the file path.
func sdiTables(path string, recs []SDIRecord) ([]*SDIObject, error) {
	var objs []*SDIObject
	space := sdiSpaceName(recs)
	for _, r := range recs {
		if r.Type != 1 {
			continue
		}
		o, err := ParseSDITable(r.JSON)
		if err != nil {
			return nil, fmt.Errorf("%s: SDI page %d, table id %d: %v", path, r.Page, r.ID, err)
		}
		objs = append(objs, o)
	}
	switch {
	case len(objs) == 0 && (partitionFile(path) || partitionFile(space)):
		// MySQL keeps a partitioned table's entry in its first partition's tablespace only
		o, err := partitionTable(path, space)
		if err != nil {
			return nil, err
		}
		return []*SDIObject{o}, nil
	case len(objs) == 0:
		return nil, fmt.Errorf("%s: the SDI holds no table (a general tablespace without tables, or the system tablespace?): give a table's own .ibd", path)
	}
	return objs, nil
}

// TableFromDD builds the Table of dd table d, whose tablespace file is path.
func TableFromDD(d *DDTable, path string) (*Table, error) {
	shown := d.SchemaRef + "." + d.Name
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%s: table %s (SDI): %s", path, shown, fmt.Sprintf(format, a...))
	}
	if ftsAuxiliary(d.Name) {
		return nil, fail("an auxiliary table of a FULLTEXT index (InnoDB's own): its contents are rebuilt from the table's rows; read the table itself")
	}
	if !strings.EqualFold(d.Engine, "InnoDB") {
		return nil, fail("engine %s, not InnoDB", d.Engine)
	}
	if d.PartitionType != 0 {
		return nil, fail("a partitioned table: not read yet")
	}
	if err := refuseRowVersions(d); err != nil {
		return nil, fail("%v", err)
	}
	if len(d.Indexes) == 0 {
		return nil, fail("no index: no clustered index")
	}
	ci := d.Indexes[0] // the dictionary lists the clustered index first
	pd := ci.SEPrivateData
	root, ok1 := privateUint(pd, "root")
	id, ok2 := privateUint(pd, "id")
	space, _ := privateUint(pd, "space_id")
	if !ok1 || !ok2 {
		return nil, fail("the clustered index %s has no root or id (se_private_data %q)", ci.Name, pd)
	}
	t := &Table{Name: FileName(d.SchemaRef) + "/" + FileName(d.Name), DB: d.SchemaRef, TableName: d.Name, Shown: shown,
		File: path, Frm: path, SpaceID: uint32(space), TableID: d.SEPrivateID, Compact: d.RowFormat != 4 /* RF_REDUNDANT */}
	t.Clustered = Index{Name: ci.Name, ID: id, Root: uint32(root), Type: IndexClustered | IndexUnique}
	// Each column's place among the clustered index's fields is its physical position.
	pos := map[int]uint32{}
	for i, e := range ci.Elements {
		pos[e.ColumnOpx] = uint32(i)
	}
	// With row versions every column has its physical_pos, dropped ones too.
	t.RowVersions = hasRowVersions(d)
	colOf := map[int]int{} // dd column index -> Cols index
	for opx, c := range d.Columns {
		switch {
		case c.IsVirtual:
			t.Virtual = append(t.Virtual, c.Name)
			continue
		case c.Hidden == 2 && (c.Name == "DB_ROW_ID" || c.Name == "DB_TRX_ID" || c.Name == "DB_ROLL_PTR"):
			continue
		}
		p, ok := pos[opx]
		if !ok { // InnoDB's FTS_DOC_ID: stored after the columns the dictionary's index lists
			p = uint32(len(ci.Elements) + opx)
		}
		var rv *RowVersion
		if t.RowVersions {
			var err error
			if p, rv, err = rowVersionOf(c); err != nil {
				return nil, fail("%v", err)
			}
		}
		col, err := ddColumn(c, p)
		if err != nil {
			return nil, fail("%v", err)
		}
		col.Version = rv
		if rv != nil && rv.Dropped != 0 {
			t.Dropped = append(t.Dropped, col)
			continue
		}
		if droppedName(c.Name) {
			return nil, fail("column %s: a dropped column without version_dropped (se_private_data %q)", c.Name, c.SEPrivateData)
		}
		if c.Hidden != 1 {
			t.HiddenCols = append(t.HiddenCols, len(t.Cols))
		}
		colOf[opx] = len(t.Cols)
		t.Cols = append(t.Cols, col)
	}
	for _, e := range ci.Elements {
		c := d.Columns[e.ColumnOpx]
		if e.Hidden {
			continue
		}
		k, ok := colOf[e.ColumnOpx]
		if !ok {
			return nil, fail("clustered index column %s is not stored", c.Name)
		}
		t.PK = append(t.PK, k)
		t.Clustered.Fields = append(t.Clustered.Fields, IndexField{Col: c.Name, Prefix: prefixOf(e.Length, c), Desc: e.Order == 3})
	}
	for _, x := range d.Indexes[1:] {
		ix := Index{Name: x.Name}
		if v, ok := privateUint(x.SEPrivateData, "id"); ok {
			ix.ID = v
		}
		if v, ok := privateUint(x.SEPrivateData, "root"); ok {
			ix.Root = uint32(v)
		}
		if x.Type == 2 {
			ix.Type = IndexUnique
		}
		for _, e := range x.Elements {
			if !e.Hidden {
				c := d.Columns[e.ColumnOpx]
				ix.Fields = append(ix.Fields, IndexField{Col: c.Name, Prefix: prefixOf(e.Length, c), Desc: e.Order == 3})
			}
		}
		t.Indexes = append(t.Indexes, ix)
	}
	return t, nil
}

// refuseRowVersions refuses a table that MySQL 8.0.12-8.0.28 altered instantly (INSTANT ADD
// COLUMN before row versions): its records carry their number of fields, which innoscope does
// not decode yet. 8.0.29+ row versions are decoded (RowVersion).
func refuseRowVersions(d *DDTable) error {
	if _, ok := privateData(d.SEPrivateData)["instant_col"]; ok {
		return fmt.Errorf("columns were added with ALGORITHM=INSTANT (8.0.12-8.0.28: instant_col in se_private_data): records of several layouts, which innoscope does not decode yet (the next step: `innoscope schema` prints its CREATE TABLE; a MySQL server of its version can import the tablespace: CREATE TABLE, ALTER TABLE ... DISCARD TABLESPACE, copy the file, IMPORT TABLESPACE)")
	}
	return nil
}

// prefixOf is the column prefix of an index element in bytes (0: the whole column).
func prefixOf(length uint32, c DDColumn) int {
	my, _ := mySQLType(c.Type)
	switch my {
	case MyVarchar, MyVarString, MyString, MyTinyBlob, MyMediumBlob, MyLongBlob, MyBlob, MyGeometry:
		if length != 0xffffffff && length < c.CharLength {
			return int(length)
		}
	}
	return 0
}

// ddColumn is the Column of dd column c at physical position pos.
func ddColumn(c DDColumn, pos uint32) (Column, error) {
	my, _ := mySQLType(c.Type)
	coll := decodingCollation(c.CollationID)
	sql := SQLType{Type: my, Length: int(c.CharLength), Charset: coll, Generated: c.GenerationExpr != ""}
	dc := discovery.DictColumn{Pos: pos, Name: c.Name, Len: c.CharLength}
	var mtype uint32
	prtype := uint32(my)
	// InnoDB's own tables (the FULLTEXT auxiliary ones) mark a column nullable in its
	// se_private_data where the dictionary's is_nullable says NOT NULL: the records have its bit.
	if !c.IsNullable && privateData(c.SEPrivateData)["nullable"] != "1" {
		prtype |= DataNotNull
	}
	if c.IsUnsigned {
		prtype |= DataUnsigned
	}
	binary := coll == 63
	switch my {
	case MyTiny, MyShort, MyInt24, MyLong, MyLongLong:
		mtype, dc.Len = DataInt, uint32(map[byte]int{MyTiny: 1, MyShort: 2, MyInt24: 3, MyLong: 4, MyLongLong: 8}[my])
	case MyYear:
		mtype, dc.Len, prtype = DataInt, 1, prtype|DataUnsigned
	case MyNewDate:
		mtype, dc.Len = DataInt, 3
	case MyFloat, MyDouble:
		mtype, dc.Len = DataFloat, 4
		if my == MyDouble {
			mtype, dc.Len = DataDouble, 8
		}
		dec := notFixedDecimals
		if !c.NumericScaleNull {
			dec = c.NumericScale
		}
		sql.PackFlag = uint16(dec) << 8
	case MyNewDecimal:
		prec, scale := c.NumericPrecision, c.NumericScale
		mtype, dc.Len, prtype = DataFixBinary, uint32(decimalBinSize(prec, scale)), prtype|DataBinaryTyp
		sql.PackFlag = uint16(scale) << 8
		if !c.IsUnsigned {
			sql.PackFlag |= 1
		}
		sql.Length = prec + btoi(scale > 0) + btoi(!c.IsUnsigned)
	case MyDatetime2, MyTimestamp2, MyTime2:
		fsp := c.DatetimePrecision
		base := map[byte]int{MyDatetime2: 5, MyTimestamp2: 4, MyTime2: 3}[my]
		mtype, dc.Len, prtype = DataFixBinary, uint32(base+(fsp+1)/2), prtype|DataBinaryTyp
		width := 19
		if my == MyTime2 {
			width = 10
		}
		if fsp > 0 {
			width += fsp + 1
		}
		sql.Length = width
	case MyBit:
		mtype, dc.Len, prtype = DataFixBinary, uint32((c.NumericPrecision+7)/8), prtype|DataBinaryTyp
	case MyEnum, MySet:
		for _, e := range c.Elements {
			sql.Labels = append(sql.Labels, e.Name)
		}
		n := len(sql.Labels)
		mtype, prtype = DataInt, prtype|DataUnsigned
		if my == MyEnum {
			dc.Len = 1
			if n > 255 {
				dc.Len = 2
			}
		} else {
			dc.Len = uint32((n + 7) / 8)
			if dc.Len > 4 {
				dc.Len = 8
			} else if dc.Len == 0 {
				dc.Len = 1
			}
		}
	case MyVarchar, MyVarString:
		mtype = DataVarMySQL
		if binary {
			mtype, prtype = DataBinary, prtype|DataBinaryTyp
		}
	case MyString:
		mtype = DataMySQL
		if binary {
			mtype, prtype = DataFixBinary, prtype|DataBinaryTyp
		}
	case MyTinyBlob, MyMediumBlob, MyLongBlob, MyBlob:
		mtype, dc.Len = DataBlob, 10
		if binary {
			prtype |= DataBinaryTyp
		}
	case MyGeometry:
		// Stored as a BLOB of the SRID and the WKB: printed as its bytes, as the client does.
		mtype, dc.Len, prtype = DataGeometry, 12, prtype|DataBinaryTyp
		sql.Type, coll = MyLongBlob, 63
	default:
		return Column{}, fmt.Errorf("column %s: type %s (MySQL type %d) is not decoded (the next step: `innoscope schema` prints its CREATE TABLE; a MySQL server of its version can import the tablespace: CREATE TABLE, ALTER TABLE ... DISCARD TABLESPACE, copy the file, IMPORT TABLESPACE)", c.Name, c.ColumnTypeUTF8, my)
	}
	if isStringType(my) || my == MyGeometry {
		prtype |= uint32(coll) << 16
	}
	dc.MType, dc.PRType = mtype, prtype
	return Column{Name: c.Name, SQL: sql, InnoDB: dc}, nil
}

// notFixedDecimals is FLOATING_POINT_DECIMALS: a FLOAT/DOUBLE without (M,D).
const notFixedDecimals = 31

func isStringType(t byte) bool {
	switch t {
	case MyVarchar, MyVarString, MyString, MyTinyBlob, MyMediumBlob, MyLongBlob, MyBlob:
		return true
	}
	return false
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// decimalBinSize is the bytes of a DECIMAL(prec, scale) (decimal_bin_size: 4 bytes per 9
// digits, the rest by dig2bytes).
func decimalBinSize(prec, scale int) int {
	dig2bytes := [10]int{0, 1, 1, 2, 2, 3, 3, 4, 4, 4}
	intg := prec - scale
	return intg/9*4 + dig2bytes[intg%9] + scale/9*4 + dig2bytes[scale%9]
}

// decodingCollation maps a MySQL 8 collation id that MariaDB lacks to one of the same character
// set for decoding (the character set is all the decoder needs): the utf8mb4 "0900" collations
// (255-323) and utf8mb4_0900_bin (309), utf8mb3_tolower_ci (76).
func decodingCollation(id int) int {
	switch {
	case id >= 255 && id <= 323:
		return 46 // utf8mb4_bin
	case id == 76:
		return 83 // utf8mb3_bin
	}
	return id
}

// ftsAuxiliary: name is one of InnoDB's tables of a FULLTEXT index (fts_<table id>_..., in hex).
func ftsAuxiliary(name string) bool {
	rest, ok := strings.CutPrefix(strings.ToLower(name), "fts_")
	if !ok || len(rest) < 17 || rest[16] != '_' {
		return false
	}
	return strings.Trim(rest[:16], "0123456789abcdef") == ""
}

// sdiSpaceName is the tablespace's name its SDI records give ("db/t" for a table's own, the
// name of CREATE TABLESPACE for a general one; "" when none).
func sdiSpaceName(recs []SDIRecord) string {
	for _, r := range recs {
		if r.Type != 2 {
			continue
		}
		var ts struct {
			Object struct {
				Name string `json:"name"`
			} `json:"dd_object"`
		}
		if json.Unmarshal(r.JSON, &ts) == nil {
			return ts.Object.Name
		}
	}
	return ""
}
