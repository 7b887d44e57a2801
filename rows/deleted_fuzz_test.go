package rows

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"testing"

	"innoscope/discovery"
)

// The fuzzers of --deleted (issue 32): on the lab's `clean` table (no deleted rows: the
// undamaged table gives none), random bytes written into the unused space of a leaf page whose
// checksum is then recomputed (a sound page holding garbage) must carve to no row, and a page
// damaged where its checksum shows it must give no row either; nothing panics, nothing
// allocates without bound.

// deletedOf runs Table.Deleted on the damage directory's db.t and returns the rows it printed.
func deletedOf(t testing.TB, d *damageDir) []string {
	t.Helper()
	tb, err := Open(discovery.Layout{Datadir: d.dir}, "db", "t")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	// An error (a damaged root: no way down the tree) prints no row.
	tb.Deleted(MaxTrxID(discovery.Layout{Datadir: d.dir}), func(r DeletedRow) error {
		got = append(got, r.Source+": "+rowKey(r.Row))
		return nil
	})
	return got
}

// unusedSpan is the unused space of leaf page p: from PAGE_HEAP_TOP to the page directory.
func unusedSpan(p []byte) (int, int) {
	top := int(binary.BigEndian.Uint16(p[pageHeapTop:]))
	n := int(binary.BigEndian.Uint16(p[pageHeader:]))
	return top, len(p) - pageDataEnd - dirSlotSize*n
}

// FuzzCarveRandom fills the unused space of a leaf page of db.t with random bytes (a PRNG seeded
// by the fuzzer: bytes no one chose) and reseals it: the page is sound, its garbage random. No
// row may come out.
func FuzzCarveRandom(f *testing.F) {
	d := newDamageDir(f)
	if got := deletedOf(f, d); len(got) != 0 {
		f.Fatalf("the undamaged clean table gives deleted rows: %q", got)
	}
	for i := uint64(0); i < 8; i++ {
		f.Add(uint8(i), i, i*7919)
	}
	f.Fuzz(func(t *testing.T, which uint8, s1, s2 uint64) {
		fill := make([]byte, 1<<16)
		rng := rand.New(rand.NewPCG(s1, s2))
		for i := range fill {
			fill[i] = byte(rng.Uint32())
		}
		carveFill(t, d, which, fill, true)
	})
}

// FuzzCarveBytes writes the fuzzer's own bytes (repeated) into the unused space of a leaf page
// and reseals it. Bytes chosen to form a record of the table are a record image, and carving
// prints it (the fuzzer builds one within a minute for db.t's 20-byte records): here only no
// panic and a bounded allocation are asserted.
func FuzzCarveBytes(f *testing.F) {
	d := newDamageDir(f)
	f.Add(uint8(0), []byte{0, 0, 0x10, 0x00, 0x20, 0x80, 0, 0, 1})
	f.Add(uint8(1), []byte("\x00\x00\x00\x00\x00\x000\x00\x00\x00\x00\x00\x05\x80"))
	f.Add(uint8(2), []byte{0xff})
	f.Fuzz(func(t *testing.T, which uint8, fill []byte) {
		carveFill(t, d, which, fill, false)
	})
}

// carveFill writes fill (repeated) into the unused space of a leaf page of db.t, reseals it and
// runs Table.Deleted; with none, no row may come out.
func carveFill(t *testing.T, d *damageDir, which uint8, fill []byte, none bool) {
	if len(fill) == 0 {
		return
	}
	leaves := leafPages(t, d)
	no := leaves[int(which)%len(leaves)]
	orig := readPageOf(t, d.ibd, no)
	p := append([]byte(nil), orig...)
	lo, hi := unusedSpan(p)
	if lo < heapStartNew || hi <= lo || hi > len(p) {
		return
	}
	for i := lo; i < hi; i++ {
		p[i] = fill[(i-lo)%len(fill)]
	}
	restore := writePage(t, d, no, p, true)
	defer restore()
	allocated(t, func() {
		if got := deletedOf(t, d); none && len(got) != 0 {
			t.Fatalf("page %d: random bytes in its unused space carved to rows: %q", no, got)
		}
	})
}

// FuzzDeletedDamaged damages one byte of a page of db.t (not resealed: the checksum shows it,
// and the page is lost) or of its unused space (resealed): no row comes out either way.
func FuzzDeletedDamaged(f *testing.F) {
	d := newDamageDir(f)
	for no := uint8(0); no < 9; no++ {
		f.Add(no, uint16(3000), byte(1), false)
		f.Add(no, uint16(16000), byte(0x21), true)
		f.Add(no, uint16(200), byte(0x80), false)
	}
	f.Fuzz(func(t *testing.T, no uint8, off uint16, x byte, reseal bool) {
		if x == 0 {
			return
		}
		page := uint32(no) % 9
		orig := readPageOf(t, d.ibd, page)
		p := append([]byte(nil), orig...)
		at := int(off) % len(p)
		if reseal {
			// Resealed damage is only judged in the unused space of a leaf (elsewhere it can
			// make any record: a damaged live record may read as another row).
			ip, err := discovery.ParseIndexPage(p)
			lo, hi := unusedSpan(p)
			if err != nil || ip.Level != 0 || at < lo || at >= hi {
				return
			}
		}
		p[at] ^= x
		restore := writePage(t, d, page, p, reseal)
		defer restore()
		allocated(t, func() {
			if got := deletedOf(t, d); len(got) != 0 {
				t.Fatalf("page %d byte %d damaged (resealed %v): rows came out: %q", page, at, reseal, got)
			}
		})
	})
}

// leafPages lists the leaf pages of db.t, as its B-tree gives them.
func leafPages(t testing.TB, d *damageDir) []uint32 {
	t.Helper()
	tb, err := Open(discovery.Layout{Datadir: d.dir}, "db", "t")
	if err != nil {
		t.Fatal(err)
	}
	r, err := tb.reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.f.Close()
	leaves, err := r.treeLeaves()
	if err != nil {
		t.Fatal(err)
	}
	return leaves
}

// writePage writes p as page no of db/t.ibd (its checksum recomputed when reseal), and returns
// a function that puts the original back.
func writePage(t *testing.T, d *damageDir, no uint32, p []byte, reseal bool) func() {
	t.Helper()
	f, err := discovery.OpenFile(d.ibd)
	if err != nil {
		t.Fatal(err)
	}
	fl, ps := f.FSP.Flags, f.Physical
	orig, err := f.ReadPage(no)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	orig = append([]byte(nil), orig...)
	if reseal {
		discovery.SealPage(p, fl, binary.BigEndian.Uint64(p[discovery.FilPageLSN:]))
	}
	put := func(b []byte) {
		w, err := os.OpenFile(d.ibd, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if _, err := w.WriteAt(b, int64(no)*int64(ps)); err != nil {
			t.Fatal(err)
		}
	}
	put(p)
	return func() { put(orig) }
}
