package rows

import (
	"encoding/binary"

	"innoscope/discovery"
)

// Carving: record images in the unused bytes of a leaf page whose checksum holds. A position
// is taken for a record's origin only when everything about it is what the server writes:
//
//   - the header: status ordinary (or instant, in a table with instantly added columns), no
//     flag but the delete mark, a heap number of a user record (>= 2), at most 8 records owned
//     (PAGE_DIR_SLOT_MAX_N_OWNED), a next-record field pointing inside the page or nowhere;
//     REDUNDANT: as many fields as the index, 1-byte end offsets exactly when the record is
//     short (<= 127 bytes, REC_1BYTE_OFFS_LIMIT) and nothing is off page;
//   - the whole record, header and data, inside the unused span;
//   - every field the index's (validFields), DB_TRX_ID not 0;
//   - every value formats, an off-page one read whole from BLOB pages whose checksums hold.
//
// An image accepted is skipped over; otherwise the next byte is tried.

const (
	pageHeapTop  = pageHeader + 2
	maxOwned     = 8   // PAGE_DIR_SLOT_MAX_N_OWNED
	heapStartNew = 120 // PAGE_NEW_SUPREMUM_END
	heapStartOld = 125 // PAGE_OLD_SUPREMUM_END
	oneByteLimit = 127 // REC_1BYTE_OFFS_LIMIT
	dirSlotSize  = 2
	pageDataEnd  = 8 // FIL_PAGE_DATA_END
)

// carve looks for record images in the bytes of page p that no record of its list or its free
// list covers (used), from the end of the supremum to the page directory.
func (d *deletedScan) carve(p []byte, no uint32, ip discovery.IndexPage, used []bool) {
	start := heapStartNew
	if !ip.Compact {
		start = heapStartOld
	}
	end := len(p) - pageDataEnd - dirSlotSize*int(ip.NDirSlots)
	if end <= start || end > len(p) {
		return
	}
	for lo := start; lo < end; {
		if used[lo] {
			lo++
			continue
		}
		hi := lo
		for hi < end && !used[hi] {
			hi++
		}
		d.carveSpan(p, no, ip.Compact, lo, hi)
		lo = hi
	}
}

// carveSpan tries every origin in [lo, hi).
func (d *deletedScan) carveSpan(p []byte, no uint32, compact bool, lo, hi int) {
	extra := compactExtra
	if !compact {
		extra = redundantExtra + 1
	}
	for o := lo + extra; o < hi; o++ {
		if e, ok := d.carveAt(p, no, compact, o, lo, hi); ok {
			o = e - 1 + extra // the next record's header follows this one's data
		}
	}
}

// carveAt tries the origin o inside [lo, hi); it returns the end of the image it accepted.
func (d *deletedScan) carveAt(p []byte, no uint32, compact bool, o, lo, hi int) (int, bool) {
	r := d.r
	var rec record
	var err error
	if compact {
		if !plausibleCompact(p, o, r.lay) {
			return 0, false
		}
		rec, err = decodeCompact(p, o, r.lay, false, nil)
	} else {
		if !plausibleRedundant(p, o, len(r.lay.flds), r.lay.nCore) {
			return 0, false
		}
		rec, err = decodeRedundant(p, o, nil)
	}
	if err != nil || rec.info&infoMinRec != 0 || !d.validImage(rec.vals) {
		return 0, false
	}
	ext := r.extent(p, o, compact, rec)
	if ext[0] < lo || ext[1] > hi {
		return 0, false
	}
	if !compact && redundantShort(rec) != (p[o-3]&1 != 0) {
		return 0, false
	}
	trx := rec.vals[r.lay.nUniq].b
	if len(trx) != sysTrxIDLen || isZero(trx) {
		return 0, false
	}
	if !d.add(rec, SourceCarved, no, o) {
		return 0, false
	}
	return ext[1], true
}

// plausibleCompact checks the COMPACT header at o before the record is decoded.
func plausibleCompact(p []byte, o int, lay *layout) bool {
	if o-compactExtra < FilData || o >= len(p)-pageDataEnd {
		return false
	}
	info := p[o-5]
	status := p[o-3] & 7
	heapNo := int(binary.BigEndian.Uint16(p[o-4:]) >> 3)
	switch {
	case info&0xf0&^infoDeleted != 0, int(info&0x0f) > maxOwned, heapNo < 2:
		return false
	case status != statusOrdinary && (status != statusInstant || lay.nCore == len(lay.flds)):
		return false
	}
	if rel := binary.BigEndian.Uint16(p[o-2:]); rel != 0 {
		next := (o + int(rel)) & (len(p) - 1)
		if next < infimumNew || next >= len(p)-pageDataEnd {
			return false
		}
	}
	return true
}

// plausibleRedundant checks the REDUNDANT header at o: the flags, the heap number, the number
// of fields and the next-record field.
func plausibleRedundant(p []byte, o, nFields, nCore int) bool {
	if o-redundantExtra < FilData || o >= len(p)-pageDataEnd {
		return false
	}
	info := p[o-6]
	heapNo := int(binary.BigEndian.Uint16(p[o-5:]) >> 3)
	n := int(binary.BigEndian.Uint16(p[o-4:])&0x7fe) >> 1
	next := int(binary.BigEndian.Uint16(p[o-2:]))
	switch {
	case info&0xf0&^infoDeleted != 0, int(info&0x0f) > maxOwned, heapNo < 2:
		return false
	case n < nCore || n > nFields:
		return false
	case next != 0 && (next < infimumOld || next >= len(p)-pageDataEnd):
		return false
	}
	return true
}

// redundantShort: the record is stored with 1-byte end offsets (rec_set_1byte_offs_flag: its
// data is at most 127 bytes and nothing is off page).
func redundantShort(rec record) bool {
	data := 0
	for _, v := range rec.vals {
		data += len(v.b)
		if v.ext {
			return false
		}
	}
	return data <= oneByteLimit
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
