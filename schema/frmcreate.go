package schema

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// More of the .frm than ReadFrm reads (open_binary_frm, sql/table.cc of MariaDB 10.11), for the
// CREATE TABLE statement: in the header, the default record's length (bytes 16-17), the table
// options (30-31: HA_OPTION_PACK_RECORD = 1 decides whether the NULL bits start at bit 0 or 1),
// the default character set (38, high byte 41) and the ROW_FORMAT given (40); the default record
// follows the key section (its offset: bytes 6-7 plus the length in bytes 14-15, or a 4-byte
// one at 47 when that is 0xffff): the NULL bits, then each field at its position (bytes 5-7 of
// its 17-byte definition, 1-based), in the server's record format (integers little-endian,
// VARCHAR with a 1- or 2-byte length, the temporal and DECIMAL types as InnoDB stores them).
// Byte 10 of a field's definition is its unireg_check (15: AUTO_INCREMENT; 22, 23: ON UPDATE
// CURRENT_TIMESTAMP); pack flag 0x4000 (FIELDFLAG_NO_DEFAULT) marks a column without DEFAULT,
// 0x8000 a nullable one, 4 ZEROFILL. The expressions (kind 0 VIRTUAL, 1 STORED, 2 DEFAULT, 3 a
// column's CHECK, 4 a table's CHECK) hold their SQL text.

// frmTableDef is what CreateTableFrm needs of a .frm.
type frmTableDef struct {
	cols     []FrmColumn
	keys     []FrmKey
	recpos   []int
	unireg   []byte
	exprs    map[int]map[byte]string // field -> kind -> expression
	checks   []string                // table CHECK constraints: "name\x00expr"
	parts    string                  // the partitioning clause (" PARTITION BY ...")
	engine   string                  // the storage engine's name ("" when the .frm names none)
	defaults []byte
	nullBit0 int
	charset  int
	rowType  byte
	options  string // the engine-defined table options, as SHOW CREATE TABLE writes them
}

// CreateTableFrm writes the CREATE TABLE statement of the table whose .frm is path, in the form
// of MariaDB's SHOW CREATE TABLE (store_create_info, sql_show.cc): what the .frm holds. What it
// does not (foreign keys, which InnoDB keeps; the AUTO_INCREMENT counter) is left out; a
// default of a type it does not render is an error, never a wrong statement.
func CreateTableFrm(path, table string) (string, error) {
	b, err := readFrmImage(path)
	if err != nil {
		return "", err
	}
	return createTableFrm(b, path, table)
}

func createTableFrm(b []byte, path, table string) (string, error) {
	d, err := parseFrmDef(b, path)
	if err != nil {
		return "", err
	}
	if e := d.engine; e != "" && e != "InnoDB" && e != "partition" || e == "" && b[3] != legacyInnoDB {
		return "", fmt.Errorf("%s: a table of the %s engine (byte 3: %d): innoscope writes the statements of InnoDB tables", path, e, b[3])
	}
	var lines []string
	nullIdx := d.nullBit0
	for i, c := range d.cols {
		nb := -1
		if c.PackFlag&fieldMaybeNull != 0 {
			nb, nullIdx = nullIdx, nullIdx+1
		}
		l, err := d.columnDef(i, nb)
		if err != nil {
			return "", fmt.Errorf("%s: column %s: %v", path, c.Name, err)
		}
		lines = append(lines, "  "+l)
	}
	for _, k := range d.keys {
		lines = append(lines, "  "+d.keyDef(k))
	}
	for _, c := range d.checks {
		name, expr, _ := strings.Cut(c, "\x00")
		lines = append(lines, "  CONSTRAINT "+QuoteName(name)+" CHECK ("+expr+")")
	}
	s := "CREATE TABLE " + QuoteName(table) + " (\n" + strings.Join(lines, ",\n") + "\n) ENGINE=InnoDB"
	cs, coll, ok := mariaCollation(d.charset)
	if !ok {
		return "", fmt.Errorf("%s: the table's collation id %d is not one innoscope names", path, d.charset)
	}
	s += " DEFAULT CHARSET=" + cs + " COLLATE=" + coll
	if rf, ok := rowFormats[int(d.rowType)]; ok {
		s += " ROW_FORMAT=" + rf
	}
	s += d.options
	if d.parts != "" {
		s += "\n" + d.parts
	}
	return s, nil
}

func parseFrmDef(b []byte, path string) (*frmTableDef, error) {
	le := binary.LittleEndian
	cols, err := parseFrm(b, path)
	if err != nil {
		return nil, err
	}
	keys, err := parseFrmKeys(b, path)
	if err != nil {
		return nil, err
	}
	d := &frmTableDef{cols: cols, keys: keys, exprs: map[int]map[byte]string{}}
	d.charset, d.rowType = int(b[38])|int(b[41])<<8, b[40]
	if at := frmHeader + int(le.Uint16(b[4:])); at <= len(b) {
		d.options = engineTableOptions(b[frmHeader:at])
	}
	if le.Uint16(b[30:])&1 == 0 { // no HA_OPTION_PACK_RECORD: bit 0 is the delete mark
		d.nullBit0 = 1
	}
	keyLen := int(le.Uint16(b[14:]))
	if keyLen == 0xffff && len(b) >= 51 {
		keyLen = int(le.Uint32(b[47:]))
	}
	recAt, recLen := int(le.Uint16(b[6:]))+keyLen, int(le.Uint16(b[16:]))
	if recAt+recLen > len(b) {
		return nil, fmt.Errorf("%s: offset %d: default record of %d bytes runs past the end", path, recAt, recLen)
	}
	d.defaults = b[recAt : recAt+recLen]
	// After the default record: the connection string and the engine name (a 2-byte length
	// each), then for the partition engine the partitioning clause (a 4-byte length).
	if x := b[recAt+recLen:]; len(x) >= 2 {
		n := int(le.Uint16(x))
		if x = x[2+min(n, len(x)-2):]; len(x) >= 2 {
			n = int(le.Uint16(x))
			if 2+n <= len(x) {
				d.engine = string(x[2 : 2+n])
			}
			if 2+n <= len(x) && string(x[2:2+n]) == "partition" && len(x) >= 2+n+4 {
				x = x[2+n:]
				if m := int(le.Uint32(x)); m > 0 && 4+m <= len(x) {
					d.parts = string(x[4 : 4+m])
				}
			}
		}
	}
	at := frmHeader + int(le.Uint16(b[4:]))
	fi := int(le.Uint32(b[at:]))
	n := len(cols)
	recs := fi + frmFormInfo + int(le.Uint16(b[fi+260:]))
	for i := 0; i < n; i++ {
		r := b[recs+i*frmFieldPack:]
		d.recpos = append(d.recpos, int(r[5])|int(r[6])<<8|int(r[7])<<16)
		d.unireg = append(d.unireg, r[10])
	}
	nameLen, intLen, comLen := int(le.Uint16(b[fi+268:])), int(le.Uint16(b[fi+274:])), int(le.Uint16(b[fi+284:]))
	vcol, vcolLen := recs+n*frmFieldPack+nameLen+intLen+comLen, int(le.Uint16(b[fi+286:]))
	if vcolLen > 0 && vcol+vcolLen <= len(b) {
		for at, end := vcol+16, vcol+vcolLen; at+6 <= end; {
			kind, nr := b[at], int(le.Uint16(b[at+1:]))
			el, nl := int(le.Uint16(b[at+3:])), int(b[at+5])
			next := at + 6 + el + nl
			if next > end {
				return nil, fmt.Errorf("%s: offset %d: expression runs past the end", path, at)
			}
			name, expr := string(b[at+6:at+6+nl]), string(b[at+6+nl:next])
			switch {
			case kind == 4:
				d.checks = append(d.checks, name+"\x00"+expr)
			case nr < n:
				if d.exprs[nr] == nil {
					d.exprs[nr] = map[byte]string{}
				}
				d.exprs[nr][kind] = expr
			}
			at = next
		}
	}
	return d, nil
}

// columnDef is one column of the statement; nb is its NULL bit in the default record (-1:
// NOT NULL).
func (d *frmTableDef) columnDef(i, nb int) (string, error) {
	c := d.cols[i]
	typ, err := d.typeName(c)
	if err != nil {
		return "", err
	}
	s := QuoteName(c.Name) + " " + typ
	if hasCharset(c) && c.Charset != d.charset {
		cs, coll, ok := mariaCollation(c.Charset)
		if !ok {
			return "", fmt.Errorf("collation id %d is not one innoscope names", c.Charset)
		}
		s += " CHARACTER SET " + cs + " COLLATE " + coll
	}
	ex := d.exprs[i]
	if e, ok := ex[0]; ok {
		return s + " GENERATED ALWAYS AS (" + e + ") VIRTUAL", nil
	}
	if e, ok := ex[1]; ok {
		return s + " GENERATED ALWAYS AS (" + e + ") STORED", nil
	}
	if nb < 0 {
		s += " NOT NULL"
	} else if c.Type == MyTimestamp2 {
		s += " NULL"
	}
	now := "current_timestamp()"
	if fsp := c.Length - 20; (c.Type == MyTimestamp2 || c.Type == MyDatetime2) && fsp > 0 {
		now = fmt.Sprintf("current_timestamp(%d)", fsp)
	}
	switch {
	case d.unireg[i] == 15: // NEXT_NUMBER
		s += " AUTO_INCREMENT"
	case d.unireg[i] == 21 || d.unireg[i] == 23: // TIMESTAMP_DN_FIELD, TIMESTAMP_DNUN_FIELD
		s += " DEFAULT " + now
	case ex[2] != "":
		s += " DEFAULT " + ex[2]
	case c.PackFlag&0x4000 != 0: // FIELDFLAG_NO_DEFAULT
	case nb >= 0 && d.defaults[nb/8]&(1<<(nb%8)) != 0:
		s += " DEFAULT NULL"
	default:
		v, err := d.defaultValue(i)
		if err != nil {
			return "", err
		}
		s += " DEFAULT " + v
	}
	if d.unireg[i] == 22 || d.unireg[i] == 23 {
		s += " ON UPDATE " + now
	}
	if e, ok := ex[3]; ok {
		s += " CHECK (" + e + ")"
	}
	return s, nil
}

func hasCharset(c FrmColumn) bool {
	return (isStringType(c.Type) || c.Type == MyEnum || c.Type == MySet) && c.Charset != 63
}

// typeName is the column's type as SHOW CREATE TABLE spells it.
func (d *frmTableDef) typeName(c FrmColumn) (string, error) {
	_, mb := mariaWidth(c.Charset)
	sign := ""
	if c.Unsigned() {
		sign = " unsigned"
	}
	if c.PackFlag&4 != 0 {
		sign += " zerofill"
	}
	switch c.Type {
	case MyTiny:
		return fmt.Sprintf("tinyint(%d)%s", c.Length, sign), nil
	case MyShort:
		return fmt.Sprintf("smallint(%d)%s", c.Length, sign), nil
	case MyInt24:
		return fmt.Sprintf("mediumint(%d)%s", c.Length, sign), nil
	case MyLong:
		return fmt.Sprintf("int(%d)%s", c.Length, sign), nil
	case MyLongLong:
		return fmt.Sprintf("bigint(%d)%s", c.Length, sign), nil
	case MyNewDecimal:
		scale := c.Decimals()
		prec := c.Length - btoi(scale > 0) - btoi(!c.Unsigned())
		return fmt.Sprintf("decimal(%d,%d)%s", prec, scale, sign), nil
	case MyFloat, MyDouble:
		name := map[byte]string{MyFloat: "float", MyDouble: "double"}[c.Type]
		if dec := c.Decimals(); dec < notFixedDecimals {
			name += fmt.Sprintf("(%d,%d)", c.Length, dec)
		}
		return name + sign, nil
	case MyNewDate:
		return "date", nil
	case MyYear:
		return "year(4)", nil
	case MyDatetime2, MyTimestamp2, MyTime2:
		base, width := map[byte]string{MyDatetime2: "datetime", MyTimestamp2: "timestamp", MyTime2: "time"}[c.Type], 19
		if c.Type == MyTime2 {
			width = 10
		}
		if fsp := c.Length - width - 1; fsp > 0 {
			return fmt.Sprintf("%s(%d)", base, fsp), nil
		}
		return base, nil
	case MyVarchar, MyVarString:
		if c.Charset == 63 {
			return fmt.Sprintf("varbinary(%d)", c.Length), nil
		}
		return fmt.Sprintf("varchar(%d)", c.Length/mb), nil
	case MyString:
		if c.Charset == 63 {
			return fmt.Sprintf("binary(%d)", c.Length), nil
		}
		return fmt.Sprintf("char(%d)", c.Length/mb), nil
	case MyBlob, MyTinyBlob, MyMediumBlob, MyLongBlob:
		size := int(c.PackFlag>>3) & 15 // the length bytes: 1 tiny, 2, 3 medium, 4 long
		if c.Type != MyBlob {
			size = map[byte]int{MyTinyBlob: 1, MyMediumBlob: 3, MyLongBlob: 4}[c.Type]
		}
		names := [5]string{"", "tinytext", "text", "mediumtext", "longtext"}
		if c.Charset == 63 {
			names = [5]string{"", "tinyblob", "blob", "mediumblob", "longblob"}
		}
		if size < 1 || size > 4 {
			return "", fmt.Errorf("BLOB of %d length bytes", size)
		}
		return names[size], nil
	case MyEnum, MySet:
		q := make([]string, len(c.Labels))
		for i, l := range c.Labels {
			q[i] = quoteString(l)
		}
		return map[byte]string{MyEnum: "enum", MySet: "set"}[c.Type] + "(" + strings.Join(q, ",") + ")", nil
	case MyBit:
		return fmt.Sprintf("bit(%d)", c.Length), nil
	}
	return "", fmt.Errorf("MySQL type %d is not rendered", c.Type)
}

// keyDef is one key of the statement.
func (d *frmTableDef) keyDef(k FrmKey) string {
	var s string
	switch {
	case k.Name == "PRIMARY":
		s = "PRIMARY KEY"
	case k.Flags&0x80 != 0: // HA_FULLTEXT
		s = "FULLTEXT KEY " + QuoteName(k.Name)
	case k.Flags&0x400 != 0: // HA_SPATIAL
		s = "SPATIAL KEY " + QuoteName(k.Name)
	case k.Unique:
		s = "UNIQUE KEY " + QuoteName(k.Name)
	default:
		s = "KEY " + QuoteName(k.Name)
	}
	var parts []string
	for _, p := range k.Parts {
		if p.Field >= len(d.cols) {
			continue
		}
		c := d.cols[p.Field]
		q := QuoteName(c.Name)
		if kl := keyLength(c); p.Length < kl && k.Flags&(0x80|0x400) == 0 {
			_, mb := mariaWidth(c.Charset)
			q += fmt.Sprintf("(%d)", p.Length/mb)
		}
		if p.Desc {
			q += " DESC"
		}
		parts = append(parts, q)
	}
	return s + " (" + strings.Join(parts, ",") + ")"
}

// mariaCollation is the character set and name of MariaDB collation id (collation_names.go).
func mariaCollation(id int) (string, string, bool) {
	n, ok := mariaCollations[id]
	return n[0], n[1], ok
}

// mariaWidth is the minimum and maximum bytes per character of MariaDB collation id (1, 1
// for an id MariaDB does not have; the minimum is 1 for every character set here).
func mariaWidth(id int) (int, int) {
	cs, _, _ := mariaCollation(id)
	if n := charsetMaxLen[cs]; n > 0 {
		return 1, n
	}
	return 1, 1
}
