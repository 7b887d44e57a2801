package rows

import (
	"fmt"
	"unicode/utf8"

	"innoscope/schema"
)

// implausible says why the stored bytes of field v cannot be a value the server stored in
// column c ("" when they can be): a NULL in a NOT NULL column, a string that is not valid in
// its character set (utf8mb3, utf8mb4: the server converts or refuses what is not), an ENUM or
// SET beyond its members, a DATE or DATETIME out of its range. A definition read from a .frm
// that is not the file's table's gives such values (an INT read as VARCHAR: 0x80 first); a
// value stored off page is judged by none of it (its local prefix may end inside a character).
func implausible(c *Column, v value) string {
	if v.null {
		if c.InnoDB.PRType&schema.DataNotNull != 0 {
			return "NULL in a NOT NULL column"
		}
		return ""
	}
	if v.ext {
		return ""
	}
	b := v.b
	switch c.SQL.Type {
	case schema.MyString, schema.MyVarchar, schema.MyVarString, schema.MyTinyBlob, schema.MyMediumBlob, schema.MyLongBlob, schema.MyBlob:
		if c.InnoDB.PRType&schema.DataBinaryTyp != 0 {
			return ""
		}
		switch charsetName(schema.Collation(c.InnoDB.PRType)) {
		case "utf8mb4":
			if !utf8.Valid(b) {
				return fmt.Sprintf("%d bytes that are not valid utf8mb4 (%s)", len(b), clipHex(b))
			}
		case "utf8mb3":
			if !utf8.Valid(b) {
				return fmt.Sprintf("%d bytes that are not valid utf8mb3 (%s)", len(b), clipHex(b))
			}
			for _, r := range string(b) {
				if r > 0xffff {
					return fmt.Sprintf("a 4-byte character in utf8mb3 (%s)", clipHex(b))
				}
			}
		}
	case schema.MyEnum:
		if len(b) == 0 || len(b) > 2 || int(beUint(b)) > len(c.SQL.Labels) {
			return fmt.Sprintf("ENUM value %d of %d bytes, the column has %d members", beUint(b), len(b), len(c.SQL.Labels))
		}
	case schema.MySet:
		if n := len(c.SQL.Labels); len(b) == 0 || len(b) > 8 || n < 64 && beUint(b)>>n != 0 {
			return fmt.Sprintf("SET value %#x of %d bytes, the column has %d members", beUint(b), len(b), n)
		}
	case schema.MyNewDate:
		if len(b) == 3 {
			d := beUint(b) ^ 0x800000
			if c.InnoDB.PRType&schema.DataUnsigned != 0 {
				d = beUint(b)
			}
			if d>>5&15 > 12 || d>>9 > 9999 {
				return fmt.Sprintf("DATE %x out of range", b)
			}
		}
	case schema.MyDatetime2:
		if len(b) >= 5 {
			d := int64(beUint(b[:5])) - datetimeFOffs
			ymd, hms := d>>17, d&0x1ffff
			if d < 0 || ymd>>5/13 > 9999 || hms>>12 > 23 || hms>>6&63 > 59 || hms&63 > 59 {
				return fmt.Sprintf("DATETIME %x out of range", b)
			}
		}
	}
	return ""
}

// clipHex is b in hex, its first 16 bytes.
func clipHex(b []byte) string {
	if len(b) > 16 {
		return fmt.Sprintf("%x...", b[:16])
	}
	return fmt.Sprintf("%x", b)
}
