package schema

import (
	"fmt"

	"innoscope/discovery"
)

// SQLTypeOf is the SQL type of a column as far as its InnoDB dictionary entry gives it (for a
// dropped table whose .frm is gone): the MySQL type code in the precise type's low byte, the
// length, NOT NULL and UNSIGNED, the collation. What the dictionary does not keep (a
// DECIMAL's scale, a FLOAT's decimals, ENUM and SET labels, BIT) is refused with the column
// named.
func SQLTypeOf(c discovery.DictColumn) (SQLType, error) {
	t := SQLType{Type: byte(c.PRType & 0xff), Length: int(c.Len), Charset: Collation(c.PRType)}
	if c.PRType&DataNotNull == 0 {
		t.PackFlag |= fieldMaybeNull
	}
	if c.PRType&DataUnsigned == 0 {
		t.PackFlag |= 1
	}
	// The precise type holds the type the field reports (Field::type()): DATE for the 3-byte
	// NEWDATE, DATETIME, TIMESTAMP and TIME for their binary (5.6+) forms, stored as
	// DATA_FIXBINARY.
	switch {
	case t.Type == MyDate && c.MType == DataInt && c.Len == 3:
		t.Type = MyNewDate
	case t.Type == MyDatetime && c.MType == DataFixBinary:
		t.Type = MyDatetime2
	case t.Type == MyTimestamp && c.MType == DataFixBinary:
		t.Type = MyTimestamp2
	case t.Type == MyTime && c.MType == DataFixBinary:
		t.Type = MyTime2
	}
	switch t.Type {
	case MyNewDate:
		t.Length = 10
	case MyTiny, MyShort, MyInt24, MyLong, MyLongLong, MyYear:
	case MyFloat, MyDouble:
		t.PackFlag |= notFixedDecimals << 8
	case MyVarchar, MyVarString, MyString, MyTinyBlob, MyMediumBlob, MyLongBlob, MyBlob:
		if c.MType == DataBinary || c.MType == DataFixBinary || c.MType == DataBlob && c.PRType&DataBinaryTyp != 0 {
			t.Charset = 63
		} else if c.MType == DataVarchar || c.MType == DataChar {
			t.Charset = 8 // latin1_swedish_ci: InnoDB keeps no collation for its own latin1 types
		}
		if c.MType == DataBlob {
			t.Type, t.Length = MyBlob, 65535
		}
	case MyDatetime2, MyTimestamp2, MyTime2:
		base := map[byte]int{MyDatetime2: 5, MyTimestamp2: 4, MyTime2: 3}[t.Type]
		width := map[byte]int{MyDatetime2: 19, MyTimestamp2: 19, MyTime2: 10}[t.Type]
		if fsp := (int(c.Len) - base) * 2; fsp > 0 {
			width += fsp + 1 // 2 digits a byte: the odd precisions read as the next even one
		}
		t.Length = width
	default:
		return t, fmt.Errorf("column %s: MySQL type %d is not described whole by the InnoDB dictionary (its .frm is gone)", c.Name, t.Type)
	}
	return t, nil
}
