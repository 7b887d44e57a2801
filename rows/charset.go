package rows

import (
	"encoding/binary"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// Character sets, as the server names them, and how rows converts their values to UTF-8 for
// the output (as a client with the utf8mb4 character set receives them): the tables of which
// collation belongs to which character set, and of the characters of every single-byte
// character set, are generated from the server (charset_tables.go, scripts/gen-charsets.sh).

// collInfo is a collation's character set and its bytes per character at most.
type collInfo struct {
	charset string
	maxLen  int
}

// charsetName is the character set of collation coll ("" when the server has no such id).
func charsetName(coll int) string { c, _ := collationOf(coll); return c.charset }

// The UCA 14.0.0 collations (MariaDB 10.10+; 11.x makes utf8mb4_uca1400_ai_ci the default of
// utf8mb4) have ids from 2048, 256 per character set in this order, 8 bits of tailoring and
// accent/case/pad flags below (checked against 11.8's
// COLLATION_CHARACTER_SET_APPLICABILITY: 2048 utf8mb3_uca1400_ai_ci ... 3271). SHOW COLLATION
// gives them no id, so the generated table (charset_tables.go) has none of them.
var uca1400Charsets = []collInfo{{"utf8mb3", 3}, {"utf8mb4", 4}, {"ucs2", 2}, {"utf16", 4}, {"utf32", 4}}

// collationByID is collations indexed by id below 2048 (a lookup per string value).
var collationByID = func() (a [2048]collInfo) {
	for id, c := range collations {
		if id >= 0 && id < len(a) {
			a[id] = c
		}
	}
	return a
}()

// collationOf is what the server knows of collation id coll.
func collationOf(coll int) (collInfo, bool) {
	if coll >= 0 && coll < len(collationByID) {
		if c := collationByID[coll]; c.charset != "" {
			return c, true
		}
	} else if c, ok := collations[coll]; ok {
		return c, true
	}
	if i := (coll - 2048) / 256; coll >= 2048 && i < len(uca1400Charsets) {
		return uca1400Charsets[i], true
	}
	return collInfo{}, false
}

// mbLen gives the minimum and maximum bytes per character of a collation (1, 1 for an id the
// server does not have).
func mbLen(coll int) (int, int) {
	c, ok := collationOf(coll)
	if !ok {
		return 1, 1
	}
	switch c.charset {
	case "ucs2", "utf16", "utf16le":
		return 2, c.maxLen
	case "utf32":
		return 4, 4
	}
	return 1, c.maxLen
}

// Character set classes of charsetOf.
const (
	csUTF8   = iota // utf8mb3, utf8mb4: stored as the output wants them
	csBinary        // binary: bytes, no conversion
	csOther         // converted by toUTF8
)

func charsetOf(coll int) int {
	switch charsetName(coll) {
	case "binary":
		return csBinary
	case "utf8mb3", "utf8mb4":
		return csUTF8
	}
	return csOther
}

// singleRunes are the single-byte tables as runes, and whether a table maps 0x00-0x7f to itself.
var singleRunes, singleASCII = func() (map[string][]rune, map[string]bool) {
	rs, ascii := map[string][]rune{}, map[string]bool{}
	for name, s := range singleByte {
		r := []rune(s)
		if len(r) != 256 {
			panic("rows: single-byte table " + name + " has " + fmt.Sprint(len(r)) + " characters")
		}
		rs[name], ascii[name] = r, true
		for i := 0; i < 0x80; i++ {
			if r[i] != rune(i) {
				ascii[name] = false
			}
		}
	}
	return rs, ascii
}()

// toUTF8 converts a string value of collation coll to UTF-8.
func toUTF8(b []byte, coll int) ([]byte, error) {
	name := charsetName(coll)
	switch name {
	case "utf8mb3", "utf8mb4", "binary":
		return b, nil
	case "ucs2", "utf16", "utf16le":
		if len(b)%2 != 0 {
			return nil, fmt.Errorf("%s value of %d bytes", name, len(b))
		}
		u := make([]uint16, len(b)/2)
		for i := range u {
			if name == "utf16le" {
				u[i] = binary.LittleEndian.Uint16(b[2*i:])
			} else {
				u[i] = binary.BigEndian.Uint16(b[2*i:])
			}
		}
		out := make([]byte, 0, len(b))
		for _, r := range utf16.Decode(u) {
			out = utf8.AppendRune(out, r)
		}
		return out, nil
	case "utf32":
		if len(b)%4 != 0 {
			return nil, fmt.Errorf("utf32 value of %d bytes", len(b))
		}
		out := make([]byte, 0, len(b))
		for i := 0; i < len(b); i += 4 {
			out = utf8.AppendRune(out, rune(binary.BigEndian.Uint32(b[i:])))
		}
		return out, nil
	}
	table, ok := singleRunes[name]
	if !ok {
		return nil, charsetError(coll)
	}
	if singleASCII[name] {
		ascii := true
		for _, c := range b {
			if c >= 0x80 {
				ascii = false
				break
			}
		}
		if ascii {
			return b, nil
		}
	}
	out := make([]byte, 0, len(b)+8)
	for _, c := range b {
		out = utf8.AppendRune(out, table[c])
	}
	return out, nil
}

// convertible reports whether toUTF8 converts values of collation coll.
func convertible(coll int) bool {
	switch name := charsetName(coll); name {
	case "utf8mb3", "utf8mb4", "binary", "ucs2", "utf16", "utf16le", "utf32":
		return true
	default:
		_, ok := singleRunes[name]
		return ok
	}
}

// charsetError says why values of collation coll are not converted.
func charsetError(coll int) error {
	if name := charsetName(coll); name != "" {
		return fmt.Errorf("character set %s (collation %d) is not supported (multi-byte character sets other than utf8mb3, utf8mb4, ucs2, utf16, utf16le and utf32)", name, coll)
	}
	return fmt.Errorf("collation %d is unknown to MariaDB 10.11 and 11.8: not supported", coll)
}

// trimPad strips the padding spaces of a CHAR value of collation coll, in the character set's
// own encoding of the space (the server does, without PAD_CHAR_TO_FULL_LENGTH).
func trimPad(b []byte, coll int) []byte {
	var sp string
	switch charsetName(coll) {
	case "binary":
		return b
	case "ucs2", "utf16":
		sp = "\x00 "
	case "utf16le":
		sp = " \x00"
	case "utf32":
		sp = "\x00\x00\x00 "
	default:
		sp = " "
	}
	for len(b) >= len(sp) && string(b[len(b)-len(sp):]) == sp {
		b = b[:len(b)-len(sp)]
	}
	return b
}
