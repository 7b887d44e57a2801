package schema

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"innoscope/discovery"
)

// CreateTableDict writes a CREATE TABLE statement for table db.name from the InnoDB dictionary
// in the system tablespace alone (SYS_TABLES, SYS_COLUMNS, SYS_INDEXES, SYS_FIELDS), for a
// table whose .frm is gone. The dictionary keeps the columns' InnoDB types, NOT NULL, UNSIGNED
// and character sets, the indexes and their prefixes, the row format: what it does not keep
// (defaults, AUTO_INCREMENT, comments, the table's default character set, generated columns'
// expressions, a latin1 column's collation) is left out, and a column whose type it does not
// describe whole (DECIMAL, ENUM, SET, BIT: SQLTypeOf) refuses the statement, naming it. The
// statement begins with a comment saying so.
func CreateTableDict(s discovery.Layout, db, name string) (string, error) {
	d, err := openSysDict(s)
	if err != nil {
		return "", err
	}
	defer d.close()
	return d.create(db, name)
}

// sysDict is the InnoDB dictionary of the system tablespace of a data directory laid out as s,
// for writing statements from: SYS_TABLES read when it is opened, SYS_COLUMNS, SYS_INDEXES and
// SYS_FIELDS when a statement first needs them, each once however many tables are written.
type sysDict struct {
	s      discovery.Layout
	sys    *discovery.File
	tables []discovery.DictTable
	read   bool // cols, idxs and flds were read (or failed: readErr)
	cols   []discovery.DictColumn
	idxs   []discovery.DictIndex
	flds   []discovery.DictField
	// readErr is why SYS_COLUMNS, SYS_INDEXES or SYS_FIELDS could not be read.
	readErr error
}

// openSysDict opens the system tablespace of s and reads SYS_TABLES.
func openSysDict(s discovery.Layout) (*sysDict, error) {
	dir, sysName := s.SystemFile()
	sys, err := discovery.OpenFile(filepath.Join(dir, sysName))
	if err != nil {
		return nil, err
	}
	tables, err := discovery.ReadDictTables(sys)
	if err != nil {
		sys.Close()
		return nil, err
	}
	return &sysDict{s: s, sys: sys, tables: tables}, nil
}

func (d *sysDict) close() error { return d.sys.Close() }

// readRest reads SYS_COLUMNS, SYS_INDEXES and SYS_FIELDS, once.
func (d *sysDict) readRest() error {
	if !d.read {
		d.read = true
		if d.cols, d.readErr = discovery.ReadDictColumns(d.sys); d.readErr == nil {
			if d.idxs, d.readErr = discovery.ReadDictIndexes(d.sys); d.readErr == nil {
				d.flds, d.readErr = discovery.ReadDictFields(d.sys)
			}
		}
	}
	return d.readErr
}

// create is CreateTableDict of table db.name.
func (sd *sysDict) create(db, name string) (string, error) {
	sys := sd.sys
	full := FileName(db) + "/" + FileName(name)
	var dt *discovery.DictTable
	for i := range sd.tables {
		if !sd.tables[i].Deleted && sd.tables[i].Name == full {
			dt = &sd.tables[i]
		}
	}
	if dt == nil {
		return "", fmt.Errorf("%s: no table %s.%s in SYS_TABLES (and no .frm in %s): not an InnoDB table of this data directory", sys.Path, db, name, filepath.Join(sd.s.Datadir, FileName(db)))
	}
	if err := sd.readRest(); err != nil {
		return "", err
	}
	cols, idxs, flds := sd.cols, sd.idxs, sd.flds
	var dcols []discovery.DictColumn
	for _, c := range cols {
		if c.TableID == dt.ID && !c.Deleted {
			dcols = append(dcols, c)
		}
	}
	sort.Slice(dcols, func(i, j int) bool { return dcols[i].Pos < dcols[j].Pos })
	var keys []discovery.DictIndex
	fts := false
	for _, x := range idxs {
		if x.TableID == dt.ID && !x.Deleted {
			keys = append(keys, x)
			fts = fts || x.Type&32 != 0 // DICT_FTS
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].ID < keys[j].ID })
	d := &frmTableDef{}
	width := map[string]int{} // a column's character width, for its prefixes
	var lines []string
	var bad []string
	for _, c := range dcols {
		if c.Virtual() {
			bad = append(bad, c.Name+" (a VIRTUAL column: its expression is in the .frm only)")
			continue
		}
		if fts && c.Name == "FTS_DOC_ID" {
			continue // InnoDB's hidden column of a FULLTEXT index
		}
		t, err := SQLTypeOf(c)
		if err != nil {
			bad = append(bad, c.Name)
			continue
		}
		dictDisplay(&t, c)
		fc := FrmColumn{Name: c.Name, SQLType: t}
		typ, err := d.typeName(fc)
		if err != nil {
			bad = append(bad, c.Name)
			continue
		}
		l := QuoteName(c.Name) + " " + typ
		if hasCharset(fc) {
			cs, coll, ok := mariaCollation(fc.Charset)
			if !ok {
				bad = append(bad, c.Name)
				continue
			}
			l += " CHARACTER SET " + cs + " COLLATE " + coll
			_, width[strings.ToLower(c.Name)] = mariaWidth(fc.Charset)
		}
		if c.PRType&DataNotNull != 0 {
			l += " NOT NULL"
		}
		lines = append(lines, "  "+l)
	}
	if len(bad) > 0 {
		return "", fmt.Errorf("%s: table %s.%s: the InnoDB dictionary does not describe the type of %s whole (the .frm is gone): give its CREATE TABLE from a backup, or read its rows with `innoscope undrop DIR %s.%s --schema FILE.sql`", sys.Path, db, name, strings.Join(bad, ", "), db, name)
	}
	for _, x := range keys {
		if x.Name == "GEN_CLUST_INDEX" || fts && x.Name == "FTS_DOC_ID_INDEX" {
			continue
		}
		var kf []discovery.DictField
		for _, f := range flds {
			if f.IndexID == x.ID && !f.Deleted {
				kf = append(kf, f)
			}
		}
		sort.Slice(kf, func(i, j int) bool { return kf[i].Pos < kf[j].Pos })
		var parts []string
		for i, f := range kf {
			p := QuoteName(f.ColName)
			prefix, desc := keyField(f, i == 0) // in bytes
			if prefix > 0 {
				if w := width[strings.ToLower(f.ColName)]; w > 0 {
					prefix /= w
				}
				p += fmt.Sprintf("(%d)", prefix)
			}
			if desc {
				p += " DESC"
			}
			parts = append(parts, p)
		}
		cols := "(" + strings.Join(parts, ",") + ")"
		switch {
		case x.Type&IndexClustered != 0 && x.Name == "PRIMARY":
			lines = append(lines, "  PRIMARY KEY "+cols)
		case x.Type&32 != 0:
			lines = append(lines, "  FULLTEXT KEY "+QuoteName(x.Name)+" "+cols)
		case x.Type&64 != 0: // DICT_SPATIAL
			lines = append(lines, "  SPATIAL KEY "+QuoteName(x.Name)+" "+cols)
		case x.Type&IndexUnique != 0:
			lines = append(lines, "  UNIQUE KEY "+QuoteName(x.Name)+" "+cols)
		default:
			lines = append(lines, "  KEY "+QuoteName(x.Name)+" "+cols)
		}
	}
	rf := "REDUNDANT"
	switch {
	case !dt.Compact:
	case dt.Type>>1&15 != 0: // ZIP_SSIZE: pages of 512 << ssize bytes
		rf = fmt.Sprintf("COMPRESSED KEY_BLOCK_SIZE=%d", (512<<(dt.Type>>1&15))>>10)
	case dt.Type&(1<<5) != 0:
		rf = "DYNAMIC"
	default:
		rf = "COMPACT"
	}
	if dt.Type&(1<<7) != 0 { // DICT_TF_MASK_PAGE_COMPRESSION, its level in the next 4 bits
		rf += " `page_compressed`='1'"
		if lvl := dt.Type >> 8 & 15; lvl != 0 {
			rf += fmt.Sprintf(" `page_compression_level`='%d'", lvl)
		}
	}
	return "/* from the InnoDB dictionary (SYS_*): the .frm is gone; defaults, AUTO_INCREMENT, comments and the table's default character set are not kept there */\n" +
		"CREATE TABLE " + QuoteName(discovery.SQLName(FileName(name))) + " (\n" + strings.Join(lines, ",\n") + "\n) ENGINE=InnoDB ROW_FORMAT=" + rf, nil
}

// dictDisplay sets what the dictionary does not keep of t to what the server takes when a
// statement does not say it: an integer's display width (int(11), int(10) unsigned, ...), and
// from SYS_COLUMNS.LEN of a BLOB or TEXT column (its pack length: 8 plus the 1 to 4 bytes of
// its length) whether it is TINY, plain, MEDIUM or LONG.
func dictDisplay(t *SQLType, c discovery.DictColumn) {
	widths := map[byte][2]int{MyTiny: {4, 3}, MyShort: {6, 5}, MyInt24: {9, 8}, MyLong: {11, 10}, MyLongLong: {20, 20}}
	if w, ok := widths[t.Type]; ok {
		t.Length = w[btoi(t.Unsigned())]
	}
	if t.Type == MyBlob && c.Len >= 9 && c.Len <= 12 {
		t.PackFlag |= uint16(c.Len-8) << 3
	}
}
