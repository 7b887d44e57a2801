package schema

import (
	"encoding/binary"
	"strings"
)

// Columns of a data type plugin (MariaDB 10.5+ INET6, 10.7+ UUID, 10.10+ INET4, 11.7+ VECTOR)
// are stored as the type they build on (BINARY(16), BINARY(4), VARBINARY) and named in the
// .frm's extra2 segment: an entry of type 130 (EXTRA2_FIELD_DATA_TYPE_INFO) whose value is, per
// such column, its field number and its type name, each as a length-encoded number or string
// (one byte below 251). rows prints them as the server does.

const extra2DataTypeInfo = 130

// readExtra2Types returns the data type names of the extra2 segment e by field number.
func readExtra2Types(e []byte) map[int]string {
	var out map[int]string
	for v := extra2(e)[extra2DataTypeInfo]; len(v) >= 2; {
		nr, l := int(v[0]), int(v[1])
		if nr >= 251 || l >= 251 || 2+l > len(v) {
			break
		}
		if out == nil {
			out = map[int]string{}
		}
		out[nr] = string(v[2 : 2+l])
		v = v[2+l:]
	}
	return out
}

// extra2 returns the entries of the .frm's extra2 segment e by type: each a type byte, a
// length (one byte; 0: two more bytes, little-endian, for 256 bytes or more) and the value.
func extra2(e []byte) map[byte][]byte {
	out := map[byte][]byte{}
	if len(e) == 0 || e[0] == '/' { // a pre-10.0 .frm keeps a partition string there
		return out
	}
	for i := 0; i+3 <= len(e); {
		typ, n := e[i], int(e[i+1])
		i += 2
		if n == 0 {
			if i+2 > len(e) {
				return out
			}
			n = int(binary.LittleEndian.Uint16(e[i:]))
			i += 2
		}
		if i+n > len(e) {
			return out
		}
		out[typ] = e[i : i+n]
		i += n
	}
	return out
}

// extra2EngineTableOpts is EXTRA2_ENGINE_TABLEOPTS: the engine-defined options of the table
// (InnoDB's PAGE_COMPRESSED, PAGE_COMPRESSION_LEVEL, ENCRYPTED, ENCRYPTION_KEY_ID), then of each
// field and each key.
const extra2EngineTableOpts = 128

// engineTableOptions writes the table's engine-defined options of the extra2 segment e as SHOW
// CREATE TABLE does (" `name`='value'": MariaDB 10.11 quotes the value however it was given):
// each option is its name's length (one byte), the name, the value's length (two bytes,
// little-endian; 0x8000: given quoted) and the value; a zero byte ends the table's options.
func engineTableOptions(e []byte) string {
	v := extra2(e)[extra2EngineTableOpts]
	var b strings.Builder
	for len(v) > 0 && v[0] != 0 {
		n := int(v[0])
		if 1+n+2 > len(v) {
			break
		}
		name := string(v[1 : 1+n])
		l := binary.LittleEndian.Uint16(v[1+n:])
		vl := int(l &^ 0x8000)
		if 3+n+vl > len(v) {
			break
		}
		b.WriteString(" " + QuoteName(name) + "=" + quoteString(string(v[3+n:3+n+vl])))
		v = v[3+n+vl:]
	}
	return b.String()
}
