package logformat

// countMTR is decodeTo with a tally, for the mini-transactions a server writes by the million:
// page records (not OPTION) whose payloads are well formed. It walks the framed
// mini-transaction at the start of p (mtrEnd has walked it) to its termination byte, counting
// its records into t without decoding them into a Record, and returns that byte's offset; it
// returns false as soon as it meets anything else: a file record, padding, OPTION, a record
// decodeTo would reject or mark malformed. Then what it added since a mark is taken back
// (t.undoCount) and decodeTo counts the mini-transaction instead, so that the result and its
// messages come from decodeTo.
func countMTR(p []byte, pageSize uint32, t *tally) (int, bool) {
	var last uint32 // decodeTo's running page offset
	gotPageOp := false
	pos := 0
	for {
		b := p[pos]
		if b <= 1 {
			return pos, true
		}
		bodyAt, next := recordSpan(p, pos)
		if next == 0 {
			bodyAt, next = recordSpanLong(p, pos)
		}
		typ := Type(b & 0x70)
		if typ == Reserved || typ == Option || next-pos > int(pageSize) {
			return pos, false
		}
		body := p[bodyAt:next]
		pos = next
		if b&0x80 != 0 {
			if !gotPageOp || typ <= InitPage {
				return pos, false // a file record or padding, or a bad same_page flag
			}
		} else {
			last = 0
			if len(body) < 2 {
				return pos, false
			}
			var space, page uint32
			if c := body[0]; c < 0x80 {
				space, body = uint32(c), body[1:]
			} else {
				v, n := Varint(body)
				if n == 0 || n >= len(body) {
					return pos, false
				}
				space, body = v, body[n:]
			}
			if c := body[0]; c < 0x80 {
				page, body = uint32(c), body[1:]
			} else if c < 0xc0 && len(body) >= 2 { // pages up to 16,511, without a call
				page, body = (uint32(c&0x3f)<<8|uint32(body[1]))+varint2Base, body[2:]
			} else {
				v, n := Varint(body)
				if n == 0 {
					return pos, false
				}
				page, body = v, body[n:]
			}
			gotPageOp = true
			if key := uint64(space)<<32 | uint64(page); key+1 != t.last {
				t.page(key)
			}
		}
		switch typ {
		case Extended: // most records, checked here without countPageOp
			if len(body) == 0 {
				return pos, false
			}
			// Record.decodeExtended leaves the subtypes a server writes most without Malformed
			// where their fields are well formed: varints of at most so many bytes, each leaving
			// so many bytes after it; extendedWellFormed checks the others.
			switch sub, q := ExtSubtype(body[0]), body[1:]; {
			case sub >= InsertHeapRedundant && sub <= InsertReuseDynamic:
				wide := 2 + int(sub>>1&1) // COMPACT/DYNAMIC lengths may take three bytes
				i := skipField(q, 0, 3, 1)
				if sub == InsertReuseDynamic {
					i = skipField(q, i, 3, 1)
				}
				i = skipField(q, i, wide, 1)
				i = skipField(q, i, 2, 1)
				if skipField(q, i, wide, 0) < 0 {
					return pos, false
				}
			case sub == DeleteRowFormatDynamic:
				i := skipField(q, 0, 3, 1)
				i = skipField(q, i, 2, 1)
				if i < 0 || skipField(q, i, 3, 0) != len(q) {
					return pos, false
				}
			case sub == UndoAppend:
				if len(q) < 3 {
					return pos, false
				}
			default:
				if !extendedWellFormed(sub, q) {
					return pos, false
				}
			}
			last = 24
			if len(body) == 1 && ExtSubtype(body[0]) == TrimPages {
				last = 1
			}
		case Write: // countPageOp's WRITE of an offset of one or two bytes, without a call
			off, olen := uint32(0), 0
			if len(body) >= 2 && body[0] < 0x80 {
				off, olen = uint32(body[0]), 1
			} else if len(body) >= 3 && body[0] < 0xc0 {
				off, olen = (uint32(body[0]&0x3f)<<8|uint32(body[1]))+varint2Base, 2
			}
			if olen == 0 || last == 1 {
				if !countPageOp(typ, body, &last, pageSize) {
					return pos, false
				}
				break
			}
			// off < 16,512: the sums below do not wrap
			if last += off; last < 8 || last >= pageSize || last+uint32(len(body)-olen) > pageSize {
				return pos, false
			}
			last += uint32(len(body) - olen)
		default:
			if !countPageOp(typ, body, &last, pageSize) {
				return pos, false
			}
		}
		t.records++
		t.byType[typ]++
	}
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
// sub, with the bytes p after the subtype, without Malformed, for the subtypes countMTR does
// not check itself.
func extendedWellFormed(sub ExtSubtype, p []byte) bool {
	switch sub {
	case InitRowFormatRedundant, InitRowFormatDynamic, UndoInit, TrimPages:
		return len(p) == 0
	case DeleteRowFormatRedundant:
		_, n := Varint(p)
		return n != 0 && n == len(p)
	}
	return false
}

// skipField skips the varint field at p[i] of at most max bytes that must leave keep bytes
// after it: it returns the offset after it, or -1 (also when i is -1: a field before failed).
func skipField(p []byte, i, max, keep int) int {
	if uint(i) >= uint(len(p)) {
		return -1
	}
	n := int(varintLens[p[i]])
	if uint(n-1) >= uint(max) || len(p)-i-n < keep { // n is 0 (invalid) or more than max
		return -1
	}
	return i + n
}

// varintLens is VarintLen of each first byte.
var varintLens = func() (t [256]uint8) {
	for b := range t {
		t[b] = uint8(VarintLen(byte(b)))
	}
	return t
}()

// undoCount takes back what countMTR added to t since the mark m, before it returned false
// on the mini-transaction p or its checksum did not match: counting it again with a fresh
// tally finds the same records.
func (t *tally) undoCount(m tallyMark, p []byte, pageSize uint32) {
	u := &tally{}
	countMTR(p, pageSize, u)
	for k, c := range u.byType {
		t.byType[k] -= c
	}
	t.records, t.pages, t.last = m.records, t.pages[:m.pages], m.last
	t.seen = [len(t.seen)]uint64{} // it may hold pages taken back
}
