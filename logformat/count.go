package logformat

// countMTR is decodeTo with a tally, for the mini-transactions a server writes by the million:
// page records (not OPTION) whose payloads are well formed. It counts their records into t
// without decoding them into a Record, and returns false as soon as it meets anything else:
// a file record, padding, OPTION, a record decodeTo would reject or mark malformed. Then
// what it added since mark is taken back (t.undoCount) and decodeTo counts the
// mini-transaction instead, so that the result and its messages come from decodeTo.
func countMTR(p []byte, end int, pageSize uint32, t *tally) bool {
	var last uint32 // decodeTo's running page offset
	gotPageOp := false
	for pos := 0; pos < end; {
		b := p[pos]
		start := pos
		pos++
		rlen := int(b & 0x0f)
		if rlen == 0 {
			v, n := Varint(p[pos:])
			pos += n
			rlen = int(v) + 15 - n
		}
		body := p[pos : pos+rlen]
		pos += rlen
		typ := Type(b & 0x70)
		if typ == Reserved || typ == Option || pos-start > int(pageSize) {
			return false
		}
		if b&0x80 != 0 {
			if !gotPageOp || typ <= InitPage {
				return false // a file record or padding, or a bad same_page flag
			}
		} else {
			last = 0
			if len(body) < 2 {
				return false
			}
			var space, page uint32
			idlen := 1
			if c := body[0]; c < 0x80 {
				space = uint32(c)
			} else if space, idlen = Varint(body); idlen == 0 || idlen >= len(body) {
				return false
			}
			body = body[idlen:]
			if c := body[0]; c < 0x80 {
				page, body = uint32(c), body[1:]
			} else {
				v, n := Varint(body)
				if n == 0 {
					return false
				}
				page, body = v, body[n:]
			}
			gotPageOp = true
			if key := uint64(space)<<32 | uint64(page); key+1 != t.last {
				t.pages = append(t.pages, key)
				t.last = key + 1
			}
		}
		if !countPageOp(typ, body, &last, pageSize) {
			return false
		}
		t.records++
		t.byType[typ]++
	}
	return true
}

// countPageOp is decodePageOp for countMTR: false where decodePageOp fails, or where it
// would mark the record malformed.
func countPageOp(typ Type, body []byte, last *uint32, pageSize uint32) bool {
	switch typ {
	case FreePage, InitPage:
		if len(body) != 0 {
			return false
		}
		*last = 1
		if typ == InitPage {
			*last = 24
		}
		return true
	case Extended:
		if len(body) == 0 || !extendedWellFormed(ExtSubtype(body[0]), body[1:]) {
			return false
		}
		*last = 24
		if len(body) == 1 && ExtSubtype(body[0]) == TrimPages {
			*last = 1
		}
		return true
	}
	// WRITE, MEMSET, MEMMOVE
	if len(body) == 0 || *last == 1 {
		return false
	}
	off, olen := uint32(body[0]), 1
	if off >= 0x80 {
		off, olen = Varint(body)
	}
	if olen == 0 || olen > 3 || olen >= len(body) || off >= pageSize {
		return false
	}
	*last += off
	if *last < 8 || *last >= pageSize {
		return false
	}
	body = body[olen:]
	if typ == Write {
		if uint32(len(body))+*last > pageSize {
			return false
		}
		*last += uint32(len(body))
		return true
	}
	n, llen := Varint(body)
	if llen == 0 || llen > 3 || *last+n > pageSize {
		return false
	}
	body = body[llen:]
	if typ == Memset {
		if len(body) == 0 || uint32(len(body)) > n {
			return false
		}
	} else {
		src, slen := Varint(body)
		if slen == 0 || slen > 3 || slen != len(body) {
			return false
		}
		from := int64(*last) + int64(src>>1) + 1
		if src&1 != 0 {
			from = int64(*last) - int64(src>>1) - 1
		}
		if from < 8 || from+int64(n) > int64(pageSize) {
			return false
		}
	}
	*last += n
	return true
}

// extendedWellFormed says whether Record.decodeExtended leaves an EXTENDED record of subtype
// sub, with the bytes p after the subtype, without Malformed.
func extendedWellFormed(sub ExtSubtype, p []byte) bool {
	i := 0
	// field skips a varint of at most max bytes that must leave keep bytes.
	field := func(max, keep int) bool {
		if i >= len(p) {
			return false
		}
		n := int(varintLens[p[i]])
		if n == 0 || n > max || len(p)-i-n < keep {
			return false
		}
		i += n
		return true
	}
	switch sub {
	case InitRowFormatRedundant, InitRowFormatDynamic, UndoInit, TrimPages:
		return len(p) == 0
	case UndoAppend:
		return len(p) >= 3
	case InsertHeapRedundant, InsertReuseRedundant, InsertHeapDynamic, InsertReuseDynamic:
		wide := 2
		if sub&2 != 0 {
			wide = 3
		}
		return field(3, 1) && (sub != InsertReuseDynamic || field(3, 1)) && field(wide, 1) && field(2, 1) && field(wide, 0)
	case DeleteRowFormatRedundant:
		_, n := Varint(p)
		return n != 0 && n == len(p)
	case DeleteRowFormatDynamic:
		if !field(3, 1) || !field(2, 1) {
			return false
		}
		_, n := Varint(p[i:])
		return n != 0 && n <= 3 && n == len(p)-i
	}
	return false
}

// varintLens is VarintLen of each first byte.
var varintLens = func() (t [256]uint8) {
	for b := range t {
		t[b] = uint8(VarintLen(byte(b)))
	}
	return t
}()

// undoCount takes back what countMTR added to t since the mark m, before it returned false
// on the mini-transaction p: counting it again with a fresh tally finds the same records.
func (t *tally) undoCount(m tallyMark, p []byte, end int, pageSize uint32) {
	u := &tally{}
	countMTR(p, end, pageSize, u)
	for k, c := range u.byType {
		t.byType[k] -= c
	}
	t.records, t.pages, t.last = m.records, t.pages[:m.pages], m.last
}
