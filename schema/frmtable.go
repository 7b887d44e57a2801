package schema

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"

	"innoscope/discovery"
)

// FromFrmFile reads the definition of the table whose tablespace is the file ibd from its .frm
// file frm alone (no system tablespace, no redo log): the columns and their SQL types and keys
// from the .frm, the InnoDB types derived from them as the server derives them
// (get_innobase_type_from_mysql_type, ha_innodb.cc), the clustered index from the file itself
// (clusteredRoot). The row format is the one the root page's records have.
func FromFrmFile(ibd, frm string) (*Table, error) {
	b, err := readFrmImage(frm)
	if err != nil {
		return nil, err
	}
	cols, err := parseFrm(b, frm)
	if err != nil {
		return nil, err
	}
	keys, err := parseFrmKeys(b, frm)
	if err != nil {
		return nil, err
	}
	f, err := discovery.OpenFile(ibd)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	root, id, compact, err := clusteredRoot(f)
	if err != nil {
		return nil, err
	}
	if err := checkIndexCount(f, keys, cols, frm); err != nil {
		return nil, err
	}
	if err := checkFrmKind(f, frm, b, compact); err != nil {
		return nil, err
	}
	db := dirName(ibd)
	name := strings.TrimSuffix(filepath.Base(ibd), ".ibd")
	sqlDB, sqlName := discovery.SQLName(db), discovery.SQLName(TableOf(name))
	t := &Table{Name: db + "/" + name, DB: sqlDB, TableName: sqlName, Shown: sqlDB + "." + sqlName, File: ibd, Frm: frm,
		SpaceID: f.FSP.SpaceID, Compact: compact}
	t.Clustered = Index{Name: "GEN_CLUST_INDEX", ID: id, Root: root, Type: IndexClustered}
	stored := map[int]int{} // .frm field -> Cols index
	for i, c := range cols {
		if c.Virtual {
			t.Virtual = append(t.Virtual, c.Name)
			continue
		}
		dc, err := frmInnoDB(c, uint32(len(t.Cols)))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", frm, err)
		}
		stored[i] = len(t.Cols)
		t.Cols = append(t.Cols, Column{Name: c.Name, SQL: c.SQLType, InnoDB: dc})
	}
	if hasFulltext(keys) && !hasColumn(cols, "FTS_DOC_ID") {
		// InnoDB adds the hidden FTS_DOC_ID (BIGINT UNSIGNED NOT NULL) after the table's columns.
		t.HiddenCols = append(t.HiddenCols, len(t.Cols))
		t.Cols = append(t.Cols, Column{Name: "FTS_DOC_ID", SQL: SQLType{Type: MyLongLong, Length: 20},
			InnoDB: discovery.DictColumn{Pos: uint32(len(t.Cols)), Name: "FTS_DOC_ID", MType: DataInt, Len: 8,
				PRType: MyLongLong | DataNotNull | DataUnsigned}})
	}
	if pk := primaryKey(keys, cols); pk != nil {
		t.Clustered.Name, t.Clustered.Type = pk.Name, IndexClustered|IndexUnique
		for _, p := range pk.Parts {
			k, ok := stored[p.Field]
			if p.Field >= len(cols) || !ok {
				return nil, fmt.Errorf("%s: key %s: field %d is not a stored column", frm, pk.Name, p.Field+1)
			}
			t.PK = append(t.PK, k)
			prefix := 0
			if p.Length < keyLength(cols[p.Field]) {
				prefix = p.Length
			}
			t.Clustered.Fields = append(t.Clustered.Fields, IndexField{Col: cols[p.Field].Name, Prefix: prefix, Desc: p.Desc})
		}
	}
	return t, nil
}

// primaryKey is the key InnoDB clusters the table by: PRIMARY, else the first UNIQUE key of
// NOT NULL whole columns (nil: none, the rows are ordered by DB_ROW_ID).
func primaryKey(keys []FrmKey, cols []FrmColumn) *FrmKey {
	for i := range keys {
		if keys[i].Name == "PRIMARY" {
			return &keys[i]
		}
	}
next:
	for i := range keys {
		if !keys[i].Unique {
			continue
		}
		for _, p := range keys[i].Parts {
			if p.Field >= len(cols) || cols[p.Field].PackFlag&fieldMaybeNull != 0 || cols[p.Field].Virtual || p.Length < keyLength(cols[p.Field]) {
				continue next
			}
		}
		return &keys[i]
	}
	return nil
}

// fieldMaybeNull is FIELDFLAG_MAYBE_NULL in a .frm field's pack flag.
const fieldMaybeNull = 0x8000

// keyLength is the bytes a whole column takes in a key (a shorter key part is a prefix).
func keyLength(c FrmColumn) int {
	switch c.Type {
	case MyTinyBlob, MyMediumBlob, MyLongBlob, MyBlob, MyGeometry:
		return 1 << 30 // a key on a BLOB is always a prefix
	case MyVarchar, MyVarString, MyString:
		return c.Length
	}
	return 0
}

// frmInnoDB is the InnoDB column of .frm field c at position pos among the stored columns.
func frmInnoDB(c FrmColumn, pos uint32) (discovery.DictColumn, error) {
	dc := discovery.DictColumn{Pos: pos, Name: c.Name, Len: uint32(c.Length)}
	prtype := uint32(c.Type)
	if c.PackFlag&fieldMaybeNull == 0 {
		prtype |= DataNotNull
	}
	binary := c.Charset == 63
	switch c.Type {
	case MyTiny, MyShort, MyInt24, MyLong, MyLongLong:
		dc.MType, dc.Len = DataInt, uint32(map[byte]int{MyTiny: 1, MyShort: 2, MyInt24: 3, MyLong: 4, MyLongLong: 8}[c.Type])
		if c.Unsigned() {
			prtype |= DataUnsigned
		}
	case MyYear:
		dc.MType, dc.Len, prtype = DataInt, 1, prtype|DataUnsigned
	case MyNewDate:
		dc.MType, dc.Len = DataInt, 3
	case MyFloat:
		dc.MType, dc.Len = DataFloat, 4
	case MyDouble:
		dc.MType, dc.Len = DataDouble, 8
	case MyNewDecimal:
		scale := c.Decimals()
		prec := c.Length - btoi(scale > 0) - btoi(!c.Unsigned())
		dc.MType, dc.Len, prtype = DataFixBinary, uint32(decimalBinSize(prec, scale)), prtype|DataBinaryTyp
	case MyDatetime2, MyTimestamp2, MyTime2:
		width := 19
		base := map[byte]int{MyDatetime2: 5, MyTimestamp2: 4, MyTime2: 3}[c.Type]
		if c.Type == MyTime2 {
			width = 10
		}
		fsp := min(max(c.Length-width-1, 0), 6)
		dc.MType, dc.Len, prtype = DataFixBinary, uint32(base+(fsp+1)/2), prtype|DataBinaryTyp
	case MyBit:
		dc.MType, dc.Len, prtype = DataFixBinary, uint32((c.Length+7)/8), prtype|DataBinaryTyp
	case MyEnum:
		dc.MType, dc.Len, prtype = DataInt, 1, prtype|DataUnsigned
		if len(c.Labels) > 255 {
			dc.Len = 2
		}
	case MySet:
		n := uint32((len(c.Labels) + 7) / 8)
		if n > 4 {
			n = 8
		}
		dc.MType, dc.Len, prtype = DataInt, max(n, 1), prtype|DataUnsigned
	case MyVarchar, MyVarString:
		switch {
		case binary:
			dc.MType, prtype = DataBinary, prtype|DataBinaryTyp
		case c.Charset == 8:
			dc.MType = DataVarchar
		default:
			dc.MType = DataVarMySQL
		}
	case MyString:
		switch {
		case binary:
			dc.MType, prtype = DataFixBinary, prtype|DataBinaryTyp
		case c.Charset == 8:
			dc.MType = DataChar
		default:
			dc.MType = DataMySQL
		}
	case MyTinyBlob, MyMediumBlob, MyLongBlob, MyBlob:
		dc.MType, dc.Len = DataBlob, 10
		if binary {
			prtype |= DataBinaryTyp
		}
	case MyGeometry:
		dc.MType, dc.Len, prtype = DataGeometry, 12, prtype|DataBinaryTyp
	default:
		return dc, fmt.Errorf("column %s: MySQL type %d is not decoded without the dictionary", c.Name, c.Type)
	}
	if isStringType(c.Type) {
		prtype |= uint32(c.Charset) << 16
	}
	dc.PRType = prtype
	return dc, nil
}

// clusteredRoot finds the clustered index of a file-per-table tablespace from the file itself:
// page 3 (the first page the server allocates for the first index, the clustered one) when it
// is an index root (an INDEX or INSTANT page with no neighbours, whatever its checksum); else the index with the most
// leaf pages, and its root (the page of that index on the highest level). It returns the
// root's page number, the index id and whether the records are COMPACT (or later).
func clusteredRoot(f *discovery.File) (root uint32, id uint64, compact bool, err error) {
	be := binary.BigEndian
	if f.Pages() > 3 {
		// Page 3 typed as an index root is taken even when it fails its checksum: the walk
		// then reports it, rather than another index being read as the clustered one.
		p, err := f.ReadPage(3)
		if err == nil {
			p = logicalPage(f, p)
		}
		if err == nil && rootPage(p) {
			ip, err := discovery.ParseIndexPage(p)
			if err == nil {
				return 3, ip.IndexID, ip.Compact, nil
			}
		}
	}
	leaves := map[uint64]int{}
	type top struct {
		no      uint32
		level   uint16
		compact bool
	}
	tops := map[uint64]top{}
	err = f.EachPage(0, -1, func(no int64, p []byte) error {
		if discovery.CheckPage(p, f.FSP.Flags, uint32(no), f.FSP.SpaceID).Corrupt {
			return nil
		}
		p = logicalPage(f, p)
		if typ := be.Uint16(p[discovery.FilPageType:]); typ != 17855 && typ != 18 {
			return nil
		}
		ip, err := discovery.ParseIndexPage(p)
		if err != nil {
			return nil
		}
		if ip.Level == 0 {
			leaves[ip.IndexID]++
		}
		if t, ok := tops[ip.IndexID]; (!ok || ip.Level > t.level) && rootPage(p) {
			tops[ip.IndexID] = top{uint32(no), ip.Level, ip.Compact}
		}
		return nil
	})
	if err != nil {
		return 0, 0, false, err
	}
	best, n := uint64(0), 0
	for id, c := range leaves {
		if _, ok := tops[id]; ok && (c > n || c == n && id < best) {
			best, n = id, c
		}
	}
	if n == 0 {
		return 0, 0, false, fmt.Errorf("%s: page 3 is not an index root and no index page with a root was found: no clustered index to read", f.Path)
	}
	t := tops[best]
	return t.no, best, t.compact, nil
}

// logicalPage is page p of f as the server's buffer pool holds it: a MariaDB PAGE_COMPRESSED
// page decompressed (p itself when it is not one, or does not decompress).
func logicalPage(f *discovery.File, p []byte) []byte {
	if !discovery.IsPageCompressed(p, f.FSP.Flags) {
		return p
	}
	u, err := discovery.Decompress(p, f.FSP.Flags, f.FSP.Flags.PageSize)
	if err != nil {
		return p
	}
	return u
}

// rootPage: p is an INDEX (or MariaDB INSTANT) page without neighbours on its level.
func rootPage(p []byte) bool {
	be := binary.BigEndian
	typ := be.Uint16(p[discovery.FilPageType:])
	return (typ == 17855 || typ == 18) && be.Uint32(p[discovery.FilPagePrev:]) == 0xffffffff && be.Uint32(p[discovery.FilPageNext:]) == 0xffffffff
}

// hasFulltext: a key of keys is a FULLTEXT index (HA_FULLTEXT).
func hasFulltext(keys []FrmKey) bool {
	for _, k := range keys {
		if k.Flags&0x80 != 0 {
			return true
		}
	}
	return false
}

func hasColumn(cols []FrmColumn, name string) bool {
	for _, c := range cols {
		if strings.EqualFold(c.Name, name) {
			return true
		}
	}
	return false
}

// checkIndexCount refuses a .frm that defines more B-trees than the file holds (each index
// has pages of its own id: the clustered index, every key but a FULLTEXT one, and the
// FTS_DOC_ID_INDEX InnoDB adds for FULLTEXT). Pages of an index dropped long ago may still
// carry its id, so the file may hold more: only fewer is a mismatch.
func checkIndexCount(f *discovery.File, keys []FrmKey, cols []FrmColumn, frm string) error {
	want, pk, fts := 1, primaryKey(keys, cols), false
	for i := range keys {
		switch {
		case keys[i].Flags&0x80 != 0: // HA_FULLTEXT
			fts = true
		case pk != &keys[i]:
			want++
		}
	}
	if fts && !hasKey(keys, "FTS_DOC_ID_INDEX") {
		want++
	}
	ids, live := map[uint64]bool{}, map[uint64]bool{}
	var xdes []byte // the extent descriptor page of the pages being read
	f.EachPage(0, -1, func(no int64, p []byte) error {
		if f.FSP.Flags.ZipSize == 0 && f.XdesPage(no) == no {
			xdes = append(xdes[:0], p...)
		}
		p = logicalPage(f, p)
		if typ := binary.BigEndian.Uint16(p[discovery.FilPageType:]); typ == 17855 || typ == 18 || typ == 17854 {
			if ip, err := discovery.ParseIndexPage(p); err == nil {
				ids[ip.IndexID] = true
				if used, known := f.PageUsed(xdes, no); known && used {
					live[ip.IndexID] = true
				}
			}
		}
		return nil
	})
	if len(ids) < want || f.FSP.Flags.ZipSize == 0 && len(live) != want {
		return fmt.Errorf("%s: the .frm defines %d indexes, the file %s holds pages of %d (%d in use): the .frm is not this table's (give its own with --frm)", frm, want, f.Path, len(ids), len(live))
	}
	return nil
}

func hasKey(keys []FrmKey, name string) bool {
	for _, k := range keys {
		if strings.EqualFold(k.Name, name) {
			return true
		}
	}
	return false
}

// checkFrmKind refuses the .frm (its image b) when it defines another kind of table than the
// file is:
//   - a ROW_FORMAT the records contradict: REDUNDANT where they are in the COMPACT format (or the
//     reverse), COMPACT or DYNAMIC where the pages are compressed. A .frm that states none
//     (DEFAULT: the server's innodb_default_row_format chose) and COMPACT against DYNAMIC
//     (records alike; a full_crc32 file's flags do not tell them apart) are not judged, nor
//     COMPRESSED over an uncompressed file: a server that cannot compress (64 KiB pages, no
//     innodb_file_per_table) makes the table DYNAMIC, with a warning only when
//     innodb_strict_mode is off, and keeps the .frm's ROW_FORMAT;
//   - a partitioned table's for a file that is no partition's (t#P#p0.ibd);
//   - PAGE_COMPRESSED stated for a file whose pages are not (a file page-compressed under a
//     .frm that does not say so is not judged: innodb_compression_default makes such tables).
func checkFrmKind(f *discovery.File, frm string, b []byte, compact bool) error {
	if len(b) > 40 {
		if stated, ok := rowFormats[int(b[40])]; ok {
			zip := f.FSP.Flags.ZipSize != 0
			file := "COMPACT or DYNAMIC"
			switch {
			case !compact:
				file = "REDUNDANT"
			case zip:
				file = "COMPRESSED"
			}
			if (stated == "REDUNDANT") != !compact || zip && (stated == "COMPACT" || stated == "DYNAMIC") {
				return fmt.Errorf("%s states ROW_FORMAT=%s, the records of %s are %s: the .frm is not this table's (give its own with --frm)", frm, stated, f.Path, file)
			}
		}
	}
	d, err := parseFrmDef(b, frm)
	if err != nil {
		return nil
	}
	if (d.parts != "" || d.engine == "partition") && !strings.Contains(strings.ToUpper(filepath.Base(f.Path)), "#P#") {
		return fmt.Errorf("%s defines a partitioned table, %s is no partition's file (t#P#p0.ibd): the .frm is not this table's (give its own with --frm)", frm, f.Path)
	}
	if pc := strings.ToLower(d.options); (strings.Contains(pc, "`page_compressed`='1'") || strings.Contains(pc, "`page_compressed`='on'") || strings.Contains(pc, "`page_compressed`='yes'")) && !f.FSP.Flags.PageCompression {
		return fmt.Errorf("%s states PAGE_COMPRESSED, the pages of %s are not (its flags 0x%x): the .frm is not this table's (give its own with --frm)", frm, f.Path, f.FSP.Flags.Raw)
	}
	return nil
}
