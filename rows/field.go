package rows

import (
	"fmt"

	"innoscope/schema"
)

// FieldValue formats b, the stored bytes of the clustered index field pos (its place in the
// index as the dictionary gives it: the key, DB_TRX_ID, DB_ROLL_PTR, then the other columns),
// as the server prints the value, and names the field's column. A system field is named and
// given as a number; pos outside the index is an error.
func (t *Table) FieldValue(pos int, b []byte) (name, val string, err error) {
	if pos < 0 || pos >= len(t.fields) {
		return "", "", fmt.Errorf("%s: field %d: the clustered index has %d fields", t.Shown, pos, len(t.fields))
	}
	f := t.fields[pos]
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

// FieldBinary reports whether the clustered index field pos holds bytes a statement gives as a
// hexadecimal literal (BIT, binary strings), as --format sql writes them.
func (t *Table) FieldBinary(pos int) bool {
	if pos < 0 || pos >= len(t.fields) || t.fields[pos].col < 0 {
		return false
	}
	c := t.Cols[t.fields[pos].col]
	return c.SQL.Type == schema.MyBit || isString(c.SQL.Type) && charsetOf(schema.Collation(c.InnoDB.PRType)) == csBinary &&
		(c.SQL.DataType == "" || c.SQL.DataType == "vector")
}
