package schema

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The literal defaults of a .frm's default record (CreateTableFrm), as SHOW CREATE TABLE
// writes them.

// defaultValue renders the literal default of field i from the default record.
func (d *frmTableDef) defaultValue(i int) (string, error) {
	c := d.cols[i]
	at := d.recpos[i] - 1
	if at < 0 || at >= len(d.defaults) {
		return "", fmt.Errorf("default at %d outside the record of %d bytes", at, len(d.defaults))
	}
	v := d.defaults[at:]
	le := func(n int) (uint64, error) {
		if n > len(v) {
			return 0, fmt.Errorf("default of %d bytes past the record", n)
		}
		var x uint64
		for k := n - 1; k >= 0; k-- {
			x = x<<8 | uint64(v[k])
		}
		return x, nil
	}
	switch c.Type {
	case MyTiny, MyShort, MyInt24, MyLong, MyLongLong:
		n := map[byte]int{MyTiny: 1, MyShort: 2, MyInt24: 3, MyLong: 4, MyLongLong: 8}[c.Type]
		x, err := le(n)
		if err != nil {
			return "", err
		}
		if c.Unsigned() {
			return strconv.FormatUint(x, 10), nil
		}
		shift := 64 - 8*n
		return strconv.FormatInt(int64(x<<shift)>>shift, 10), nil
	case MyNewDecimal:
		scale := c.Decimals()
		prec := c.Length - btoi(scale > 0) - btoi(!c.Unsigned())
		n := decimalBinSize(prec, scale)
		if n > len(v) {
			return "", fmt.Errorf("default past the record")
		}
		return binDecimal(v[:n], prec, scale)
	case MyDouble:
		if len(v) < 8 {
			return "", fmt.Errorf("default past the record")
		}
		f := math.Float64frombits(binary.LittleEndian.Uint64(v))
		return strconv.FormatFloat(f, 'g', -1, 64), nil
	case MyVarchar, MyVarString:
		lb := 1
		if c.Length >= 256 {
			lb = 2
		}
		n, err := le(lb)
		if err != nil || lb+int(n) > len(v) {
			return "", fmt.Errorf("VARCHAR default past the record")
		}
		return textLiteral(v[lb:lb+int(n)], c.Charset)
	case MyString:
		if c.Length > len(v) {
			return "", fmt.Errorf("CHAR default past the record")
		}
		return textLiteral([]byte(strings.TrimRight(string(v[:c.Length]), " ")), c.Charset)
	case MyEnum, MySet:
		n := 1
		if c.Type == MyEnum && len(c.Labels) > 255 {
			n = 2
		} else if c.Type == MySet {
			n = (len(c.Labels) + 7) / 8
			if n > 4 {
				n = 8
			}
		}
		x, err := le(n)
		if err != nil {
			return "", err
		}
		if c.Type == MyEnum {
			if x == 0 || int(x) > len(c.Labels) {
				return "''", nil
			}
			return quoteString(c.Labels[x-1]), nil
		}
		var parts []string
		for k, l := range c.Labels {
			if x&(1<<k) != 0 {
				parts = append(parts, l)
			}
		}
		return quoteString(strings.Join(parts, ",")), nil
	case MyFloat:
		x, err := le(4)
		if err != nil {
			return "", err
		}
		return strconv.FormatFloat(float64(math.Float32frombits(uint32(x))), 'g', -1, 32), nil
	case MyYear:
		x, err := le(1)
		if err != nil {
			return "", err
		}
		if x == 0 {
			return "0000", nil
		}
		return strconv.FormatUint(1900+x, 10), nil
	case MyNewDate: // 3 bytes, little-endian: day | month << 5 | year << 9
		x, err := le(3)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("'%04d-%02d-%02d'", x>>9, x>>5&15, x&31), nil
	case MyDatetime2, MyTime2:
		return temporalDefault(c, v)
	}
	return "", fmt.Errorf("a literal DEFAULT of MySQL type %d is not rendered", c.Type)
}

// temporalDefault renders a DATETIME(n) or TIME(n) default of the record v: the server's
// packed big-endian form (my_datetime_packed_to_binary, my_time_packed_to_binary), its
// fraction in (n+1)/2 bytes, as SHOW CREATE TABLE writes it with n digits. A negative TIME is
// not rendered.
func temporalDefault(c FrmColumn, v []byte) (string, error) {
	width, intLen, ofs := 19, 5, int64(0x8000000000)
	if c.Type == MyTime2 {
		width, intLen, ofs = 10, 3, 0x800000
	}
	fsp := min(max(c.Length-width-1, 0), 6)
	n := intLen + (fsp+1)/2
	if n > len(v) {
		return "", fmt.Errorf("default past the record")
	}
	var x int64
	for _, b := range v[:intLen] {
		x = x<<8 | int64(b)
	}
	x -= ofs
	var frac int64
	for _, b := range v[intLen:n] {
		frac = frac<<8 | int64(b)
	}
	if x < 0 {
		return "", fmt.Errorf("a negative %s default is not rendered", map[byte]string{MyDatetime2: "DATETIME", MyTime2: "TIME"}[c.Type])
	}
	switch (fsp + 1) / 2 { // the fraction in microseconds
	case 1:
		frac *= 10000
	case 2:
		frac *= 100
	}
	var s string
	if c.Type == MyTime2 {
		s = fmt.Sprintf("%02d:%02d:%02d", x>>12&0x3ff, x>>6&63, x&63)
	} else {
		ymd, hms := x>>17, x&0x1ffff
		s = fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", ymd>>5/13, ymd>>5%13, ymd&31, hms>>12, hms>>6&63, hms&63)
	}
	if fsp > 0 {
		s += fmt.Sprintf(".%06d", frac)[:1+fsp]
	}
	return "'" + s + "'", nil
}

// binDecimal formats a binary DECIMAL (decimal2bin: the sign bit flipped, negative values
// inverted; 9 digits per 4 bytes, the leftover digits in 1-4 bytes).
func binDecimal(b []byte, prec, scale int) (string, error) {
	dig2bytes := [10]int{0, 1, 1, 2, 2, 3, 3, 4, 4, 4}
	buf := append([]byte(nil), b...)
	neg := buf[0]&0x80 == 0
	buf[0] ^= 0x80
	if neg {
		for i := range buf {
			buf[i] = ^buf[i]
		}
	}
	read := func(n int) uint64 {
		var x uint64
		for _, c := range buf[:n] {
			x = x<<8 | uint64(c)
		}
		buf = buf[n:]
		return x
	}
	intg := prec - scale
	var ip strings.Builder
	if lead := intg % 9; lead > 0 {
		ip.WriteString(strconv.FormatUint(read(dig2bytes[lead]), 10))
	}
	for k := 0; k < intg/9; k++ {
		fmt.Fprintf(&ip, "%09d", read(4))
	}
	is := strings.TrimLeft(ip.String(), "0")
	if is == "" {
		is = "0"
	}
	var fp strings.Builder
	for k := 0; k < scale/9; k++ {
		fmt.Fprintf(&fp, "%09d", read(4))
	}
	if tail := scale % 9; tail > 0 {
		fmt.Fprintf(&fp, "%0*d", tail, read(dig2bytes[tail]))
	}
	s := is
	if scale > 0 {
		s += "." + fp.String()
	}
	if neg {
		s = "-" + s
	}
	return s, nil
}

// textLiteral is a string default of collation coll as a literal of the (UTF-8) statement:
// the UTF-8 character sets and ASCII as they are, latin1 (the server's: cp1252) converted; any
// other character set with bytes above 0x7f is an error.
func textLiteral(b []byte, coll int) (string, error) {
	cs, _, _ := mariaCollation(coll)
	ascii := true
	for _, c := range b {
		if c >= 0x80 {
			ascii = false
		}
	}
	switch {
	case ascii || cs == "utf8mb3" || cs == "utf8mb4":
		return quoteString(string(b)), nil
	case cs == "latin1":
		var r []rune
		for _, c := range b {
			if c >= 0x80 && c < 0xa0 {
				r = append(r, cp1252[c-0x80])
			} else {
				r = append(r, rune(c))
			}
		}
		return quoteString(string(r)), nil
	}
	return "", fmt.Errorf("a DEFAULT in character set %q (collation %d) is not rendered", cs, coll)
}

// cp1252 are the characters of bytes 0x80-0x9f in the server's latin1.
var cp1252 = [32]rune{0x20ac, 0x81, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8d, 0x017d, 0x8f,
	0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x9d, 0x017e, 0x0178}
