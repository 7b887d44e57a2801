package rows

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"innoscope/schema"
	"math"
	"strconv"
	"strings"
	"time"
)

const (
	notFixedDec   = 31 // FLOATING_POINT_DECIMALS: a FLOAT/DOUBLE without (M,D)
	minTimeWidth  = 10 // "HHH:MM:SS"
	maxDateWidth  = 19 // "YYYY-MM-DD HH:MM:SS"
	datetimeFOffs = 0x8000000000
	timeFOffs     = 0x800000
)

// format appends to dst the stored bytes b of column c as the server prints the value (before
// the client's escaping). b is the whole value (off-page parts already appended).
func format(dst []byte, c *Column, b []byte, tz *time.Location) ([]byte, error) {
	f := &c.SQL
	bad := func() ([]byte, error) {
		return nil, fmt.Errorf("column %s: %d bytes for type %d", c.Name, len(b), f.Type)
	}
	if f.DataType != "" {
		out, ok, err := formatDataType(dst, f.DataType, b)
		if err != nil {
			return nil, fmt.Errorf("column %s: %v", c.Name, err)
		}
		if ok {
			return out, nil
		}
	}
	switch f.Type {
	case schema.MyTiny, schema.MyShort, schema.MyLong, schema.MyLongLong, schema.MyInt24:
		if len(b) == 0 || len(b) > 8 {
			return bad()
		}
		if c.InnoDB.PRType&schema.DataUnsigned != 0 {
			return strconv.AppendUint(dst, beUint(b), 10), nil
		}
		return strconv.AppendInt(dst, beInt(b), 10), nil
	case schema.MyYear:
		if len(b) != 1 {
			return bad()
		}
		if b[0] == 0 {
			return append(dst, "0000"...), nil
		}
		return strconv.AppendInt(dst, 1900+int64(b[0]), 10), nil
	case schema.MyFloat:
		if len(b) != 4 {
			return bad()
		}
		v := math.Float32frombits(binary.LittleEndian.Uint32(b))
		if d := f.Decimals(); d < notFixedDec && !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) {
			return strconv.AppendFloat(dst, float64(v), 'f', d, 64), nil
		}
		return appendGcvt(dst, float64(v), true), nil
	case schema.MyDouble:
		if len(b) != 8 {
			return bad()
		}
		v := math.Float64frombits(binary.LittleEndian.Uint64(b))
		if d := f.Decimals(); d < notFixedDec && !math.IsNaN(v) && !math.IsInf(v, 0) {
			return strconv.AppendFloat(dst, v, 'f', d, 64), nil
		}
		return appendGcvt(dst, v, false), nil
	case schema.MyNewDecimal:
		scale := f.Decimals()
		prec := f.Length - btoi(scale > 0) - btoi(!f.Unsigned())
		out, err := decimal(b, prec, scale)
		return append(dst, out...), err
	case schema.MyNewDate:
		if len(b) != 3 {
			return bad()
		}
		v := beUint(b) ^ 0x800000 // stored as a signed 3-byte integer
		if c.InnoDB.PRType&schema.DataUnsigned != 0 {
			v = beUint(b)
		}
		return appendDate(dst, v>>9, v>>5&15, v&31), nil
	case schema.MyDatetime2:
		fsp := min(max(f.Length-maxDateWidth-1, 0), 6)
		if len(b) != 5+(fsp+1)/2 {
			return bad()
		}
		v := int64(beUint(b[:5])) - datetimeFOffs
		ymd, hms := v>>17, v&0x1ffff
		ym := ymd >> 5
		out := appendDate(dst, uint64(ym/13), uint64(ym%13), uint64(ymd&31))
		out = appendClock(append(out, ' '), uint64(hms>>12), uint64(hms>>6&63), uint64(hms&63))
		return appendFrac(out, int64(fracOf(b[5:])), fsp), nil
	case schema.MyTimestamp2:
		fsp := min(max(f.Length-maxDateWidth-1, 0), 6)
		if len(b) != 4+(fsp+1)/2 {
			return bad()
		}
		sec := int64(binary.BigEndian.Uint32(b))
		frac := int64(fracOf(b[4:]))
		if sec == 0 && frac == 0 {
			return appendFrac(append(dst, "0000-00-00 00:00:00"...), 0, fsp), nil
		}
		out := time.Unix(sec, 0).In(tz).AppendFormat(dst, "2006-01-02 15:04:05")
		return appendFrac(out, frac, fsp), nil
	case schema.MyTime2:
		fsp := min(max(f.Length-minTimeWidth-1, 0), 6)
		if len(b) != 3+(fsp+1)/2 {
			return bad()
		}
		return time2(dst, b, fsp), nil
	case schema.MyEnum:
		v := beUint(b)
		if v == 0 || int(v) > len(f.Labels) {
			return dst, nil
		}
		return appendUTF8(dst, []byte(f.Labels[v-1]), c.SQL.Charset)
	case schema.MySet:
		v := beUint(b)
		var parts []string
		for i, l := range f.Labels {
			if v&(1<<i) != 0 {
				parts = append(parts, l)
			}
		}
		return appendUTF8(dst, []byte(strings.Join(parts, ",")), c.SQL.Charset)
	case schema.MyBit:
		return append(dst, b...), nil
	case schema.MyString:
		// CHAR: the server strips the padding spaces (no PAD_CHAR_TO_FULL_LENGTH).
		return appendUTF8(dst, trimPad(b, schema.Collation(c.InnoDB.PRType)), schema.Collation(c.InnoDB.PRType))
	case schema.MyVarchar, schema.MyVarString, schema.MyTinyBlob, schema.MyMediumBlob, schema.MyLongBlob, schema.MyBlob:
		return appendUTF8(dst, b, schema.Collation(c.InnoDB.PRType))
	}
	return nil, fmt.Errorf("column %s: MySQL type %d is not supported", c.Name, f.Type)
}

// appendUTF8 appends the string value b of collation coll in UTF-8.
func appendUTF8(dst, b []byte, coll int) ([]byte, error) {
	u, err := toUTF8(b, coll)
	return append(dst, u...), err
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// beUint reads a big-endian unsigned integer of up to 8 bytes.
func beUint(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v
}

// beInt reads an InnoDB signed integer: big-endian with the sign bit flipped.
func beInt(b []byte) int64 {
	v := beUint(b) ^ 1<<(8*len(b)-1)
	shift := 64 - 8*len(b)
	return int64(v<<shift) >> shift
}

// fracOf reads the fractional seconds of a DATETIME2/TIMESTAMP2 value in microseconds: 1, 2 or
// 3 bytes for 1-2, 3-4 or 5-6 digits.
func fracOf(b []byte) uint64 {
	switch len(b) {
	case 1:
		return beUint(b) * 10000
	case 2:
		return beUint(b) * 100
	}
	return beUint(b)
}

// appendFrac appends fsp digits of the microseconds us.
func appendFrac(out []byte, us int64, fsp int) []byte {
	if fsp == 0 {
		return out
	}
	var d [6]byte
	for i := 5; i >= 0; i-- {
		d[i] = byte('0' + us%10)
		us /= 10
	}
	return append(append(out, '.'), d[:fsp]...)
}

// appendPad appends v in at least width digits, zero-padded.
func appendPad(dst []byte, v uint64, width int) []byte {
	var d [20]byte
	i := len(d)
	for v > 0 || i == len(d) {
		i--
		d[i] = byte('0' + v%10)
		v /= 10
	}
	for n := len(d) - i; n < width; n++ {
		dst = append(dst, '0')
	}
	return append(dst, d[i:]...)
}

// appendDate appends YYYY-MM-DD.
func appendDate(dst []byte, y, m, d uint64) []byte {
	dst = append(appendPad(dst, y, 4), '-')
	return appendPad(append(appendPad(dst, m, 2), '-'), d, 2)
}

// appendClock appends HH:MM:SS (the hours in at least 2 digits).
func appendClock(dst []byte, h, m, s uint64) []byte {
	dst = append(appendPad(dst, h, 2), ':')
	return appendPad(append(appendPad(dst, m, 2), ':'), s, 2)
}

// time2 formats a TIME2 value (my_time_packed_from_binary, then the packed value's parts).
func time2(out []byte, b []byte, fsp int) []byte {
	intpart := int64(beUint(b[:3])) - timeFOffs
	var packed int64
	switch len(b) - 3 {
	case 0:
		packed = intpart << 24
	case 1:
		frac := int64(b[3])
		if intpart < 0 && frac != 0 {
			intpart++
			frac -= 0x100
		}
		packed = intpart<<24 + frac*10000
	case 2:
		frac := int64(binary.BigEndian.Uint16(b[3:]))
		if intpart < 0 && frac != 0 {
			intpart++
			frac -= 0x10000
		}
		packed = intpart<<24 + frac*100
	default:
		packed = int64(beUint(b[:6])) - 0x800000000000
	}
	if packed < 0 {
		out = append(out, '-')
		packed = -packed
	}
	hms := packed >> 24
	out = appendClock(out, uint64(hms>>12%(1<<10)), uint64(hms>>6%64), uint64(hms%64))
	return appendFrac(out, packed%(1<<24), fsp)
}

// ParseTimeZone reads a time zone as the server's time_zone spells it: "+HH:MM", "-HH:MM",
// "SYSTEM" (the local zone) or a zone name ("Europe/Berlin").
func ParseTimeZone(s string) (*time.Location, error) {
	switch {
	case s == "" || strings.EqualFold(s, "UTC"):
		return time.UTC, nil
	case strings.EqualFold(s, "SYSTEM"):
		return time.Local, nil
	case s[0] == '+' || s[0] == '-':
		var h, m int
		if n, _ := fmt.Sscanf(s[1:], "%d:%d", &h, &m); n != 2 || h > 14 || m > 59 {
			return nil, fmt.Errorf("time zone %q: want +HH:MM", s)
		}
		off := h*3600 + m*60
		if s[0] == '-' {
			off = -off
		}
		return time.FixedZone(s, off), nil
	}
	return time.LoadLocation(s)
}

// dig2bytes is the bytes a group of 0-8 leftover decimal digits takes.
var dig2bytes = [10]int{0, 1, 1, 2, 2, 3, 3, 4, 4, 4}

// decimal formats a DECIMAL(prec, scale) in MySQL's binary format: groups of 9 digits in 4
// bytes, leftover digits in dig2bytes bytes, the sign in the top bit (negative: all bytes
// inverted).
func decimal(b []byte, prec, scale int) ([]byte, error) {
	intg := prec - scale
	size := intg/9*4 + dig2bytes[intg%9] + scale/9*4 + dig2bytes[scale%9]
	if len(b) != size || size == 0 {
		return nil, fmt.Errorf("DECIMAL(%d,%d) of %d bytes (want %d)", prec, scale, len(b), size)
	}
	var db, ib, fb [80]byte // on the stack: a DECIMAL has at most 65 digits in 30 bytes
	d := append(db[:0], b...)
	neg := d[0]&0x80 == 0
	d[0] ^= 0x80
	if neg {
		for i := range d {
			d[i] ^= 0xff
		}
	}
	ip, fp := ib[:0], fb[:0]
	at := 0
	take := func(n int) uint64 { v := beUint(d[at : at+n]); at += n; return v }
	if k := dig2bytes[intg%9]; k > 0 {
		ip = strconv.AppendUint(ip, take(k), 10)
	}
	for i := 0; i < intg/9; i++ {
		ip = appendPad(ip, take(4), 9)
	}
	for i := 0; i < scale/9; i++ {
		fp = appendPad(fp, take(4), 9)
	}
	if k := scale % 9; k > 0 {
		fp = appendPad(fp, take(dig2bytes[k]), k)
	}
	is := bytes.TrimLeft(ip, "0")
	if len(is) == 0 {
		is = []byte{'0'}
	}
	out := make([]byte, 0, len(is)+len(fp)+2)
	if neg && (!bytes.Equal(is, []byte{'0'}) || len(bytes.Trim(fp, "0")) > 0) {
		out = append(out, '-')
	}
	out = append(out, is...)
	if scale > 0 {
		out = append(append(out, '.'), fp...)
	}
	return out, nil
}

// gcvt formats a FLOAT or DOUBLE without fixed decimals as the server does (my_gcvt with a
// wide field): the shortest digits that read back as the same double (at most 6 significant
// digits for a FLOAT), in plain notation unless the exponent is below -14 or above 15 with no
// fractional digits.
func gcvt(v float64, isFloat bool) []byte { return appendGcvt(nil, v, isFloat) }

// appendGcvt is gcvt appending to out, with no allocation of its own.
func appendGcvt(out []byte, v float64, isFloat bool) []byte {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) { // my_gcvt prints 0 for what dtoa cannot
		return append(out, '0')
	}
	prec := -1
	if isFloat {
		prec = 5
	}
	var buf [32]byte
	s := strconv.AppendFloat(buf[:0], v, 'e', prec, 64)
	if s[0] == '-' {
		out = append(out, '-')
		s = s[1:]
	}
	e := bytes.IndexByte(s, 'e')
	exp, neg := 0, s[e+1] == '-'
	for _, c := range s[e+2:] { // the exponent's sign is always written
		exp = exp*10 + int(c-'0')
	}
	if neg {
		exp = -exp
	}
	var dbuf [32]byte
	digits := dbuf[:0]
	for _, c := range s[:e] {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	if len(digits) == 0 {
		digits = append(digits, '0')
	}
	zeros := func(n int) {
		for ; n > 0; n-- {
			out = append(out, '0')
		}
	}
	decpt, n := exp+1, len(digits)
	if decpt >= -14 && (decpt <= 15 || n > decpt) {
		switch {
		case decpt <= 0:
			out = append(out, "0."...)
			zeros(-decpt)
			out = append(out, digits...)
		case decpt < n:
			out = append(append(append(out, digits[:decpt]...), '.'), digits[decpt:]...)
		default:
			out = append(out, digits...)
			zeros(decpt - n)
		}
		return out
	}
	out = append(out, digits[0])
	if n > 1 {
		out = append(append(out, '.'), digits[1:]...)
	}
	return strconv.AppendInt(append(out, 'e'), int64(decpt-1), 10)
}
