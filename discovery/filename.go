package discovery

import (
	"fmt"
	"strconv"
	"strings"
)

// The server names a database's directory and a table's files (and the table in the InnoDB
// dictionary) in its file-name encoding (my_charset_filename): ASCII letters, digits and '_'
// stay; a letter of the ranges filename_table.go lists becomes '@' and two characters; every
// other character '@' and its code point in four hexadecimal digits. A partition's files add
// "#P#p" (and "#SP#s") unencoded.

// filenameFor is the reverse of filenameCodes.
var filenameFor = func() map[rune]string {
	m := make(map[rune]string, len(filenameCodes))
	for code, r := range filenameCodes {
		m[r] = code
	}
	return m
}()

// SQLName is a database or table name as SQL spells it (what SHOW TABLES prints) from its
// file-name encoding ("uni@2713@0p" is "uni✓é"). A partition keeps its "#P#" and "#SP#"
// parts, each decoded; an '@' that starts no code stays as it is.
func SQLName(enc string) string {
	if !strings.Contains(enc, "@") {
		return enc
	}
	var b strings.Builder
	for i := 0; i < len(enc); i++ {
		if enc[i] == '@' {
			if r, n, ok := decodeAt(enc[i+1:]); ok {
				b.WriteRune(r)
				i += n
				continue
			}
		}
		b.WriteByte(enc[i])
	}
	return b.String()
}

// decodeAt decodes the code after an '@': the character, the bytes it takes, and whether
// there was one.
func decodeAt(s string) (rune, int, bool) {
	if len(s) >= 2 {
		if r, ok := filenameCodes[s[:2]]; ok {
			return r, 2, true
		}
	}
	if len(s) >= 4 {
		if v, err := strconv.ParseUint(s[:4], 16, 16); err == nil {
			return rune(v), 4, true
		}
	}
	return 0, 0, false
}

// FileName is a database or table name in the server's file-name encoding, from its SQL
// spelling (the reverse of SQLName).
func FileName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch code, ok := filenameFor[r]; {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		case ok:
			b.WriteString("@" + code)
		default:
			fmt.Fprintf(&b, "@%04x", r)
		}
	}
	return b.String()
}

// SQLTableName is a dictionary table name ("db/t", file-name encoded) as SQL spells it: the
// database and the table decoded and joined by '.' ("d@002db/t" is "d-b.t"). A name without a
// database is decoded whole.
func SQLTableName(dictName string) string {
	db, t, ok := strings.Cut(dictName, "/")
	if !ok {
		return SQLName(dictName)
	}
	return SQLName(db) + "." + SQLName(t)
}
