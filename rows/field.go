package rows

import (
	"fmt"

	"innoscope/schema"
)

// FieldValueAs formats b, the stored bytes of the clustered index field pos (its place in the
// index: the key, DB_TRX_ID, DB_ROLL_PTR, then the other columns), as the server prints the
// value, and names the field's column. The index is laid out as it was when img was read (an
// instant DROP or reorder changes the physical field positions an undo record gives; nil: as
// the dictionary gives it). A system field is named and given as a number; pos outside the
// index, or a column an instant ALTER dropped, is an error.
func (t *Table) FieldValueAs(img *RecordImage, pos int, b []byte) (name, val string, err error) {
	fields := t.fields
	if img != nil && img.flds != nil {
		fields = img.flds
	}
	if pos < 0 || pos >= len(fields) {
		return "", "", fmt.Errorf("%s: field %d: the clustered index has %d fields", t.Shown, pos, len(fields))
	}
	f := fields[pos]
	if f.col < 0 && pos >= t.nUniq+2 {
		return f.name, "", fmt.Errorf("%s: field %d is a column an instant ALTER dropped", t.Shown, pos)
	}
	if f.col < 0 {
		if f.fixed != 0 && len(b) != f.fixed {
			return f.name, "", fmt.Errorf("%s: field %s: %d bytes, not %d", t.Shown, f.name, len(b), f.fixed)
		}
		return f.name, fmt.Sprint(beUint(b)), nil
	}
	out, err := format(nil, &t.Cols[f.col], b, t.TimeZone)
	if err != nil {
		return f.name, "", err
	}
	return f.name, string(out), nil
}

// FieldBinaryAs reports whether the clustered index field pos (laid out as FieldValueAs says)
// holds bytes a statement gives as a hexadecimal literal (BIT, binary strings), as --format
// sql writes them.
func (t *Table) FieldBinaryAs(img *RecordImage, pos int) bool {
	fields := t.fields
	if img != nil && img.flds != nil {
		fields = img.flds
	}
	if pos < 0 || pos >= len(fields) || fields[pos].col < 0 {
		return false
	}
	c := t.Cols[fields[pos].col]
	return c.SQL.Type == schema.MyBit || isString(c.SQL.Type) && charsetOf(schema.Collation(c.InnoDB.PRType)) == csBinary &&
		(c.SQL.DataType == "" || c.SQL.DataType == "vector")
}
