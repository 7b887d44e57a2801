package pageapply

// Row-format record application: the EXTENDED INSERT_* and DELETE_* records, which the server
// logs logically and replays with page_apply_insert_redundant, page_apply_insert_dynamic,
// page_apply_delete_redundant and page_apply_delete_dynamic (page0cur.cc). The consistency
// checks follow the server's: a page that does not fit the record is reported, not changed.

// recOK reports whether rec can be a record origin on the page: its header bytes and its next
// pointer lie inside the page, before the directory. The server trusts its pages here; a damaged
// page must give an error instead of a stray write.
func (f frame) recOK(rec int) bool { return rec >= oldExtraBytes && rec < len(f)-pageDir }

// splitSlot is page_dir_split_slot: slot (a byte offset) owns dirSlotMaxNOwned+1 records; a
// new slot below it takes the lower half.
func splitSlot(f frame, slot int) error {
	comp := f.comp()
	const nOwned = dirSlotMaxNOwned + 1
	rec := f.u16(slot + 2)
	for i := nOwned / 2; i > 0 && f.recOK(rec); i-- {
		rec = f.next(rec, comp)
	}
	if !f.recOK(rec) || !f.recOK(f.u16(slot)) {
		return corrupt("directory split", "record list leaves the page")
	}
	n := f.nSlots()
	last := len(f) - (pageDir + 2) - n*2
	copy(f[last:slot], f[last+2:slot+2])
	f.setHdr(pageNDirSlots, n+1)
	f.put16(slot, rec)
	f.setNOwned(f.u16(slot), nOwned/2, comp)
	f.setNOwned(f.u16(slot-2), nOwned-nOwned/2, comp)
	return nil
}

// balanceSlot is page_dir_balance_slot: slot number s owns too few records; merge it with the
// slot above or move one record over.
func balanceSlot(f frame, s int) error {
	comp := f.comp()
	n := f.nSlots()
	if s+1 == n {
		return nil // the last slot cannot be balanced
	}
	slot := f.slot(s)
	upRec := f.u16(slot - 2)
	slotRec := f.u16(slot)
	if !f.recOK(upRec) || !f.recOK(slotRec) {
		return corrupt("directory balance", "slot points outside the page")
	}
	upOwned := f.nOwned(upRec, comp)
	if upOwned <= dirSlotMinNOwned {
		f.setNOwned(slotRec, 0, comp)
		f.setNOwned(upRec, upOwned+dirSlotMinNOwned-1, comp)
		last := f.slot(n - 1)
		copy(f[last+2:slot+2], f[last:slot])
		f.put16(last, 0)
		f.setHdr(pageNDirSlots, n-1)
		return nil
	}
	newRec := f.next(slotRec, comp)
	if !f.recOK(newRec) {
		return corrupt("directory balance", "record list leaves the page")
	}
	f.setNOwned(slotRec, 0, comp)
	f.setNOwned(newRec, dirSlotMinNOwned, comp)
	f.setNOwned(upRec, upOwned-1, comp)
	f.put16(slot, newRec)
	return nil
}

// memFree is page_mem_free: a deleted record goes to the PAGE_FREE list, or, when it is the
// last one allocated from the heap, PAGE_HEAP_TOP shrinks; its bytes are zeroed.
func memFree(f frame, rec, dataSize, extraSize int) {
	free := f.hdr(pageFree)
	nHeap := f.hdr(pageNHeap) - 1
	var heapNo int
	if nHeap&0x8000 != 0 {
		heapNo = f.heapNoNew(rec) | 0x8000
	} else {
		heapNo = f.heapNoOld(rec)
	}
	deletingTop := nHeap == heapNo
	if deletingTop {
		top := f.hdr(pageHeapTop)
		savings := top - (rec + dataSize)
		f.setHdr(pageHeapTop, rec-extraSize)
		f.setHdr(pageNHeap, nHeap)
		if savings != 0 {
			f.setHdr(pageGarbage, f.hdr(pageGarbage)-savings)
		}
	} else {
		f.setHdr(pageFree, rec)
		f.setHdr(pageGarbage, f.hdr(pageGarbage)+extraSize+dataSize)
	}
	f.setHdr(pageLastInsert, 0)
	f.setHdr(pageNRecs, f.hdr(pageNRecs)-1)
	end := rec + dataSize
	if !deletingTop {
		next := 0
		if free != 0 {
			if nHeap&0x8000 != 0 {
				next = (free - rec) & 0xffff
			} else {
				next = free
			}
		}
		f.put16(rec-2, next)
	} else {
		rec -= extraSize
	}
	clear(f[rec:end])
}

// findSlot returns the byte offset of the directory slot pointing to rec, searching from the
// last slot up to slot 1 (slot 0, the infimum's, owns no user record); -1 if none does.
func findSlot(f frame, rec int) int {
	first := f.slot(0)
	for s := f.slot(f.nSlots() - 1); s >= 0 && s < first; s += 2 {
		if f.u16(s) == rec {
			return s
		}
	}
	return -1
}

// owner walks from rec to the record owning its directory slot (n_owned != 0), checking each
// step lies in [lo, hi] or is the supremum. It returns the owner and its n_owned, or -1.
func owner(f frame, rec, lo, hi, supremum, limit int, comp bool) (int, int) {
	for i := limit; ; i-- {
		if n := f.nOwned(rec, comp); n != 0 {
			return rec, n
		}
		if i == 0 {
			return -1, 0 // corrupted (cyclic?) record list
		}
		rec = f.next(rec, comp)
		if rec != supremum && (rec < lo || rec > hi) {
			return -1, 0
		}
	}
}

// updateDirection maintains PAGE_DIRECTION_B and PAGE_N_DIRECTION after an insert after prev
// (before next), given the PAGE_LAST_INSERT before the insert.
func updateDirection(f frame, lastInsert, prev, next int) {
	if f.u16(filPageType)&0xff == pageTypeRtree&0xff {
		return
	}
	d := pageHeader + pageDirectionB
	dir := int(f[d] & 7)
	switch {
	case lastInsert == 0:
	case lastInsert == prev && dir != pageLeft:
		f[d] = f[d]&^7 | pageRight
		f.setHdr(pageNDirection, f.hdr(pageNDirection)+1)
		return
	case next == lastInsert && dir != pageRight:
		f[d] = f[d]&^7 | pageLeft
		f.setHdr(pageNDirection, f.hdr(pageNDirection)+1)
		return
	}
	f[d] = f[d]&^7 | pageNoDirection
	f.setHdr(pageNDirection, 0)
}

// ownerOf finds the record owning the directory slot that an insertion before next goes
// under, its n_owned and its slot (the records walked must lie in [lo, hi] or be the supremum).
func ownerOf(f frame, what string, next, lo, hi, supremum int, comp bool) (rec, nOwned, slot int, err error) {
	rec, nOwned = owner(f, next, lo, hi, supremum, dirSlotMaxNOwned, comp)
	if rec < 0 || nOwned > dirSlotMaxNOwned {
		return 0, 0, 0, corrupt(what, "no owner record in the directory")
	}
	if slot = findSlot(f, rec); slot < 0 {
		return 0, 0, 0, corrupt(what, "owner record %d has no directory slot", rec)
	}
	return rec, nOwned, slot, nil
}

// insertDone finishes an insertion of rec between prev and next that every row format shares:
// the owner's n_owned, PAGE_DIRECTION_B and PAGE_N_DIRECTION, PAGE_N_RECS, and the split of a
// slot that became too large. lastInsert is PAGE_LAST_INSERT before the insertion.
func insertDone(f frame, ownerRec, nOwned, oslot, lastInsert, prev, next int, comp bool) error {
	f.setNOwned(ownerRec, nOwned+1, comp)
	updateDirection(f, lastInsert, prev, next)
	f.setHdr(pageNRecs, f.hdr(pageNRecs)+1)
	if nOwned == dirSlotMaxNOwned {
		return splitSlot(f, oslot)
	}
	return nil
}

// insertRedundant applies INSERT_HEAP_REDUNDANT / INSERT_REUSE_REDUNDANT.
func insertRedundant(f frame, reuse bool, prev, encHdr, hdrC, dataC int, data []byte) error {
	what := "INSERT_HEAP_REDUNDANT"
	if reuse {
		what = "INSERT_REUSE_REDUNDANT"
	}
	size := len(f)
	nSlots, h := f.nSlots(), f.hdr(pageNHeap)
	if nSlots < 2 || h < nSlots || h < heapNoUserLow || h >= size/oldExtraBytes || !f.isIndex() ||
		f.u16(oldSupremum-2) != 0 {
		return corrupt(what, "not a REDUNDANT index page (slots %d, heap %d)", nSlots, h)
	}
	lastSlot := f.slot(nSlots - 1)
	heapBot, heapTop := oldSupremumEnd, f.hdr(pageHeapTop)
	if heapBot > heapTop || heapTop > lastSlot || f.u16(lastSlot) != oldSupremum || f.u16(f.slot(0)) != oldInfimum {
		return corrupt(what, "bad heap top %d or directory", heapTop)
	}
	prevRec := oldInfimum + prev
	if prev != 0 && (heapBot+oldExtraBytes+1 > prevRec || prevRec > heapTop) {
		return corrupt(what, "predecessor %d outside the heap", prevRec)
	}
	pn := f.nFieldsOld(prevRec)
	if pn == 0 || pn > recMaxNFields {
		return corrupt(what, "predecessor has %d fields", pn)
	}
	if pe := prevRec - f.extraSizeOld(prevRec); pe < 0 || prevRec != oldInfimum && pe < heapBot {
		return corrupt(what, "predecessor header below the heap")
	}
	if hdrC != 0 && prevRec-hdrC < heapBot {
		return corrupt(what, "copied header below the heap")
	}
	if prevRec+f.dataSizeOld(prevRec) > heapTop {
		return corrupt(what, "predecessor data beyond the heap top")
	}
	nextRec := f.u16(prevRec - 2)
	if nextRec != oldSupremum && (heapBot+oldExtraBytes > nextRec || nextRec > heapTop) {
		return corrupt(what, "successor %d outside the heap", nextRec)
	}
	isShort := (encHdr>>2)&1 != 0
	nFields := encHdr>>3 + 1
	if nFields > recMaxNFields {
		return corrupt(what, "%d fields", nFields)
	}
	extra := oldExtraBytes + 2*nFields
	if isShort {
		extra = oldExtraBytes + nFields
	}
	hdrC += oldExtraBytes
	if hdrC > extra || extra-hdrC > len(data) {
		return corrupt(what, "header lengths do not fit")
	}
	ownerRec, nOwned, oslot, err := ownerOf(f, what, nextRec, heapBot+oldExtraBytes, heapTop, oldSupremum, false)
	if err != nil {
		return err
	}
	// Build the header in a buffer first: nothing on the page changes until every check passed.
	ins := make(frame, extra)
	copy(ins, data[:extra-hdrC])
	copy(ins[extra-hdrC:], f[prevRec-hdrC:prevRec])
	r := extra // the record origin inside ins
	ins[r-6] = ins[r-6]&0x0f | byte(encHdr&3)<<4
	ins[r-3] = ins[r-3]&^1 | b2u8(isShort)
	ins.put16(r-4, ins.u16(r-4)&^0x7fe|nFields<<1)
	ins[r-6] &^= 0x0f
	// The data size of the new record is read from its own header, which ins now holds; its
	// field offsets sit below r, so read them with a frame holding ins at the same origin.
	dataSize := dataSizeOldOf(ins, r)
	if dataC > dataSize || extra-hdrC+dataSize-dataC != len(data) {
		return corrupt(what, "data lengths do not fit")
	}
	var buf int
	if reuse {
		freeRec := f.hdr(pageFree)
		if heapBot+oldExtraBytes > freeRec || freeRec > heapTop {
			return corrupt(what, "PAGE_FREE %d outside the heap", freeRec)
		}
		fextra := f.extraSizeOld(freeRec)
		if freeRec-fextra < heapBot {
			return corrupt(what, "free record header below the heap")
		}
		fdata := f.dataSizeOld(freeRec)
		if freeRec+fdata > heapTop || extra+dataSize > fextra+fdata || f.hdr(pageGarbage) < fextra+fdata {
			return corrupt(what, "free record too small")
		}
		buf = freeRec - fextra
		nextFree := f.u16(freeRec - 2)
		if nextFree != 0 && (nextFree < heapBot+oldExtraBytes+1 || heapTop < nextFree) {
			return corrupt(what, "bad free list")
		}
		f.setHdr(pageGarbage, f.hdr(pageGarbage)-extra-dataSize)
		ins.put16(r-5, ins.u16(r-5)&^0xfff8|f.heapNoOld(freeRec)<<3)
		f.setHdr(pageFree, nextFree)
	} else {
		if heapTop+extra+dataSize > lastSlot {
			return corrupt(what, "no room on the heap")
		}
		ins.put16(r-5, ins.u16(r-5)&^0xfff8|h<<3)
		f.setHdr(pageNHeap, h+1)
		f.setHdr(pageHeapTop, heapTop+extra+dataSize)
		buf = heapTop
	}
	lastInsert := f.hdr(pageLastInsert)
	copy(f[buf:], ins)
	rec := buf + extra
	f.setHdr(pageLastInsert, rec)
	f.put16(prevRec-2, rec)
	copy(f[rec:rec+dataC], f[prevRec:prevRec+dataC])
	copy(f[rec+dataC:], data[extra-hdrC:])
	return insertDone(f, ownerRec, nOwned, oslot, lastInsert, prevRec, nextRec, false)
}

// dataSizeOldOf reads the data size of the REDUNDANT record whose origin is at r in b.
func dataSizeOldOf(b frame, r int) int {
	n := b.nFieldsOld(r)
	if b.shortOld(r) {
		return int(b[r-(oldExtraBytes+n)] & 0x7f)
	}
	return b.u16(r-(oldExtraBytes+2*n)) & 0x3fff
}

func b2u8(b bool) byte {
	if b {
		return 1
	}
	return 0
}
