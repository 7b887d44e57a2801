package rows

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"innoscope/discovery"
	"innoscope/schema"
)

// The fuzzers of undrop (issue 32): random bytes as a raw image, alone or made into index pages
// whose checksums hold (the bytes after the page header random), carve to no row under a
// definition of the table the pages claim to be, and nothing panics.

// undropFuzzDef is the definition the carved index pages are read under.
const undropFuzzDef = "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(60), n INT, b TEXT) DEFAULT CHARSET=latin1"

// undropRows carves image b and returns how many rows every index found gives under the
// fuzz definition.
func undropRows(t *testing.T, b []byte) int {
	t.Helper()
	img := filepath.Join(t.TempDir(), "img")
	if err := os.WriteFile(img, b, 0o644); err != nil {
		t.Fatal(err)
	}
	c := NewCarving()
	if err := c.AddImage(img); err != nil {
		t.Fatal(err)
	}
	def, err := schema.FromCreateTable(undropFuzzDef, "fuzz.sql")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, x := range c.Indexes() {
		c.Rows(def, x, func(u UndropRow) error { n++; t.Logf("page %d row %q", u.Page, u.Row); return nil })
	}
	return n
}

// FuzzUndropImage: the fuzzer's bytes, then bytes of a PRNG it seeds, as an image: no row.
func FuzzUndropImage(f *testing.F) {
	f.Add([]byte("infimum\x00supremum"), uint64(1), uint64(2))
	f.Fuzz(func(t *testing.T, data []byte, s1, s2 uint64) {
		b := append([]byte(nil), data...)
		rng := rand.New(rand.NewPCG(s1, s2))
		for len(b) < 256<<10 {
			b = append(b, byte(rng.Uint32()))
		}
		if n := undropRows(t, b); n != 0 {
			t.Fatalf("%d rows from random bytes", n)
		}
	})
}

// FuzzUndropPages: random pages made index leaves of one index (type INDEX, level 0, the
// index id, space and page number set, sealed with full_crc32 or crc32 at 4K, 16K or 64K):
// their checksums hold, their records are random: no row.
func FuzzUndropPages(f *testing.F) {
	for i := uint64(0); i < 6; i++ {
		f.Add(uint8(i), i, i*7919)
	}
	f.Fuzz(func(t *testing.T, kind uint8, s1, s2 uint64) {
		ps := []int{4096, 16384, 65536}[int(kind)%3]
		fl := discovery.Flags{PageSize: ps, FullCRC32: kind&4 != 0}
		rng := rand.New(rand.NewPCG(s1, s2))
		b := make([]byte, 4*ps)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		be := binary.BigEndian
		for no := 0; no < 4; no++ {
			p := b[no*ps : (no+1)*ps]
			be.PutUint32(p[discovery.FilPageOffset:], uint32(no+3))
			be.PutUint32(p[discovery.FilPageSpaceID:], 7)
			be.PutUint16(p[discovery.FilPageType:], pageTypeIdx)
			be.PutUint16(p[pageHeader+26:], 0)    // PAGE_LEVEL
			be.PutUint64(p[pageHeader+28:], 4242) // PAGE_INDEX_ID
			if kind&8 != 0 {
				copy(p[99:], "infimum\x00") // a record list that starts as the server's
				copy(p[112:], "supremum")
			}
			be.PutUint32(p[0:], 0)
			discovery.SealPage(p, fl, uint64(1000+no))
		}
		if n := undropRows(t, b); n != 0 {
			t.Fatalf("%d rows from random records", n)
		}
	})
}
