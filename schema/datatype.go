package schema

import "encoding/binary"

// Columns of a data type plugin (MariaDB 10.5+ INET6, 10.7+ UUID, 10.10+ INET4, 11.7+ VECTOR)
// are stored as the type they build on (BINARY(16), BINARY(4), VARBINARY) and named in the
// .frm's extra2 segment: an entry of type 130 (EXTRA2_FIELD_DATA_TYPE_INFO) whose value is, per
// such column, its field number and its type name, each as a length-encoded number or string
// (one byte below 251). rows prints them as the server does.

const extra2DataTypeInfo = 130

// readExtra2Types returns the data type names of the extra2 segment e by field number.
func readExtra2Types(e []byte) map[int]string {
	var out map[int]string
	if len(e) == 0 || e[0] == '/' { // a pre-10.0 .frm keeps a partition string there
		return nil
	}
	for i := 0; i+3 <= len(e); {
		typ, n := e[i], int(e[i+1])
		i += 2
		if n == 0 { // a value of 256 bytes or more: 2 bytes of length follow
			if i+2 > len(e) {
				return out
			}
			n = int(binary.LittleEndian.Uint16(e[i:]))
			i += 2
		}
		if i+n > len(e) {
			return out
		}
		if typ == extra2DataTypeInfo {
			for v := e[i : i+n]; len(v) >= 2; {
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
		}
		i += n
	}
	return out
}
