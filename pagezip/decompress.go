package pagezip

import (
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
)

// How the server lays out a ROW_FORMAT=COMPRESSED B-tree page (page0zip), as rebuilt here:
//
//   - The first 94 bytes (file header and index page header) are stored as they are.
//   - The infimum and supremum records and the 5 fixed header bytes of every record (info
//     bits, n_owned, heap number, status, next-record link) are not stored: they follow from
//     the dense directory.
//   - The dense directory sits at the very end of the page, 2 bytes per record in the heap
//     (last slot first): first the records of the page in key order, then the deleted records
//     on the free list. Each slot is the record's offset with 0x4000 "owns a sparse directory
//     slot" and 0x8000 "delete-marked".
//   - In front of the dense directory, in heap-number order counting down: on clustered leaf
//     pages the 13 bytes DB_TRX_ID+DB_ROLL_PTR of each record, then the 20-byte BLOB
//     references of the live records' off-page fields; on node pointer pages the 4-byte child
//     page number of each record.
//   - After the page header comes a zlib stream: the index description (zipfields.go) up to a
//     flush point, then the uncompressed page from the end of the supremum record to the heap
//     top with the pieces above left out, records in address (heap) order.
//   - After the stream, a modification log: records written since the page was last
//     compressed, each as its heap number (times 2, +1 when the record was freed and its data
//     is to be cleared; one or two bytes), its header bytes (reversed) and data bytes (without
//     the pieces kept elsewhere). A zero byte ends the log.
//
// Records added after the compression may be missing from the stream (it ends early); they
// are in the log.

// The page layout this package needs (fil0fil.h, page0page.h, rem0rec.h).
const (
	pageHeader    = 38  // FIL_PAGE_DATA: the index page header
	infimumNew    = 99  // the infimum record's origin on a COMPACT page
	supremumNew   = 112 // the supremum record's origin
	compactExtra  = 5   // REC_N_NEW_EXTRA_BYTES
	sysTrxIDLen   = 6   // DB_TRX_ID
	sysRollPtrLen = 7   // DB_ROLL_PTR
	fieldRefSize  = 20  // BTR_EXTERN_FIELD_REF_SIZE
	filNull       = 0xffffffff
	// a record's status (the low 3 bits of its third header byte)
	statusOrdinary = 0
	statusNodePtr  = 1
	// a record's info bits
	infoMinRec  = 0x10
	infoDeleted = 0x20
)

const (
	pageDataZip = 94  // PAGE_DATA: where the stream starts
	zipStart    = 120 // PAGE_ZIP_START: the end of the supremum record
	pageDirEnd  = 8   // PAGE_DIR: the page trailer below the sparse directory
	dirSlotMask = 0x3fff
	dirOwned    = 0x4000
	dirDeleted  = 0x8000
	trxRollLen  = sysTrxIDLen + sysRollPtrLen
)

// limitReader reads b[pos:end]; end may shrink while reading.
type limitReader struct {
	b        []byte
	pos, end int
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.pos >= l.end {
		return 0, io.ErrUnexpectedEOF
	}
	n := copy(p, l.b[l.pos:l.end])
	l.pos += n
	return n, nil
}

func (l *limitReader) ReadByte() (byte, error) {
	if l.pos >= l.end {
		return 0, io.ErrUnexpectedEOF
	}
	l.pos++
	return l.b[l.pos-1], nil
}

// Decompress rebuilds the uncompressed index page (of size bytes) from the compressed
// page zip, as page_zip_decompress does; an inconsistent page is an error, never a panic.
func Decompress(zip []byte, size int) (page []byte, err error) {
	be := binary.BigEndian
	zs := len(zip)
	if zs < 1024 || zs > size || size > 1<<16 {
		return nil, fmt.Errorf("compressed page of %d bytes for %d-byte pages", zs, size)
	}
	nHeap := int(be.Uint16(zip[pageHeader+4:]) & 0x7fff)
	nSlots := int(be.Uint16(zip[pageHeader:]))
	nRecs := int(be.Uint16(zip[pageHeader+16:]))
	leaf := be.Uint16(zip[pageHeader+26:]) == 0
	if nHeap < 2 || (nHeap-2)*2 >= zs || nRecs > nHeap-2 || nSlots < 2 || size-pageDirEnd-2*nSlots < zipStart {
		return nil, fmt.Errorf("compressed page: %d records, %d in the heap, %d directory slots", nRecs, nHeap, nSlots)
	}
	nDense := nHeap - 2
	dir := func(i int) int { return int(be.Uint16(zip[zs-2*(i+1):])) }
	out := make([]byte, size)
	copy(out, zip[:pageDataZip])
	put := func(at, v int) { be.PutUint16(out[at:], uint16(v)) }

	// The sparse directory, from the records owning a slot; recs: the heap in address order.
	slot := size - pageDirEnd - 2
	lastSlot := size - pageDirEnd - 2*nSlots
	put(slot, infimumNew)
	recs := make([]int, nDense)
	for i := 0; i < nDense; i++ {
		o := dir(i)
		if i < nRecs {
			if o&dirOwned != 0 {
				slot -= 2
				if slot <= lastSlot {
					return nil, fmt.Errorf("compressed page: more owners than the %d directory slots", nSlots)
				}
				put(slot, o&dirSlotMask)
			}
		} else if o&^dirSlotMask != 0 {
			return nil, fmt.Errorf("compressed page: free record slot 0x%x", o)
		}
		o &= dirSlotMask
		if o < zipStart+compactExtra || o >= lastSlot {
			return nil, fmt.Errorf("compressed page: record offset %d", o)
		}
		recs[i] = o
	}
	slot -= 2
	if slot != lastSlot {
		return nil, fmt.Errorf("compressed page: %d directory slots, %d owners", nSlots, (size-pageDirEnd-slot)/2-2)
	}
	put(slot, supremumNew)
	sort.Ints(recs)
	for i := 1; i < nDense; i++ {
		if recs[i] == recs[i-1] {
			return nil, fmt.Errorf("compressed page: record %d twice in the directory", recs[i])
		}
	}

	// Infimum and supremum.
	copy(out[infimumNew-compactExtra:], []byte{0x01, 0x00, 0x02})
	first := supremumNew
	if nRecs > 0 {
		first = dir(0) & dirSlotMask
	}
	put(infimumNew-2, first-infimumNew)
	copy(out[infimumNew:], "infimum\x00")
	copy(out[supremumNew-compactExtra+1:], []byte{0x00, 0x0b, 0x00, 0x00})
	copy(out[supremumNew:], "supremum")

	// The stream: the index description up to the first flush point, then the records.
	src := &limitReader{b: zip, pos: pageDataZip, end: zs - 1}
	zr, err := zlib.NewReader(src)
	if err != nil {
		return nil, fmt.Errorf("compressed page: zlib header: %v", err)
	}
	buf := make([]byte, size)
	n, err := zr.Read(buf)
	if n == 0 {
		return nil, fmt.Errorf("compressed page: no index description: %v", err)
	}
	ix, err := decodeZipFields(buf[:n], leaf)
	if err != nil {
		return nil, fmt.Errorf("compressed page: %w", err)
	}
	per := 2 + 4 // slot and child page number
	switch {
	case leaf && ix.trxCol >= 0:
		per = 2 + trxRollLen
	case leaf:
		per = 2
	}
	if src.end -= nDense * per; src.end < src.pos {
		return nil, fmt.Errorf("compressed page: %d records leave no room for the stream", nDense)
	}
	d, err := io.ReadAll(io.LimitReader(zr, int64(size)))
	if err != nil {
		return nil, fmt.Errorf("compressed page: zlib: %v", err)
	}
	if _, err := zr.Read(buf[:1]); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("compressed page: the stream does not end (%v)", err)
	}
	logStart, logEnd := src.pos, src.end+1

	status := statusOrdinary
	if !leaf {
		status = statusNodePtr
	}
	heap := status | 2<<3 // heap number and status of the next record
	pos, c := zipStart, 0
	var o zipOffs
	// fill copies the stream's bytes up to to.
	fill := func(to int) error {
		k := to - pos
		if k < 0 || c+k > len(d) {
			return fmt.Errorf("compressed page: the stream does not reach offset %d", to)
		}
		copy(out[pos:], d[c:c+k])
		c += k
		pos = to
		return nil
	}
	ended := false
	for _, rec := range recs {
		k := rec - compactExtra - pos
		if k < 0 {
			return nil, fmt.Errorf("compressed page: record %d overlaps the one before", rec)
		}
		if c+k >= len(d) { // the stream ends: the rest of the records are in the log
			copy(out[pos:], d[c:])
			pos += len(d) - c
			if c+k == len(d) {
				put(rec-4, heap)
				heap += 8
			}
			c, ended = len(d), true
			break
		}
		if err := fill(rec - compactExtra); err != nil {
			return nil, err
		}
		put(rec-4, heap)
		heap += 8
		pos = rec
		if err := ix.offsets(out, rec, !leaf, &o); err != nil {
			return nil, fmt.Errorf("compressed page: %w", err)
		}
		switch {
		case !leaf:
			if err := fill(o.recEnd - 4); err != nil {
				return nil, err
			}
			pos += 4
		case ix.trxCol >= 0:
			for i := range ix.flds {
				skip, at := 0, 0
				switch {
				case i == ix.trxCol:
					if o.end[i]-o.start[i] < trxRollLen || o.ext[i] {
						return nil, fmt.Errorf("compressed page: record %d: DB_TRX_ID field of %d bytes", rec, o.end[i]-o.start[i])
					}
					skip, at = trxRollLen, o.start[i]
				case o.ext[i]:
					if o.end[i]-o.start[i] < fieldRefSize {
						return nil, fmt.Errorf("compressed page: record %d: off-page field of %d bytes", rec, o.end[i]-o.start[i])
					}
					skip, at = fieldRefSize, o.end[i]-fieldRefSize
				default:
					continue
				}
				if err := fill(at); err != nil {
					return nil, err
				}
				pos += skip
			}
			if err := fill(o.recEnd); err != nil {
				return nil, err
			}
		}
	}
	if !ended {
		// Whatever follows the last record up to the heap top.
		top := int(be.Uint16(zip[pageHeader+2:]))
		if top < pos || top > lastSlot || len(d)-c > top-pos {
			return nil, fmt.Errorf("compressed page: %d stream bytes after offset %d, heap top %d", len(d)-c, pos, top)
		}
		copy(out[pos:], d[c:])
	}

	mEnd, err := applyZipLog(out, zip[logStart:logEnd], logStart, recs, ix, leaf, heap)
	if err != nil {
		return nil, err
	}
	if nDense*per+mEnd >= zs {
		return nil, fmt.Errorf("compressed page: modification log ends at %d, into the %d-byte trailer", mEnd, nDense*per)
	}
	if err := restoreZipColumns(out, zip, recs, ix, leaf, nRecs, mEnd); err != nil {
		return nil, err
	}
	if err := linkZipRecords(out, zip, nRecs, nDense, leaf); err != nil {
		return nil, err
	}
	return out, nil
}
