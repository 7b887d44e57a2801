package logformat

import (
	"encoding/binary"
	"fmt"
)

// decode splits the record bytes p[:end] into s.mtr.Records, applying the checks of the
// server's parser. It returns the offset of a corrupt record and why, or "" when all decode.
func (s *Scanner) decode(p []byte, end int) (int, string) { return s.decodeTo(p, end, nil) }

// decodeTo is decode; with a tally t, the records are not kept but counted into t (each in
// turn decoded into t.rec, with the same checks), and s.mtr.Records is left alone. On a
// corrupt record the records before it have been counted (see tally.undo).
func (s *Scanner) decodeTo(p []byte, end int, t *tally) (int, string) {
	var space, page uint32
	gotPageOp := false
	var last uint32 // running byte offset on the page; 1 = no same-page record may follow
	pageSize := uint32(s.opt.PageSize)
	recs := s.mtr.Records
	var rec *Record
	for pos := 0; pos < end; {
		if t != nil && pos > 0 {
			t.add(rec) // the previous record decoded
		}
		b := p[pos]
		start := pos
		bodyAt, next := recordSpan(p, pos)
		if next == 0 {
			bodyAt, next = recordSpanLong(p, pos)
		}
		body := p[bodyAt:next]
		pos = next
		if t != nil {
			rec = &t.rec
			*rec = Record{}
			rec.Pos, rec.Len = start, pos-start
		} else {
			// The record is built in place at the end of the slice (a Record is some 120
			// bytes; a composite literal appended would be built on the stack and copied).
			n := len(recs)
			if n == cap(recs) {
				recs = append(recs, Record{})
			} else {
				recs = recs[:n+1]
				recs[n] = Record{}
			}
			rec = &recs[n]
			rec.Pos, rec.Len = start, pos-start
		}
		if b&0x70 == uint8(Reserved) {
			return start, fmt.Sprintf("unknown log record type 0x%02x (RESERVED)", b)
		}
		if b&0x80 != 0 && gotPageOp {
			rec.SamePage, rec.Space, rec.Page, rec.Type = true, space, page, Type(b&0x70)
			if rec.Type <= InitPage {
				return start, rec.Type.String() + " record with the same_page flag"
			}
		} else {
			last = 0
			idlen := 0
			if len(body) > 0 {
				idlen = VarintLen(body[0])
			}
			if idlen == 0 || idlen >= len(body) {
				if b == uint8(FileCheckpoint)+1 && len(body) == 1 && body[0] == 0 {
					rec.Type = Padding
					continue
				}
				return start, "corrupted page identifier"
			}
			if idlen == 1 {
				space = uint32(body[0]) // the common case, without a call
			} else {
				space, _ = Varint(body)
			}
			body = body[idlen:]
			if body[0] < 0x80 {
				page, body = uint32(body[0]), body[1:]
			} else {
				v, n := Varint(body)
				if n == 0 {
					return start, "corrupted page identifier"
				}
				page, body = v, body[n:]
			}
			rec.Space, rec.Page = space, page
			gotPageOp = b&0x80 == 0
			if !gotPageOp {
				rec.Type = Type(b & 0xf0)
				if len(body) == 0 {
					if b == uint8(FileCheckpoint)+2 && space == 0 && page == 0 {
						rec.Type = Padding
						continue
					}
					return start, fmt.Sprintf("file record 0x%02x without a payload", b)
				}
				if why := decodeFile(rec, body, p[pos]); why != "" {
					return start, why
				}
				continue
			}
			rec.Type = Type(b & 0x70)
		}
		if rec.Len > int(pageSize) {
			return start, "record longer than a page"
		}
		if why := decodePageOp(rec, body, &last, pageSize); why != "" {
			return start, why
		}
	}
	if t != nil {
		if end > 0 {
			t.add(rec)
		}
		return 0, ""
	}
	s.mtr.Records = recs
	return 0, ""
}

// recordSpan parses the header of the 10.5+ record at p[pos] in a framed mini-transaction
// (mtrEnd has walked its length field): it returns the offsets of the record's payload and of
// the byte after the record. It is small enough to be inlined in the loops that walk records
// (decodeTo, countMTR), and so leaves a length field of three bytes (records of 16,528 bytes
// or more) to recordSpanLong: next is 0 then.
func recordSpan(p []byte, pos int) (body, next int) {
	if n := int(p[pos] & 0x0f); n != 0 {
		return pos + 1, pos + 1 + n
	}
	// A length of 16 or more: the varint of the length less 15 follows.
	switch c := p[pos+1]; {
	case c < 0x80:
		return pos + 2, pos + 16 + int(c)
	case c < 0xc0:
		return pos + 3, pos + 16 + varint2Base + (int(c&0x3f)<<8 | int(p[pos+2]))
	}
	return 0, 0
}

// recordSpanLong is recordSpan of a record whose length field is a varint of more than one
// byte.
func recordSpanLong(p []byte, pos int) (body, next int) {
	v, n := Varint(p[pos+1:])
	return pos + 1 + n, pos + 16 + int(v)
}

// decodePageOp decodes the payload of a page record and advances the running page offset.
func decodePageOp(rec *Record, body []byte, last *uint32, pageSize uint32) string {
	switch rec.Type {
	case FreePage, InitPage:
		if len(body) != 0 {
			return rec.Type.String() + " with a payload"
		}
		*last = 1
		if rec.Type == InitPage {
			*last = 24 // FIL_PAGE_TYPE
		}
	case Extended:
		if len(body) == 0 {
			return "EXTENDED record without a subtype"
		}
		rec.decodeExtended(body)
		*last = 24
		if len(body) == 1 && ExtSubtype(body[0]) == TrimPages {
			*last = 1
		}
	case Option:
		if len(body) > 0 {
			rec.Sub, rec.Data = body[0], body[1:]
		}
	case Write, Memset, Memmove:
		if len(body) == 0 || *last == 1 {
			return rec.Type.String() + " without payload or after FREE_PAGE/TRIM_PAGES"
		}
		off, olen := uint32(0), 1
		if len(body) != 0 && body[0] < 0x80 {
			off = uint32(body[0]) // the common case, without a call
		} else {
			off, olen = Varint(body)
		}
		if olen == 0 || olen > 3 || olen >= len(body) || off >= pageSize {
			return rec.Type.String() + ": bad page offset"
		}
		*last += off
		if *last < 8 || *last >= pageSize {
			return fmt.Sprintf("%s: page offset %d out of range", rec.Type, *last)
		}
		rec.Offset, body = *last, body[olen:]
		if rec.Type == Write {
			if uint32(len(body))+*last > pageSize {
				return "WRITE past the end of the page"
			}
			rec.Data, rec.Length = body, uint32(len(body))
			*last += uint32(len(body))
			return ""
		}
		n, llen := Varint(body)
		if llen == 0 || llen > 3 || *last+n > pageSize {
			return rec.Type.String() + ": bad length"
		}
		rec.Length, body = n, body[llen:]
		if rec.Type == Memset {
			if len(body) == 0 || uint32(len(body)) > n {
				return "MEMSET: fill pattern empty or longer than the target"
			}
			rec.Data = body
		} else {
			src, slen := Varint(body)
			if slen == 0 || slen > 3 || slen != len(body) {
				return "MEMMOVE: bad source offset"
			}
			// The sign is in the low bit: +x is (x-1)<<1, -x is (x-1)<<1|1.
			from := int64(*last) + int64(src>>1) + 1
			if src&1 != 0 {
				from = int64(*last) - int64(src>>1) - 1
			}
			if from < 8 || from+int64(n) > int64(pageSize) {
				return "MEMMOVE: source out of range"
			}
			rec.Source = uint32(from)
		}
		// The writer (and log_phys_t::apply) continues after the target range.
		*last += n
	}
	return ""
}

// decodeFile decodes a FILE_* record payload; next is the byte after the record.
func decodeFile(rec *Record, body []byte, next byte) string {
	switch rec.Type {
	case FileCheckpoint:
		if rec.Space != 0 || rec.Page != 0 || next > 1 {
			return "FILE_CHECKPOINT not alone at the end of its mini-transaction"
		}
		if len(body) != 8 {
			if allZero(body) {
				return fmt.Sprintf("FILE_CHECKPOINT with a %d-byte zero payload", len(body))
			}
			rec.Malformed = fmt.Sprintf("%d-byte payload (ignored by the server)", len(body))
			return ""
		}
		rec.CheckpointLSN = binary.BigEndian.Uint64(body)
		return ""
	case FileCreate, FileDelete, FileModify, FileRename:
	default:
		return fmt.Sprintf("unknown file record type 0x%02x", uint8(rec.Type))
	}
	if rec.Space == 0 || rec.Space == 0xfffffffe || rec.Page != 0 {
		return fmt.Sprintf("%s for space %d page %d", rec.Type, rec.Space, rec.Page)
	}
	name, name2 := body, []byte(nil)
	for i, c := range body {
		if c == 0 {
			name, name2 = body[:i], body[i+1:]
			break
		}
	}
	if (name2 != nil) != (rec.Type == FileRename) {
		return rec.Type.String() + ": wrong number of file names"
	}
	for _, n := range [][]byte{name, name2} {
		if n == nil && rec.Type != FileRename {
			continue
		}
		if len(n) < 4 || string(n[len(n)-4:]) != ".ibd" {
			return fmt.Sprintf("%s: file name %q does not end in .ibd", rec.Type, n)
		}
		for _, c := range n {
			if c == 0 {
				return rec.Type.String() + ": NUL inside a file name"
			}
		}
	}
	rec.Data = body // Name and NewName read the names from it
	return ""
}
