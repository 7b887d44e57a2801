package pagezip

import (
	"encoding/binary"
	"fmt"
)

// applyZipLog replays the modification log b (which starts at offset base of the compressed
// page) onto the page out being rebuilt; heap is the heap number and status the next new
// record gets. It returns the offset of the log's end marker.
func applyZipLog(out, b []byte, base int, recs []int, ix *zipIndex, leaf bool, heap int) (int, error) {
	be := binary.BigEndian
	var o zipOffs
	bad := func(at int, format string, a ...any) error {
		return fmt.Errorf("compressed page: modification log at %d: %s", base+at, fmt.Sprintf(format, a...))
	}
	p := 0
	for {
		if p >= len(b) {
			return 0, bad(p, "no end marker")
		}
		at := p
		v := int(b[p])
		p++
		if v == 0 {
			return base + at, nil
		}
		if v&0x80 != 0 {
			if p >= len(b) {
				return 0, bad(at, "entry cut short")
			}
			v = (v&0x7f)<<8 | int(b[p])
			p++
			if v == 0 {
				return 0, bad(at, "invalid entry")
			}
		}
		if p >= len(b) {
			return 0, bad(at, "entry cut short")
		}
		h := v >> 1
		if h < 1 || h > len(recs) {
			return 0, bad(at, "record %d of %d", h, len(recs))
		}
		rec := recs[h-1]
		hs := (h+1)<<3 | heap&7
		switch {
		case hs > heap:
			return 0, bad(at, "heap number %d beyond the next free one %d", h+1, heap>>3)
		case hs == heap:
			if v&1 != 0 {
				return 0, bad(at, "a new record cleared")
			}
			heap += 8
		}
		be.PutUint16(out[rec-4:], uint16(hs))
		if v&1 != 0 { // freed: clear its data
			if err := ix.offsets(out, rec, !leaf, &o); err != nil {
				return 0, bad(at, "%v", err)
			}
			clear(out[rec:o.recEnd])
			continue
		}
		n, err := ix.logExtra(b[p:])
		if err != nil {
			return 0, bad(at, "%v", err)
		}
		if rec-compactExtra-n < zipStart {
			return 0, bad(at, "record %d header of %d bytes", rec, n)
		}
		for k := 0; k < n; k++ {
			out[rec-compactExtra-1-k] = b[p+k]
		}
		p += n
		if err := ix.offsets(out, rec, !leaf, &o); err != nil {
			return 0, bad(at, "%v", err)
		}
		// copy moves the log's next bytes to out[from:to]; the log must go on after them.
		copyTo := func(from, to int) error {
			if to < from || p+to-from >= len(b) {
				return bad(at, "record %d: %d data bytes", rec, to-from)
			}
			copy(out[from:to], b[p:p+to-from])
			p += to - from
			return nil
		}
		switch {
		case o.anyExt:
			if !leaf {
				return 0, bad(at, "off-page field in a node pointer")
			}
			next := rec
			for i := range ix.flds {
				skip, to := 0, 0
				switch {
				case i == ix.trxCol:
					if o.end[i]-o.start[i] < trxRollLen || o.ext[i] {
						return 0, bad(at, "record %d: DB_TRX_ID field", rec)
					}
					skip, to = trxRollLen, o.start[i]
				case o.ext[i]:
					if o.end[i]-o.start[i] < fieldRefSize {
						return 0, bad(at, "record %d: off-page field of %d bytes", rec, o.end[i]-o.start[i])
					}
					skip, to = fieldRefSize, o.end[i]-fieldRefSize
				default:
					continue
				}
				if err := copyTo(next, to); err != nil {
					return 0, err
				}
				next = to + skip
			}
			if err := copyTo(next, o.recEnd); err != nil {
				return 0, err
			}
		case !leaf:
			if err := copyTo(rec, o.recEnd-4); err != nil {
				return 0, err
			}
		case ix.trxCol < 0:
			if err := copyTo(rec, o.recEnd); err != nil {
				return 0, err
			}
		default:
			t := ix.trxCol
			if o.end[t]-o.start[t] < trxRollLen {
				return 0, bad(at, "record %d: DB_TRX_ID field", rec)
			}
			if err := copyTo(rec, o.start[t]); err != nil {
				return 0, err
			}
			if err := copyTo(o.start[t]+trxRollLen, o.recEnd); err != nil {
				return 0, err
			}
		}
	}
}

// restoreZipColumns puts back what the compressed page keeps uncompressed at its end: the
// child page numbers of node pointers, or DB_TRX_ID+DB_ROLL_PTR of every record and the BLOB
// references of the live ones (freed records get zero references). mEnd: the end of the log.
func restoreZipColumns(out, zip []byte, recs []int, ix *zipIndex, leaf bool, nRecs, mEnd int) error {
	be := binary.BigEndian
	zs := len(zip)
	storage := zs - 2*len(recs)
	if leaf && ix.trxCol < 0 {
		return nil
	}
	free := map[int]bool{}
	for i := nRecs; i < len(recs); i++ {
		free[int(be.Uint16(zip[zs-2*(i+1):]))&dirSlotMask] = true
	}
	externs := storage - trxRollLen*len(recs)
	var o zipOffs
	for _, rec := range recs {
		if err := ix.offsets(out, rec, !leaf, &o); err != nil {
			return fmt.Errorf("compressed page: %w", err)
		}
		if !leaf {
			storage -= 4
			copy(out[o.recEnd-4:o.recEnd], zip[storage:])
			continue
		}
		t := ix.trxCol
		if o.end[t]-o.start[t] < trxRollLen {
			return fmt.Errorf("compressed page: record %d: DB_TRX_ID field of %d bytes", rec, o.end[t]-o.start[t])
		}
		storage -= trxRollLen
		copy(out[o.start[t]:o.start[t]+trxRollLen], zip[storage:])
		for i := range ix.flds {
			if !o.ext[i] {
				continue
			}
			if o.end[i]-o.start[i] < fieldRefSize {
				return fmt.Errorf("compressed page: record %d: off-page field of %d bytes", rec, o.end[i]-o.start[i])
			}
			dst := out[o.end[i]-fieldRefSize : o.end[i]]
			if free[rec] {
				clear(dst)
				continue
			}
			externs -= fieldRefSize
			if externs < mEnd {
				return fmt.Errorf("compressed page: BLOB references run into the modification log at %d", mEnd)
			}
			copy(dst, zip[externs:])
		}
	}
	return nil
}

// linkZipRecords writes the fixed header bytes the compressed page leaves out: the record
// list in the dense directory's order, the delete marks, n_owned, the minimum-record mark of
// the first node pointer of a level, and the free list.
func linkZipRecords(out, zip []byte, nRecs, nDense int, leaf bool) error {
	be := binary.BigEndian
	zs := len(zip)
	dir := func(i int) int { return int(be.Uint16(zip[zs-2*(i+1):])) }
	link := func(rec, next int) {
		if next == 0 {
			be.PutUint16(out[rec-2:], 0)
			return
		}
		be.PutUint16(out[rec-2:], uint16(next-rec))
	}
	info := 0
	if !leaf && be.Uint32(zip[8:]) == filNull { // FIL_PAGE_PREV
		info = infoMinRec
	}
	owned, rec := 1, infimumNew
	for i := 0; i < nRecs; i++ {
		o := dir(i)
		if o&dirDeleted != 0 {
			info |= infoDeleted
		}
		if o&dirOwned != 0 {
			info |= owned
			owned = 1
		} else {
			owned++
		}
		o &= dirSlotMask
		link(rec, o)
		rec = o
		out[rec-compactExtra] = byte(info)
		info = 0
	}
	link(rec, supremumNew)
	out[supremumNew-compactExtra] = byte(owned)
	if nRecs == nDense {
		return nil
	}
	for i := nRecs; ; {
		rec = dir(i)
		if rec == 0 || rec&^dirSlotMask != 0 {
			return fmt.Errorf("compressed page: free list slot 0x%x", rec)
		}
		out[rec-compactExtra] = 0
		if i++; i == nDense {
			break
		}
		link(rec, dir(i))
	}
	out[rec-compactExtra] = 0
	link(rec, 0)
	return nil
}
