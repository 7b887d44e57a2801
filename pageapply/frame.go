package pageapply

import (
	"encoding/binary"
	"fmt"
)

// Byte offsets inside an index page (fil0fil.h, page0page.h, rem0rec.h) that record
// application needs. PAGE_* fields are relative to pageHeader.
const (
	filPageOffset  = 4
	filPagePrev    = 8
	filPageLSN     = 16
	filPageType    = 24
	filPageSpaceID = 34
	pageHeader     = 38 // FIL_PAGE_DATA: the index page header starts here
	pageDir        = 8  // FIL_PAGE_DATA_END: the page directory ends this far before the end

	pageNDirSlots  = 0
	pageHeapTop    = 2
	pageNHeap      = 4
	pageFree       = 6
	pageGarbage    = 8
	pageLastInsert = 10
	pageInstant    = 12 // high byte of PAGE_DIRECTION (MariaDB instant ADD COLUMN)
	pageDirectionB = 13
	pageNDirection = 14
	pageNRecs      = 16
	pageLevel      = 26
	pagePrivEnd    = 26 // PAGE_HEADER_PRIV_END: page_create_low clears [0, 26)

	pageData           = pageHeader + 36 + 2*10 // after the two FSEG headers: 94
	oldInfimum         = pageData + 1 + 6       // 101
	oldSupremum        = pageData + 2 + 2*6 + 8 // 116
	oldSupremumEnd     = oldSupremum + 9        // 125
	newInfimum         = pageData + 5           // 99
	newSupremum        = pageData + 2*5 + 8     // 112
	newSupremumEnd     = newSupremum + 8        // 120
	oldExtraBytes      = 6                      // REC_N_OLD_EXTRA_BYTES
	newExtraBytes      = 5                      // REC_N_NEW_EXTRA_BYTES
	heapNoUserLow      = 2
	dirSlotMaxNOwned   = 8
	dirSlotMinNOwned   = 4
	recMaxNFields      = 1023
	pageNoDirection    = 5
	pageLeft           = 1
	pageRight          = 2
	recStatusNodePtr   = 1
	recStatusInstant   = 4
	pageTypeIndex      = 17855
	pageTypeRtree      = 17854
	pageTypeInstant    = 18
	pageTypeUndoLog    = 2
	undoPageHdr        = 38           // TRX_UNDO_PAGE_HDR
	undoPageHdrSize    = 18           // TRX_UNDO_PAGE_HDR_SIZE
	undoSegHdrEnd      = 38 + 18 + 30 // TRX_UNDO_SEG_HDR + TRX_UNDO_SEG_HDR_SIZE
	undoPageStart      = undoPageHdr + 2
	undoPageFree       = undoPageHdr + 4
	undoPageNode       = undoPageHdr + 6
	fspHeaderOffset    = 38
	fspSize            = fspHeaderOffset + 8
	fspSpaceFlags      = fspHeaderOffset + 16
	filNull            = 0xffffffff
	maxPageSizeDefault = 65536
)

// The infimum and supremum records of an empty page (page0page.cc), from PAGE_DATA on.
var (
	infimumSupremumRedundant = []byte{
		0x08, 0x01, 0x00, 0x00, 0x03, 0x00, 0x74, 'i', 'n', 'f', 'i', 'm', 'u', 'm', 0,
		0x09, 0x01, 0x00, 0x08, 0x03, 0x00, 0x00, 's', 'u', 'p', 'r', 'e', 'm', 'u', 'm', 0,
	}
	infimumSupremumCompact = []byte{
		0x01, 0x00, 0x02, 0x00, 0x0d, 'i', 'n', 'f', 'i', 'm', 'u', 'm', 0,
		0x01, 0x00, 0x0b, 0x00, 0x00, 's', 'u', 'p', 'r', 'e', 'm', 'u', 'm',
	}
)

// frame is one page image being recovered. Offsets are ints; every accessor is only called
// after the caller has checked the offset against the page bounds.
type frame []byte

func (f frame) u16(off int) int         { return int(binary.BigEndian.Uint16(f[off:])) }
func (f frame) put16(off int, v int)    { binary.BigEndian.PutUint16(f[off:], uint16(v)) }
func (f frame) u32(off int) uint32      { return binary.BigEndian.Uint32(f[off:]) }
func (f frame) hdr(field int) int       { return f.u16(pageHeader + field) }
func (f frame) setHdr(field int, v int) { f.put16(pageHeader+field, v) }
func (f frame) comp() bool              { return f.hdr(pageNHeap)&0x8000 != 0 }
func (f frame) leaf() bool              { return f.hdr(pageLevel) == 0 }
func (f frame) nSlots() int             { return f.hdr(pageNDirSlots) }

// slot is the byte offset of directory slot n (slot 0 points to the infimum).
func (f frame) slot(n int) int { return len(f) - pageDir - 2*(n+1) }

// isIndex is fil_page_index_page_check.
func (f frame) isIndex() bool {
	t := f.u16(filPageType)
	return t == pageTypeIndex || t == pageTypeRtree || t == pageTypeInstant
}

// Record header fields. Old-style (REDUNDANT) records keep n_owned and the info bits in the
// byte before the 2-byte next pointer block; new-style (COMPACT) records have 5 extra bytes.
func (f frame) nOwned(rec int, comp bool) int {
	if comp {
		return int(f[rec-5] & 0x0f)
	}
	return int(f[rec-6] & 0x0f)
}

func (f frame) setNOwned(rec, n int, comp bool) {
	i := rec - 6
	if comp {
		i = rec - 5
	}
	f[i] = f[i]&0xf0 | byte(n)
}

func (f frame) heapNoOld(rec int) int  { return (f.u16(rec-5) & 0xfff8) >> 3 }
func (f frame) heapNoNew(rec int) int  { return (f.u16(rec-4) & 0xfff8) >> 3 }
func (f frame) nFieldsOld(rec int) int { return (f.u16(rec-4) & 0x7fe) >> 1 }
func (f frame) shortOld(rec int) bool  { return f[rec-3]&1 != 0 }

// extraSizeOld is the header size of a REDUNDANT record.
func (f frame) extraSizeOld(rec int) int {
	n := f.nFieldsOld(rec)
	if f.shortOld(rec) {
		return oldExtraBytes + n
	}
	return oldExtraBytes + 2*n
}

// dataSizeOld is rec_get_data_size_old: the end offset of the last field.
func (f frame) dataSizeOld(rec int) int {
	n := f.nFieldsOld(rec)
	if f.shortOld(rec) {
		return int(f[rec-(oldExtraBytes+n)] & 0x7f)
	}
	return f.u16(rec-(oldExtraBytes+2*n)) & 0x3fff
}

// next is the successor of rec (0 at the end of the list): REDUNDANT pages store an absolute
// offset, COMPACT pages one relative to rec, modulo 64 KiB.
func (f frame) next(rec int, comp bool) int {
	v := f.u16(rec - 2)
	if !comp {
		return v
	}
	if v == 0 {
		return 0
	}
	return (rec + v) & 0xffff
}

// applyError reports an EXTENDED record the page does not fit, like the server's "Not
// applying ... due to corruption".
type applyError struct{ what, why string }

func (e *applyError) Error() string { return "not applying " + e.what + ": " + e.why }

func corrupt(what, format string, a ...any) error {
	return &applyError{what: what, why: fmt.Sprintf(format, a...)}
}

// pageCreate is page_create_low: an empty index page (INIT_ROW_FORMAT_*).
func pageCreate(f frame, comp bool) {
	f.put16(filPageType, pageTypeIndex)
	clear(f[pageHeader : pageHeader+pagePrivEnd])
	f[pageHeader+pageNDirSlots+1] = 2
	f[pageHeader+pageInstant] = 0
	f[pageHeader+pageDirectionB] = pageNoDirection
	infimum, supremum, end, recs := oldInfimum, oldSupremum, oldSupremumEnd, infimumSupremumRedundant
	if comp {
		infimum, supremum, end, recs = newInfimum, newSupremum, newSupremumEnd, infimumSupremumCompact
		f[pageHeader+pageNHeap] = 0x80 // the COMPACT flag of PAGE_N_HEAP
	}
	f[pageHeader+pageNHeap+1] = heapNoUserLow
	f[pageHeader+pageHeapTop+1] = byte(end)
	copy(f[pageData:], recs)
	size := len(f)
	clear(f[end : size-pageDir])
	f[size-pageDir-4+1] = byte(supremum) // slot 1
	f[size-pageDir-2+1] = byte(infimum)  // slot 0
}

// undoPageInit is trx_undo_page_init (UNDO_INIT): the undo page header of an empty page; the
// undo segment header is kept and the rest of the page cleared.
func undoPageInit(f frame) {
	f.put16(filPageType, pageTypeUndoLog)
	f.put16(undoPageHdr, 0)
	f.put16(undoPageStart, undoPageHdr+undoPageHdrSize)
	f.put16(undoPageFree, undoPageHdr+undoPageHdrSize)
	binary.BigEndian.PutUint32(f[undoPageNode:], filNull)   // FLST_PREV page
	f.put16(undoPageNode+4, 0)                              // FLST_PREV byte
	binary.BigEndian.PutUint32(f[undoPageNode+6:], filNull) // FLST_NEXT page
	f.put16(undoPageNode+10, 0)                             // FLST_NEXT byte
	clear(f[undoSegHdrEnd : len(f)-pageDir])
}

// undoAppend is UNDO_APPEND: the record goes at TRX_UNDO_PAGE_FREE between a 2-byte pointer
// to its end and a 2-byte pointer back to its start.
func undoAppend(f frame, data []byte) error {
	free := f.u16(undoPageFree)
	if free < undoPageHdr+undoPageHdrSize || free+len(data)+6 >= len(f)-pageDir {
		return corrupt("UNDO_APPEND", "TRX_UNDO_PAGE_FREE %d cannot take %d bytes", free, len(data))
	}
	end := free + 4 + len(data)
	f.put16(undoPageFree, end)
	f.put16(free, end)
	copy(f[free+2:], data)
	f.put16(free+2+len(data), free)
	return nil
}
