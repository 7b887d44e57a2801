package schema

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"innoscope/internal/regular"
)

// SQLType is a column's SQL type, as a table's .frm file describes it: what the InnoDB
// dictionary does not say (the display type, DECIMAL scale, fractional-second digits, ENUM/SET
// labels).
type SQLType struct {
	Type     byte // the MySQL real type code (enum_field_types), e.g. 18 DATETIME2, 246 NEWDECIMAL
	Length   int  // the display length in bytes (field_length)
	PackFlag uint16
	Charset  int      // collation id
	Labels   []string // ENUM/SET labels, in order
	// Generated: a generated column (VIRTUAL, or STORED/PERSISTENT), whose value the server
	// computes: `--format sql` writes DEFAULT for it.
	Generated bool
	// DataType names the data type plugin of the column ("uuid", "inet4", "inet6", "vector"),
	// from the extra2 segment (datatype.go); "" for a built-in type.
	DataType string
}

// FrmColumn is one column of a .frm file: its name and SQL type.
type FrmColumn struct {
	Name string
	SQLType
	// Virtual: a VIRTUAL generated column (not stored; Generated is also set).
	Virtual bool
}

// Decimals is the number of decimals in the field's pack flag (f_decimals).
func (f SQLType) Decimals() int { return int(f.PackFlag>>8) & 63 }

// Unsigned reports a numeric field without FIELDFLAG_DECIMAL (the "signed" flag).
func (f SQLType) Unsigned() bool { return f.PackFlag&1 == 0 }

// The .frm layout read here (sql/table.cc, unireg.h): a 64-byte header whose bytes 4-5 give the
// length of the "extra2" segment that follows it; after that segment, 4 bytes give the offset of
// the 288-byte form information block. In it: the number of fields at +258, the length of the
// (obsolete) screens at +260, of the field names at +268, of the ENUM/SET label lists at +274.
// After the block and the screens come 17 bytes per field, then the names (each preceded by a
// separator byte, 0xff), then the label lists (each label preceded by the list's separator byte,
// each list ended by a NUL), the comments (length at +284) and the expressions (length at +286:
// 16 bytes, then per expression its kind (0 virtual, 1 stored generated column, others defaults
// and checks), the field number and the expression length in 2 bytes each, the name length in 1,
// the name and the expression). Nothing else of the file is read.
const (
	frmHeader    = 64
	frmFormInfo  = 288
	frmFieldPack = 17
)

// frmMaxSize is FRM_MAX_SIZE (sql/unireg.h): the server reads at most this much of a .frm.
const frmMaxSize = 1 << 20

// ReadFrm reads the column list of a .frm file: each column's name and SQL type.
func ReadFrm(path string) ([]FrmColumn, error) {
	b, err := readFrmImage(path)
	if err != nil {
		return nil, err
	}
	return parseFrm(b, path)
}

// readFrmImage returns what the server reads of the .frm at path (open_table_def): the length
// its header gives at offset 10, at most frmMaxSize bytes, whatever the file's size (a sparse
// file of gigabytes costs a MiB). Anything but a regular file is refused without blocking.
func readFrmImage(path string) ([]byte, error) {
	b, err := regular.ReadAtMost(path, frmMaxSize)
	if err != nil {
		return nil, err
	}
	if len(b) >= frmHeader {
		if n := int(binary.LittleEndian.Uint32(b[10:])); n >= frmHeader && n < len(b) {
			b = b[:n]
		}
	}
	return b, nil
}

func parseFrm(b []byte, path string) ([]FrmColumn, error) {
	le := binary.LittleEndian
	bad := func(off int, what string) error { return fmt.Errorf("%s: offset %d: %s", path, off, what) }
	if len(b) < frmHeader+6 || b[0] != 0xfe || b[1] != 1 {
		return nil, bad(0, "not a .frm file")
	}
	at := frmHeader + int(le.Uint16(b[4:]))
	if at+4 > len(b) {
		return nil, bad(4, "extra2 segment runs past the end")
	}
	types := readExtra2Types(b[frmHeader:at])
	fi := int(le.Uint32(b[at:]))
	if fi <= 0 || fi+frmFormInfo > len(b) {
		return nil, bad(at, fmt.Sprintf("form information offset %d out of range", fi))
	}
	n := int(le.Uint16(b[fi+258:]))
	screens := int(le.Uint16(b[fi+260:]))
	nameLen := int(le.Uint16(b[fi+268:]))
	intLen := int(le.Uint16(b[fi+274:]))
	comLen := int(le.Uint16(b[fi+284:]))
	vcolLen := int(le.Uint16(b[fi+286:]))
	recs := fi + frmFormInfo + screens
	names := recs + n*frmFieldPack
	ints := names + nameLen
	if ints+intLen > len(b) {
		return nil, bad(fi, fmt.Sprintf("%d fields run past the end", n))
	}
	nameList := splitSep(b[names : names+nameLen])
	if len(nameList) < n {
		return nil, bad(names, fmt.Sprintf("%d names for %d fields", len(nameList), n))
	}
	var lists [][]string
	for rest := b[ints : ints+intLen]; len(rest) > 0; {
		end := bytes.IndexByte(rest, 0)
		if end < 0 {
			end = len(rest)
		}
		lists = append(lists, splitSep(rest[:end]))
		rest = rest[min(end+1, len(rest)):]
	}
	out := make([]FrmColumn, n)
	for i := range out {
		r := b[recs+i*frmFieldPack:]
		f := FrmColumn{Name: nameList[i], SQLType: SQLType{Length: int(le.Uint16(r[3:])), PackFlag: le.Uint16(r[8:]), Type: r[13], DataType: types[i]}}
		if f.Type != 255 { // geometry keeps its sub-type there
			f.Charset = int(r[14]) | int(r[11])<<8
		}
		if k := int(r[12]); k > 0 {
			if k > len(lists) {
				return nil, bad(recs+i*frmFieldPack+12, fmt.Sprintf("field %s: label list %d of %d", f.Name, k, len(lists)))
			}
			f.Labels = lists[k-1]
		}
		out[i] = f
	}
	vcol := ints + intLen + comLen
	if vcolLen > 0 && vcol+vcolLen <= len(b) {
		for at, end := vcol+16, vcol+vcolLen; at+6 <= end; {
			kind, nr := b[at], int(le.Uint16(b[at+1:]))
			next := at + 6 + int(le.Uint16(b[at+3:])) + int(b[at+5])
			if next > end {
				return nil, bad(at, "expression runs past the end")
			}
			if kind <= 1 && nr < n {
				out[nr].Generated, out[nr].Virtual = true, kind == 0
			}
			at = next
		}
	}
	return out, nil
}

// splitSep splits a separator-led list: its first byte is the separator, which also ends it.
func splitSep(s []byte) []string {
	if len(s) < 2 {
		return nil
	}
	sep := s[0]
	parts := bytes.Split(s[1:], []byte{sep})
	if len(parts) > 0 && len(parts[len(parts)-1]) == 0 {
		parts = parts[:len(parts)-1]
	}
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = string(p)
	}
	return out
}

// legacyInnoDB is DB_TYPE_INNODB, the storage engine code in byte 3 of the .frm of an InnoDB
// table (a partitioned table has the partition engine's code there).
const legacyInnoDB = 12

// FrmColumns reads the .frm file at path and reports whether it defines an InnoDB table (not
// partitioned) and how many columns it has (VIRTUAL ones included).
func FrmColumns(path string) (innodb bool, columns int, err error) {
	b, err := readFrmImage(path)
	if err != nil {
		return false, 0, err
	}
	f, err := parseFrm(b, path)
	if err != nil {
		return false, 0, err
	}
	return b[3] == legacyInnoDB, len(f), nil
}
