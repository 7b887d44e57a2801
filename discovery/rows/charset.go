package rows

import (
	"fmt"
	"unicode/utf8"
)

// Collation ids of character sets of variable width (MariaDB 10.11 ids; a NO PAD collation is
// its PAD SPACE id plus 1024 in the ranges used here). Every other collation is single-byte.
var mbCharsets = []struct {
	min, max int
	ids      [][2]int // inclusive ranges
}{
	{1, 3, [][2]int{{33, 33}, {83, 83}, {192, 223}, {576, 579}}},               // utf8mb3
	{1, 4, [][2]int{{45, 46}, {224, 247}, {608, 611}}},                         // utf8mb4
	{2, 2, [][2]int{{35, 35}, {90, 90}, {128, 159}, {358, 358}}},               // ucs2
	{2, 4, [][2]int{{54, 55}, {101, 124}, {327, 327}}},                         // utf16
	{2, 4, [][2]int{{56, 56}, {62, 62}}},                                       // utf16le
	{4, 4, [][2]int{{60, 61}, {160, 183}, {391, 391}}},                         // utf32
	{1, 2, [][2]int{{1, 1}, {84, 84}, {13, 13}, {88, 88}, {28, 28}, {87, 87}}}, // big5, sjis, gbk
	{1, 2, [][2]int{{19, 19}, {85, 85}, {24, 24}, {86, 86}, {95, 96}}},         // euckr, gb2312, cp932
	{1, 3, [][2]int{{12, 12}, {91, 91}, {97, 98}}},                             // ujis, eucjpms
}

// mbLen gives the minimum and maximum bytes per character of a collation.
func mbLen(coll int) (int, int) {
	if coll >= 1024 && coll < 2048 {
		coll -= 1024
	}
	for _, cs := range mbCharsets {
		for _, r := range cs.ids {
			if coll >= r[0] && coll <= r[1] {
				return cs.min, cs.max
			}
		}
	}
	return 1, 1
}

// Character sets rows converts to UTF-8 for the output (as the client, with utf8mb4 as its
// character set, receives them).
const (
	csUTF8 = iota
	csLatin1
	csBinary
	csOther
)

func charsetOf(coll int) int {
	if coll >= 1024 && coll < 2048 {
		coll -= 1024
	}
	switch coll {
	case 63:
		return csBinary
	case 5, 8, 15, 31, 47, 48, 49, 94:
		return csLatin1
	case 11, 65: // ascii
		return csUTF8
	}
	if mi, ma := mbLen(coll); mi == 1 && (ma == 3 || ma == 4) && coll != 12 && coll != 91 && coll != 97 && coll != 98 {
		return csUTF8
	}
	return csOther
}

// cp1252 is MariaDB's latin1 from 0x80 to 0x9f (the code points of Windows-1252; the five it
// leaves undefined map to the same code point).
var cp1252 = [32]rune{0x20ac, 0x81, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8d, 0x017d, 0x8f,
	0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x9d, 0x017e, 0x0178}

// toUTF8 converts a string value of collation coll to UTF-8.
func toUTF8(b []byte, coll int) ([]byte, error) {
	switch charsetOf(coll) {
	case csUTF8, csBinary:
		return b, nil
	case csLatin1:
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
		out := make([]byte, 0, len(b)+8)
		for _, c := range b {
			r := rune(c)
			if c >= 0x80 && c < 0xa0 {
				r = cp1252[c-0x80]
			}
			out = utf8.AppendRune(out, r)
		}
		return out, nil
	}
	return nil, fmt.Errorf("collation %d: character set not supported", coll)
}
