package logformat_test

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"

	. "innoscope/logformat"
	. "innoscope/logformat/logformattest"
)

// TestCountMTRIsDecode: Summarize's fast count of a mini-transaction (countMTR) takes only
// mini-transactions that the full decoder accepts, and counts them as it does (records by
// type, malformed ones, pages), on random mini-transactions of page records near and at the
// limits of what the decoder accepts, for several page sizes (random bytes: what no server
// writes, on purpose).
func TestCountMTRIsDecode(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 1))
	types := []Type{FreePage, InitPage, Extended, Write, Memset, Memmove, Option, Reserved}
	varint := func(dst []byte) []byte {
		switch rng.IntN(8) {
		case 0:
			return AppendVarint(dst, rng.Uint32N(1<<20))
		case 1:
			return append(dst, byte(rng.IntN(256)))
		}
		return AppendVarint(dst, rng.Uint32N(300))
	}
	counted := 0
	for iter := 0; iter < 300000; iter++ {
		var p []byte
		for r := rng.IntN(4); r >= 0; r-- {
			var pl []byte
			typ := types[rng.IntN(len(types))]
			switch typ {
			case Extended:
				pl = append(pl, byte(rng.IntN(12)))
				for k := rng.IntN(7); k > 0; k-- {
					pl = varint(pl)
				}
			case Write, Memset, Memmove:
				for k := rng.IntN(4); k > 0; k-- {
					pl = varint(pl)
				}
			}
			for k := rng.IntN(3) * rng.IntN(40); k > 0; k-- {
				pl = append(pl, byte(rng.IntN(256)))
			}
			p = append(p, PageRecord(typ, len(p) > 0 && rng.IntN(2) == 0, rng.Uint32N(3), rng.Uint32N(300), pl)...)
		}
		if rng.IntN(10) == 0 {
			p[rng.IntN(len(p))] = byte(rng.IntN(256))
		}
		p = append(p, 1, 0, 0, 0, 0) // the termination byte and a CRC
		ok, diff := CountMTRAgrees(p, []int{16384, 16384, 4096, 64}[rng.IntN(4)])
		if diff != "" {
			t.Fatalf("mini-transaction % x: %s", p, diff)
		}
		if ok {
			counted++
		}
	}
	t.Logf("%d of 300000 counted", counted)
	if counted < 10000 {
		t.Errorf("only %d random mini-transactions were counted: the test does not exercise countMTR", counted)
	}
}

// TestCRC32CShort: the short-buffer CRC-32C is hash/crc32's Castagnoli checksum, at every
// length and alignment up to past its cut-over to hash/crc32.
func TestCRC32CShort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, 1100)
	for i := range buf {
		buf[i] = byte(rng.IntN(256))
	}
	for off := 0; off < 8; off++ {
		for n := 0; off+n <= len(buf); n++ {
			if got, want := CRC32CShort(buf[off:off+n]), crc32.Checksum(buf[off:off+n], crc32.MakeTable(crc32.Castagnoli)); got != want {
				t.Fatalf("offset %d, %d bytes: 0x%08x, want 0x%08x", off, n, got, want)
			}
		}
	}
}
