package rows

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
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

// formatDataType appends the value b of a column of the data type plugin name as the server
// prints it; ok is false for a type rows prints as its underlying one (VECTOR: its bytes).
func formatDataType(dst []byte, name string, b []byte) (out []byte, ok bool, err error) {
	switch name {
	case "uuid":
		if len(b) != 16 {
			return nil, true, fmt.Errorf("%d bytes for a UUID", len(b))
		}
		return appendUUID(dst, b), true, nil
	case "inet4":
		if len(b) != 4 {
			return nil, true, fmt.Errorf("%d bytes for an INET4", len(b))
		}
		return appendIPv4(dst, b), true, nil
	case "inet6":
		if len(b) != 16 {
			return nil, true, fmt.Errorf("%d bytes for an INET6", len(b))
		}
		return appendIPv6(dst, b), true, nil
	}
	return dst, false, nil
}

// appendUUID prints a stored UUID. A UUID of RFC 4122 variant and version 1 to 5 is stored
// with its five groups in reverse order (node, clock sequence, time high, time middle, time
// low: time-based UUIDs then sort by time); every other one as printed. Checked with 11.8:
// '00112233-4455-1677-8899-aabbccddeeff' is stored aabbccddeeff 8899 1677 4455 00112233, the
// same with version 6 or variant 0xc as is.
func appendUUID(dst, b []byte) []byte {
	m := b
	if b[8] > 0 && b[8] < 0x60 && b[6]&0x80 != 0 {
		m = make([]byte, 0, 16)
		m = append(append(append(append(append(m, b[12:16]...), b[10:12]...), b[8:10]...), b[6:8]...), b[0:6]...)
	}
	h := hex.EncodeToString(m)
	return append(dst, h[0:8]+"-"+h[8:12]+"-"+h[12:16]+"-"+h[16:20]+"-"+h[20:32]...)
}

func appendIPv4(dst, b []byte) []byte {
	for i, c := range b[:4] {
		if i > 0 {
			dst = append(dst, '.')
		}
		dst = strconv.AppendUint(dst, uint64(c), 10)
	}
	return dst
}

// appendIPv6 prints an address as the server does: lowercase groups without leading zeros, the
// longest run of two or more zero groups (the first of equal ones) as "::", and an
// IPv4-compatible (::a.b.c.d) or IPv4-mapped (::ffff:a.b.c.d) address with its last 32 bits
// dotted.
func appendIPv6(dst, b []byte) []byte {
	var w [8]uint16
	for i := range w {
		w[i] = binary.BigEndian.Uint16(b[2*i:])
	}
	runPos, runLen := -1, 0
	for i := 0; i < 8; {
		if w[i] != 0 {
			i++
			continue
		}
		j := i
		for j < 8 && w[j] == 0 {
			j++
		}
		if j-i > runLen && j-i >= 2 {
			runPos, runLen = i, j-i
		}
		i = j
	}
	if runPos == 0 && (runLen == 6 || runLen == 5 && w[5] == 0xffff) {
		dst = append(dst, "::"...)
		if runLen == 5 {
			dst = append(dst, "ffff:"...)
		}
		return appendIPv4(dst, b[12:16])
	}
	for i := 0; i < 8; i++ {
		if i == runPos {
			dst = append(dst, "::"...)
			i += runLen - 1
			continue
		}
		if i > 0 && i != runPos+runLen {
			dst = append(dst, ':')
		}
		dst = strconv.AppendUint(dst, uint64(w[i]), 16)
	}
	return dst
}
