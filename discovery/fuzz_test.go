package discovery

import (
	"encoding/binary"
	"os"
	"path/filepath"
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

// FuzzOpenFile writes the input as a tablespace file and inspects it with verification.
func FuzzOpenFile(f *testing.F) {
	seed := make([]byte, 4*4096)
	binary.BigEndian.PutUint32(seed[fspFlags:], 0x13) // full_crc32, 4 KiB pages
	f.Add(seed)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<20 {
			return
		}
		p := filepath.Join(t.TempDir(), "f.ibd")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		tf, err := OpenFile(p)
		if err != nil {
			return
		}
		defer tf.Close()
		if _, err := Inspect(tf, InspectOptions{Verify: true, To: -1}); err != nil {
			t.Fatal(err)
		}
	})
}
