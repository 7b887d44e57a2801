package pagezip

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// zipSeeds are compressed index pages the server wrote (testdata/zip: leaf and node pointer
// pages of tables with KEY_BLOCK_SIZE 1, 2 and 8, most with a modification log and a stream
// that ends before the records added after the last compression).
func zipSeeds(t testing.TB) map[string][]byte {
	files, err := filepath.Glob(filepath.Join("testdata", "zip", "*.bin"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no compressed pages in testdata/zip: %v", err)
	}
	seeds := map[string][]byte{}
	for _, fn := range files {
		b, err := os.ReadFile(fn)
		if err != nil {
			t.Fatal(err)
		}
		seeds[filepath.Base(fn)] = b
	}
	return seeds
}

// FuzzDecompressPage: a compressed page the server never writes (any bytes changed in one it
// did write) is an error from Decompress, never a panic; what decompresses is then read
// record by record like any page.
func FuzzDecompressPage(f *testing.F) {
	for _, b := range zipSeeds(f) {
		f.Add(b, uint16(0), byte(0))
		f.Add(b, uint16(len(b)-1), byte(0x40))
		f.Add(b, uint16(pageHeader+4), byte(0x01))
	}
	f.Fuzz(func(t *testing.T, b []byte, at uint16, xor byte) {
		size := 1024 // the largest compressed page size that fits
		for size*2 <= len(b) && size < 8192 {
			size *= 2
		}
		if len(b) < size {
			return
		}
		b = append([]byte(nil), b[:size]...)
		b[int(at)%len(b)] ^= xor
		p, err := Decompress(b, 16384)
		if err != nil {
			return
		}
		for origin, i := compactNext(p, infimumNew), 0; origin >= infimumNew && origin < len(p)-8 && i < 1000; i++ {
			if p[origin-3]&7 == statusSupremum {
				break
			}
			origin = compactNext(p, origin)
		}
	})
}

// TestDecompressServerPages: every page in testdata/zip decompresses into a page whose record
// list runs from the infimum through PAGE_N_RECS records to the supremum.
func TestDecompressServerPages(t *testing.T) {
	for name, b := range zipSeeds(t) {
		p, err := Decompress(b, 16384)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		want := int(p[pageHeader+16])<<8 | int(p[pageHeader+17])
		n, origin := 0, compactNext(p, infimumNew)
		for ; origin != supremumNew && origin != 0 && n <= want; n++ {
			origin = compactNext(p, origin)
		}
		if n != want || origin != supremumNew {
			t.Errorf("%s: %d records before %d, PAGE_N_RECS %d", name, n, origin, want)
		}
	}
}

// compactNext is the origin of the record after the one at origin on a COMPACT page (0 at
// the end of the list).
func compactNext(p []byte, origin int) int {
	rel := binary.BigEndian.Uint16(p[origin-2:])
	if rel == 0 {
		return 0
	}
	return (origin + int(rel)) & (len(p) - 1)
}

const statusSupremum = 3
