package logformat

// The redo log's variable-length unsigned integers (MariaDB mtr0log.h, mlog_decode_varint).
// The count of leading one bits in the first byte gives the number of bytes that follow it;
// each longer form starts where the shorter one ended, so no value has two encodings:
//
//	0xxxxxxx                      0 .. 0x7f
//	10xxxxxx +1 byte              0x80 .. 0x407f
//	110xxxxx +2 bytes             0x4080 .. 0x20407f
//	1110xxxx +3 bytes             0x204080 .. 0x1020407f
//	11110xxx +4 bytes             0x10204080 .. (values above 32 bits are invalid)
//	11111xxx                      invalid
const (
	varint2Base = 0x80
	varint3Base = 0x4080
	varint4Base = 0x204080
	varint5Base = 0x10204080
)

// VarintLen returns the encoded length announced by the first byte b, or 0 if b starts no valid
// encoding.
func VarintLen(b byte) int {
	switch {
	case b < 0x80:
		return 1
	case b < 0xc0:
		return 2
	case b < 0xe0:
		return 3
	case b < 0xf0:
		return 4
	case b < 0xf8:
		return 5
	}
	return 0
}

// Varint decodes one variable-length integer from the start of p. It returns the value and
// the number of bytes used, or n == 0 when p is too short or the encoding is invalid.
func Varint(p []byte) (v uint32, n int) {
	if len(p) == 0 {
		return 0, 0
	}
	b := p[0]
	if b < 0x80 {
		return uint32(b), 1
	}
	if b < 0xc0 { // the common longer form, without the general path
		if len(p) < 2 {
			return 0, 0
		}
		return (uint32(b&0x3f)<<8 | uint32(p[1])) + varint2Base, 2
	}
	n = VarintLen(b)
	if n == 0 || len(p) < n {
		return 0, 0
	}
	switch n {
	case 2:
		return (uint32(b&0x3f)<<8 | uint32(p[1])) + varint2Base, 2
	case 3:
		return (uint32(b&0x1f)<<16 | uint32(p[1])<<8 | uint32(p[2])) + varint3Base, 3
	case 4:
		return (uint32(b&0x0f)<<24 | uint32(p[1])<<16 | uint32(p[2])<<8 | uint32(p[3])) + varint4Base, 4
	}
	w := uint64(b&0x07)<<32 | uint64(p[1])<<24 | uint64(p[2])<<16 | uint64(p[3])<<8 | uint64(p[4])
	w += varint5Base
	// 0xffffffff is the decoder's error value in the server; nothing valid encodes it.
	if w >= 0xffffffff {
		return 0, 0
	}
	return uint32(w), 5
}

// AppendVarint appends the encoding of v to dst (the inverse of Varint; used by tests and by
// code that writes log records).
func AppendVarint(dst []byte, v uint32) []byte {
	switch {
	case v < varint2Base:
		return append(dst, byte(v))
	case v < varint3Base:
		v -= varint2Base
		return append(dst, 0x80|byte(v>>8), byte(v))
	case v < varint4Base:
		v -= varint3Base
		return append(dst, 0xc0|byte(v>>16), byte(v>>8), byte(v))
	case v < varint5Base:
		v -= varint4Base
		return append(dst, 0xe0|byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
	}
	w := uint64(v) - varint5Base
	return append(dst, 0xf0|byte(w>>32), byte(w>>24), byte(w>>16), byte(w>>8), byte(w))
}
