package pageapply

import (
	"fmt"
	"math/rand"
	"testing"
)

// checkPage walks an index page as page_simple_validate_old/new do: the record list from the
// infimum reaches the supremum in PAGE_N_RECS steps, every directory slot points to a record of
// the list in order, owning 1 record (infimum), 1..8 (supremum) or 4..8 (the others), and the
// owned counts add up to all records.
func checkPage(f frame) error {
	comp := f.comp()
	inf, sup := oldInfimum, oldSupremum
	if comp {
		inf, sup = newInfimum, newSupremum
	}
	n := f.nSlots()
	if f.u16(f.slot(0)) != inf || f.u16(f.slot(n-1)) != sup {
		return fmt.Errorf("first/last slot %d/%d", f.u16(f.slot(0)), f.u16(f.slot(n-1)))
	}
	slot, owned, recs := 0, 0, 0
	for rec := inf; ; rec = f.next(rec, comp) {
		if rec <= 0 || rec >= len(f) || recs > f.hdr(pageNRecs)+1 {
			return fmt.Errorf("record list broken at %d after %d records", rec, recs)
		}
		if rec != inf && rec != sup {
			recs++
		}
		owned++
		if no := f.nOwned(rec, comp); no != 0 {
			if f.u16(f.slot(slot)) != rec {
				return fmt.Errorf("record %d owns %d but slot %d points to %d", rec, no, slot, f.u16(f.slot(slot)))
			}
			if no != owned {
				return fmt.Errorf("slot %d: n_owned %d, %d records since the previous slot", slot, no, owned)
			}
			if (slot == 0 && no != 1) || (slot > 0 && slot < n-1 && (no < dirSlotMinNOwned || no > dirSlotMaxNOwned)) ||
				(slot == n-1 && (no < 1 || no > dirSlotMaxNOwned)) {
				return fmt.Errorf("slot %d of %d owns %d", slot, n, no)
			}
			slot, owned = slot+1, 0
		}
		if rec == sup {
			break
		}
	}
	if recs != f.hdr(pageNRecs) || slot != n {
		return fmt.Errorf("%d records (PAGE_N_RECS %d), %d slots seen of %d", recs, f.hdr(pageNRecs), slot, n)
	}
	return nil
}

// records returns the user records of the list in order.
func records(f frame) []int {
	comp := f.comp()
	inf, sup := oldInfimum, oldSupremum
	if comp {
		inf, sup = newInfimum, newSupremum
	}
	var out []int
	for rec := f.next(inf, comp); rec != sup && rec != 0 && len(out) < len(f); rec = f.next(rec, comp) {
		out = append(out, rec)
	}
	return out
}

// insertAfter inserts a record with a 1-byte header and a payload of n bytes of v after the
// record prev (a page offset), as the server logs it (no bytes in common with prev), reusing
// the first PAGE_FREE record when there is one (all test records have the same size).
func insertAfter(f frame, prev, n int, v byte) error {
	payload := make([]byte, n+1)
	payload[0] = byte(n) // COMPACT: a column length; REDUNDANT: the field's 1-byte end offset
	for i := 1; i <= n; i++ {
		payload[i] = v
	}
	reuse := f.hdr(pageFree) != 0
	if f.comp() {
		return insertDynamic(f, reuse, prev-newInfimum, 0, 1<<3, 0, 0, payload)
	}
	return insertRedundant(f, reuse, prev-oldInfimum, 1<<2, 0, 0, payload) // one field, short offsets
}

func TestRowOperationsKeepThePageValid(t *testing.T) {
	for _, comp := range []bool{false, true} {
		for _, size := range []int{4096, 16384, 65536} {
			t.Run(fmt.Sprintf("comp=%v/%d", comp, size), func(t *testing.T) {
				f := make(frame, size)
				pageCreate(f, comp)
				rng := rand.New(rand.NewSource(int64(size)))
				inf := oldInfimum
				if comp {
					inf = newInfimum
				}
				// Grow the page to 60 records inserted at random places, then delete and
				// re-insert at random, checking the directory after every operation.
				for i := 0; i < 300; i++ {
					recs := records(f)
					if i < 60 || (rng.Intn(2) == 0 && len(recs) < 80) {
						prev := inf
						if len(recs) > 0 && rng.Intn(4) != 0 {
							prev = recs[rng.Intn(len(recs))]
						}
						if err := insertAfter(f, prev, 20, byte(i)); err != nil {
							t.Fatalf("insert %d after %d: %v", i, prev, err)
						}
					} else if len(recs) > 0 {
						k := rng.Intn(len(recs))
						prev := inf
						if k > 0 {
							prev = recs[k-1]
						}
						hdr, data := 1, 20
						if err := deleteRow(f, comp, prev-inf, hdr, data); err != nil {
							t.Fatalf("delete %d: %v", recs[k], err)
						}
					}
					if err := checkPage(f); err != nil {
						t.Fatalf("after operation %d: %v", i, err)
					}
				}
				if f.hdr(pageNDirSlots) < 3 {
					t.Errorf("only %d directory slots: no slot was ever split", f.hdr(pageNDirSlots))
				}
			})
		}
	}
}

func TestUndoPage(t *testing.T) {
	f := make(frame, 16384)
	undoPageInit(f)
	start := f.u16(undoPageFree)
	if err := undoAppend(f, []byte{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	if end := f.u16(undoPageFree); end != start+8 || f.u16(start) != end || f.u16(start+6) != start {
		t.Errorf("undo record at %d: free %d, next %d, back %d", start, end, f.u16(start), f.u16(start+6))
	}
	if err := undoAppend(f, make([]byte, 16384)); err == nil {
		t.Error("an undo record larger than the page was appended")
	}
}

// FuzzRowOps applies EXTENDED row operations with arbitrary arguments to pages made valid by
// real operations and then damaged by the fuzzer: each must succeed or report corruption,
// never panic or write outside the page.
func FuzzRowOps(f *testing.F) {
	f.Add(uint8(0), uint16(0), uint16(0), uint16(8), uint16(0), uint16(0), []byte{}, []byte{5, 1, 2, 3, 4, 5})
	f.Add(uint8(3), uint16(13), uint16(2), uint16(12), uint16(1), uint16(3), []byte{0, 40, 255}, []byte{9, 9, 9})
	f.Add(uint8(6), uint16(0), uint16(0), uint16(0), uint16(1), uint16(20), []byte{0, 110, 0, 0}, []byte{})
	f.Fuzz(func(t *testing.T, op uint8, prev, shift, enc, hdrC, dataC uint16, patch, data []byte) {
		comp := op&1 != 0
		pf := make(frame, 4096)
		pageCreate(pf, comp)
		inf := oldInfimum
		if comp {
			inf = newInfimum
		}
		for i := 0; i < 12; i++ {
			insertAfter(pf, inf, 20, byte(i))
		}
		// patch: (offset high, offset low, value) triples damage the page.
		for i := 0; i+2 < len(patch); i += 3 {
			pf[(int(patch[i])<<8|int(patch[i+1]))%len(pf)] = patch[i+2]
		}
		// The log decoder bounds the varints: 3 bytes for offsets and sizes, 2 for header counts.
		p, s, e, h, d := int(prev), int(shift), int(enc), int(hdrC), int(dataC)
		switch op >> 1 % 4 {
		case 0:
			insertRedundant(pf, op&8 != 0, p, e, h, d, data)
		case 1:
			insertDynamic(pf, op&8 != 0, p, s, e, h, d, data)
		case 2:
			deleteRow(pf, comp, p, h, d)
		case 3:
			undoAppend(pf, data)
		}
	})
}
