package discovery

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// FuzzPage decodes arbitrary bytes as a page under every page size: headers, flags, checksum
// verdicts and the index page header must give errors, never panics.
func FuzzPage(f *testing.F) {
	seed := make([]byte, 16384)
	binary.BigEndian.PutUint32(seed[fspFlags:], 0x15)
	binary.BigEndian.PutUint16(seed[FilPageType:], uint16(PageIndex))
	f.Add(seed[:4096], uint32(0x15))
	f.Add(seed, uint32(0))
	f.Fuzz(func(t *testing.T, p []byte, flags uint32) {
		if len(p) > 1<<16 {
			return
		}
		fl, err := DecodeFlags(flags)
		ParseFilHeader(p)
		ParseFSPHeader(p)
		ParseIndexPage(p)
		for _, size := range []int{1024, 2048, 4096, 8192, 16384, 32768, 65536} {
			if len(p) >= size && err == nil {
				CheckPage(p[:size], fl, 0, 0)
				ParseIndexPage(p[:size])
			}
		}
	})
}

// FuzzOpenFile lays the input (page 0's first bytes, flags included) into a four-page file image
// and inspects it with verification: small inputs keep the fuzzer fast while the file still has
// several pages of the size its flags announce.
func FuzzOpenFile(f *testing.F) {
	seed := make([]byte, fspHeaderEnd+8)
	binary.BigEndian.PutUint32(seed[fspFlags:], 0x13) // full_crc32, 4 KiB pages
	f.Add(seed, uint16(0))
	f.Fuzz(func(t *testing.T, b []byte, at uint16) {
		if len(b) > 4096 || len(b) < fspHeaderEnd {
			return
		}
		size := 16384
		if fl, err := DecodeFlags(binary.BigEndian.Uint32(b[fspFlags:])); err == nil {
			size = fl.PageSize
			if fl.ZipSize != 0 {
				size = fl.ZipSize
			}
		}
		img := make([]byte, 4*size)
		copy(img, b)
		copy(img[int(at)%(3*size)+size:], b) // and somewhere in a later page
		tf, err := NewFile(bytes.NewReader(img), int64(len(img)), "fuzz.ibd")
		if err != nil {
			return
		}
		if _, err := Inspect(tf, InspectOptions{Verify: true, To: -1, FutureLSN: 1}); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzDict runs the SYS_TABLES walk over an arbitrary system tablespace image: pointers into
// records, node pointers and leaf chains are all hostile, and must give errors, not panics or
// endless loops.
func FuzzDict(f *testing.F) {
	img := make([]byte, 12*4096)
	binary.BigEndian.PutUint32(img[fspFlags:], 0x13) // full_crc32, 4 KiB pages
	binary.BigEndian.PutUint32(img[7*4096+dictHdrTables:], 8)
	root := img[8*4096 : 9*4096]
	binary.BigEndian.PutUint16(root[FilPageType:], uint16(PageIndex))
	binary.BigEndian.PutUint16(root[infimumOld-2:], supremumOld)
	f.Add(img)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<20 {
			return
		}
		tf, err := NewFile(bytes.NewReader(b), int64(len(b)), "ibdata1")
		if err != nil {
			return
		}
		ReadDictTables(tf)
		DoublewriteCopies(tf)
	})
}
