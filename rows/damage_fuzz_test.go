package rows

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"innoscope/discovery"
	"innoscope/internal/lab"
)

// The dictionary reader and the row walker on a real directory (the lab's cleanly shut down
// `clean` scenario: db.t, 2,000 rows on four leaves under a root) with one page damaged at a
// time: the fuzzers assert no panic, a memory cap per input, and no row from a page that fails
// its checksum (issue 29, items 4 and 8).

// fuzzMemCap bounds what one input may allocate: the directory is a few MiB.
const fuzzMemCap = 256 << 20

// damageDir is a private copy of the clean scenario's system tablespace and db/.
type damageDir struct {
	dir       string
	sys, ibd  string
	dictPages []uint32 // the dictionary header and the roots of the four SYS_* tables
	rows      map[string]int
	total     int
}

func newDamageDir(f *testing.F) *damageDir {
	s := lab.Get(f, "clean")
	d := &damageDir{dir: f.TempDir()}
	for _, n := range []string{"ibdata1", "db/t.frm", "db/t.ibd", "db/db.opt"} {
		b, err := os.ReadFile(filepath.Join(s.Crashed, n))
		if err != nil {
			f.Fatal(err)
		}
		os.MkdirAll(filepath.Join(d.dir, filepath.Dir(n)), 0o755)
		if err := os.WriteFile(filepath.Join(d.dir, n), b, 0o644); err != nil {
			f.Fatal(err)
		}
	}
	d.sys, d.ibd = filepath.Join(d.dir, "ibdata1"), filepath.Join(d.dir, "db", "t.ibd")
	hdr := readPageOf(f, d.sys, 7)
	d.dictPages = []uint32{7}
	for _, off := range []int{32, 40, 44, 48} {
		d.dictPages = append(d.dictPages, binary.BigEndian.Uint32(hdr[FilData+off:]))
	}
	d.rows = map[string]int{}
	t, err := Open(discovery.Layout{Datadir: d.dir}, "db", "t")
	if err != nil {
		f.Fatal(err)
	}
	res, err := t.Walk(func(r Row) error { d.rows[rowKey(r)]++; return nil })
	if err != nil || len(res.Lost) > 0 || res.Rows != 2000 {
		f.Fatalf("the undamaged table: %v, %+v", err, res)
	}
	d.total = int(res.Rows)
	return d
}

func rowKey(r Row) string {
	var b bytes.Buffer
	for _, v := range r {
		if v == nil {
			b.WriteString("\\N")
		}
		b.Write(v)
		b.WriteByte('\t')
	}
	return b.String()
}

func readPageOf(tb testing.TB, path string, no uint32) []byte {
	f, err := discovery.OpenFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	p, err := f.ReadPage(no)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// damage xors x into byte off of page no of path (resealed: with its checksum recomputed) and
// returns whether the page now fails its checksum, and a function restoring it.
func damage(tb testing.TB, path string, no uint32, off int, x byte, reseal bool) (bool, func()) {
	f, err := discovery.OpenFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	fl, ps := f.FSP.Flags, f.Physical
	orig, err := f.ReadPage(no)
	f.Close()
	if err != nil {
		tb.Fatal(err)
	}
	p := append([]byte(nil), orig...)
	p[off%ps] ^= x
	if reseal {
		discovery.SealPage(p, fl, binary.BigEndian.Uint64(p[discovery.FilPageLSN:]))
	}
	w, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer w.Close()
	if _, err := w.WriteAt(p, int64(no)*int64(ps)); err != nil {
		tb.Fatal(err)
	}
	return discovery.CheckPage(p, fl, no, binary.BigEndian.Uint32(p[discovery.FilPageSpaceID:])).Corrupt, func() {
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err == nil {
			w.WriteAt(orig, int64(no)*int64(ps))
			w.Close()
		}
	}
}

// allocated runs fn and fails when it allocates more than fuzzMemCap bytes.
func allocated(t *testing.T, fn func()) {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	fn()
	runtime.ReadMemStats(&b)
	if n := b.TotalAlloc - a.TotalAlloc; n > fuzzMemCap {
		t.Fatalf("%d MiB allocated for a directory of a few MiB", n>>20)
	}
}

// FuzzDictionaryPage damages one page of the data dictionary. A page that fails its checksum
// refuses the table (a DictPageError naming it): every one of these pages is read by Open. A
// resealed one (damage the checksum cannot show) may give any definition, or an error, but no
// panic and no runaway allocation, in Open and in the walk.
func FuzzDictionaryPage(f *testing.F) {
	d := newDamageDir(f)
	for i := range d.dictPages {
		for _, off := range []uint16{40, 100, 150, 300, 1000} {
			f.Add(uint8(i), off, byte(1), false)
			f.Add(uint8(i), off, byte(0x80), true)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, off uint16, x byte, reseal bool) {
		if x == 0 {
			return
		}
		no := d.dictPages[int(which)%len(d.dictPages)]
		bad, restore := damage(t, d.sys, no, int(off), x, reseal)
		defer restore()
		allocated(t, func() {
			tb, err := Open(discovery.Layout{Datadir: d.dir}, "db", "t")
			var de *discovery.DictPageError
			if bad {
				if !errors.As(err, &de) || de.Page != no {
					t.Fatalf("page %d fails its checksum, Open gave %v", no, err)
				}
				return
			}
			if err == nil {
				tb.Walk(func(Row) error { return nil })
			}
		})
	})
}

// FuzzRowsWalk damages one page of the table's file. Rows come only from pages that pass their
// checksum: with a page that fails it, every row printed is one of the table's. With a leaf's
// header fields damaged and resealed (type, links, level, index id), the rows printed plus the
// rows reported lost are at least the table's rows (a true count), and each printed row is one
// of the table's. Neither ever panics or allocates beyond the cap; Scan likewise.
func FuzzRowsWalk(f *testing.F) {
	d := newDamageDir(f)
	header := []int{8, 12, 24, 25, discovery.FilPageData + 16, discovery.FilPageData + 26, discovery.FilPageData + 35}
	for no := uint8(0); no < 9; no++ {
		f.Add(no, uint16(3000), byte(1), false)
		for _, off := range header {
			f.Add(no, uint16(off), byte(0x21), true)
		}
	}
	f.Fuzz(func(t *testing.T, no uint8, off uint16, x byte, reseal bool) {
		if x == 0 {
			return
		}
		page := uint32(no) % 9
		orig := readPageOf(t, d.ibd, page)
		ip, ierr := discovery.ParseIndexPage(orig)
		leaf := ierr == nil && binary.BigEndian.Uint16(orig[discovery.FilPageType:]) == pageTypeIdx && ip.Level == 0
		bad, restore := damage(t, d.ibd, page, int(off), x, reseal)
		defer restore()
		inHeader := headerField(int(off) % len(orig))
		for _, scan := range []bool{false, true} {
			allocated(t, func() {
				tb, err := Open(discovery.Layout{Datadir: d.dir}, "db", "t")
				if err != nil {
					t.Fatal(err) // the dictionary is not damaged
				}
				got := map[string]int{}
				walk := tb.Walk
				if scan {
					walk = tb.Scan
				}
				res, err := walk(func(r Row) error { got[rowKey(r)]++; return nil })
				if !bad && !(reseal && leaf && inHeader) {
					return // damage the checksum cannot show, in the records: anything goes
				}
				for k, n := range got {
					if n > d.rows[k] {
						t.Fatalf("page %d damaged (scan %v): a row that is not the table's, or printed twice: %q", page, scan, k)
					}
				}
				if !scan && err == nil && reseal && leaf && inHeader && int(res.Rows)+res.LostRows < d.total {
					t.Fatalf("page %d: header byte %d damaged: %d rows printed, %d reported lost, the table has %d", page, off, res.Rows, res.LostRows, d.total)
				}
			})
		}
	})
}

// headerField: byte at of a page is in a field that says where the page belongs, not how its
// records are laid out: the page number, FIL_PAGE_PREV and FIL_PAGE_NEXT, the type, the space
// id, the B-tree level and the index id.
func headerField(at int) bool {
	switch {
	case at >= 4 && at < 16, at >= 24 && at < 26, at >= 34 && at < 38:
		return true
	case at >= discovery.FilPageData+26 && at < discovery.FilPageData+36:
		return true
	}
	return false
}
