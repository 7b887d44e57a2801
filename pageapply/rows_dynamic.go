package pageapply

// insertDynamic applies INSERT_HEAP_DYNAMIC / INSERT_REUSE_DYNAMIC (COMPACT and DYNAMIC rows).
func insertDynamic(f frame, reuse bool, prev, shift, encHdrL, hdrC, dataC int, data []byte) error {
	what := "INSERT_HEAP_DYNAMIC"
	if reuse {
		what = "INSERT_REUSE_DYNAMIC"
	}
	size := len(f)
	nSlots, h := f.nSlots(), f.hdr(pageNHeap)
	if nSlots < 2 || h < heapNoUserLow|0x8000 || h&0x7fff >= size/newExtraBytes || h&0x7fff < nSlots ||
		!f.isIndex() || f.u16(newSupremum-2) != 0 ||
		(encHdrL&recStatusInstant != 0 && !f.leaf()) || encHdrL>>3 > len(data) {
		return corrupt(what, "not a COMPACT index page (slots %d, heap 0x%x)", nSlots, h)
	}
	lastSlot := f.slot(nSlots - 1)
	heapBot, heapTop := newSupremumEnd, f.hdr(pageHeapTop)
	if heapBot > heapTop || heapTop > lastSlot || f.u16(lastSlot) != newSupremum || f.u16(f.slot(0)) != newInfimum {
		return corrupt(what, "bad heap top %d or directory", heapTop)
	}
	prevRec := (newInfimum + prev) & 0xffff
	if prev != 0 && (heapBot+newExtraBytes > prevRec || prevRec > heapTop) {
		return corrupt(what, "predecessor %d outside the heap", prevRec)
	}
	// (The server reads the successor before this check; for a valid page the order is moot.)
	nextRec := (prevRec + f.u16(prevRec-2)) & 0xffff
	if nextRec != newSupremum && (heapBot+newExtraBytes > nextRec || nextRec > heapTop) {
		return corrupt(what, "successor %d outside the heap", nextRec)
	}
	ownerRec, nOwned, oslot, err := ownerOf(f, what, nextRec, heapBot+newExtraBytes, heapTop, newSupremum, true)
	if err != nil {
		return err
	}
	lit := encHdrL >> 3 // literal header bytes at the start of data
	extra := newExtraBytes + hdrC + lit
	dataSize := dataC + len(data) - lit
	if prevRec-newExtraBytes-hdrC < 0 || prevRec+dataC > size {
		return corrupt(what, "copied bytes outside the page")
	}
	var buf int
	if reuse {
		freeRec := f.hdr(pageFree)
		if heapBot+newExtraBytes > freeRec || freeRec > heapTop {
			return corrupt(what, "PAGE_FREE %d outside the heap", freeRec)
		}
		buf = freeRec - extra
		if shift&1 != 0 {
			buf -= shift >> 1
		} else {
			buf += shift >> 1
		}
		if heapBot > buf || buf+extra+dataSize > heapTop || f.hdr(pageGarbage) < extra+dataSize {
			return corrupt(what, "reused space does not fit")
		}
		n := f.u16(freeRec - 2)
		if n != 0 {
			n = (n + freeRec) & 0xffff
			if n < newSupremumEnd+newExtraBytes || heapTop < n {
				return corrupt(what, "bad free list")
			}
		}
		f.setHdr(pageFree, n)
		f.setHdr(pageGarbage, f.hdr(pageGarbage)-(extra+dataSize))
		h = f.heapNoNew(freeRec)
	} else {
		if heapTop+extra+dataSize > lastSlot {
			return corrupt(what, "no room on the heap")
		}
		f.setHdr(pageNHeap, h+1)
		h &= 0x7fff
		f.setHdr(pageHeapTop, heapTop+extra+dataSize)
		buf = heapTop
	}
	// Save the predecessor's header and data bytes first: with a reused slot they may overlap.
	common := append([]byte(nil), f[prevRec-newExtraBytes-hdrC:prevRec-newExtraBytes]...)
	commonData := append([]byte(nil), f[prevRec:prevRec+dataC]...)
	copy(f[buf:], data[:lit])
	buf += lit
	copy(f[buf:], common)
	buf += hdrC
	f[buf] = byte(encHdrL&3) << 4 // info bits; n_owned = 0
	f[buf+1] = byte(h >> 5)
	status := (h & 31) << 3
	if f.leaf() {
		status |= encHdrL & recStatusInstant
	} else {
		status |= recStatusNodePtr
	}
	f[buf+2] = byte(status)
	rec := buf + 5
	f.put16(rec-2, (nextRec-rec)&0xffff)
	lastInsert := f.hdr(pageLastInsert)
	f.setHdr(pageLastInsert, rec)
	f.put16(prevRec-2, (rec-prevRec)&0xffff)
	copy(f[rec:], commonData)
	copy(f[rec+dataC:], data[lit:])
	return insertDone(f, ownerRec, nOwned, oslot, lastInsert, prevRec, nextRec, true)
}

// deleteRow applies DELETE_ROW_FORMAT_REDUNDANT (comp false; hdrSize and dataSize are read from
// the record) and DELETE_ROW_FORMAT_DYNAMIC (comp true; the sizes come from the log).
func deleteRow(f frame, comp bool, prev, hdrSize, dataSize int) error {
	what, infimum, supremum, supremumEnd, extraBytes :=
		"DELETE_ROW_FORMAT_REDUNDANT", oldInfimum, oldSupremum, oldSupremumEnd, oldExtraBytes
	if comp {
		what, infimum, supremum, supremumEnd, extraBytes =
			"DELETE_ROW_FORMAT_DYNAMIC", newInfimum, newSupremum, newSupremumEnd, newExtraBytes
	}
	nSlots, nRecs := f.nSlots(), f.hdr(pageNRecs)
	if nRecs == 0 || nSlots < 2 || !f.isIndex() || f.u16(supremum-2) != 0 || f.comp() != comp {
		return corrupt(what, "not a matching index page (records %d, slots %d)", nRecs, nSlots)
	}
	slot := f.slot(nSlots - 1)
	if slot < 0 {
		return corrupt(what, "directory larger than the page")
	}
	prevRec := infimum + prev
	if comp {
		prevRec &= 0xffff // the server adds in 16 bits for COMPACT pages
	}
	if prevRec > slot {
		return corrupt(what, "predecessor %d beyond the directory", prevRec)
	}
	rec := f.next(prevRec, comp)
	if rec < supremumEnd+extraBytes || slot < rec {
		return corrupt(what, "record %d outside the heap", rec)
	}
	extra := extraBytes + hdrSize
	if !comp {
		if extra = f.extraSizeOld(rec); rec < supremumEnd+extra {
			return corrupt(what, "record %d header below the heap", rec)
		}
		dataSize = f.dataSizeOld(rec)
	}
	if rec < supremumEnd+extra || slot < rec+dataSize {
		return corrupt(what, "record %d does not fit the heap", rec)
	}
	next := f.next(rec, comp)
	if next != supremum && (next < supremumEnd+extraBytes || slot < next) {
		return corrupt(what, "successor %d outside the heap", next)
	}
	s, slotOwned := owner(f, rec, supremumEnd+extraBytes, slot, supremum, nRecs, comp)
	if s < 0 {
		return corrupt(what, "no owner record in the directory")
	}
	slotOwned--
	first := f.slot(0)
	if slot = findSlot(f, s); slot < 0 {
		return corrupt(what, "owner record %d has no directory slot", s)
	}
	if rec == s {
		s = prevRec
		f.put16(slot, s)
	}
	if comp {
		f.put16(prevRec-2, (next-prevRec)&0xffff)
	} else {
		f.put16(prevRec-2, f.u16(rec-2))
	}
	f.setNOwned(s, slotOwned, comp)
	memFree(f, rec, dataSize, extra)
	if slotOwned < dirSlotMinNOwned {
		return balanceSlot(f, (first-slot)/2)
	}
	return nil
}
