package cmd

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"innoscope/discovery"
	"innoscope/internal/lab"
)

// TestCompressedNewScenario: the compressed_new scenarios (of TestRecoverAgainstServer) crash
// with the tablespaces they create after the checkpoint still blank on disk, so that recovery
// rebuilds them from the log alone: ROW_FORMAT=COMPRESSED at every KEY_BLOCK_SIZE the page size
// allows (and one with BLOBs: ZBLOB pages), PAGE_COMPRESSED and REDUNDANT; on the default (full_crc32) server with 16 KiB pages,
// and with crc32 and 4 KiB pages. The flags are the live server's (sys_tablespaces.tsv).
func TestCompressedNewScenario(t *testing.T) {
	for _, name := range []string{"compressed_new", "compressed_new_4k"} {
		t.Run(name, func(t *testing.T) {
			s := lab.Get(t, name)
			b, err := os.ReadFile(filepath.Join(s.Dir, "sys_tablespaces.tsv"))
			if err != nil {
				t.Fatal(err)
			}
			zip := map[int]bool{}
			blank, pageSize := 0, 0
			for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				f := strings.Split(line, "\t")
				if len(f) < 5 || !strings.HasPrefix(f[1], "db/") {
					continue
				}
				raw, err := strconv.ParseUint(f[2], 10, 32)
				if err != nil {
					t.Fatalf("sys_tablespaces.tsv: %q: %v", line, err)
				}
				fl, err := discovery.DecodeFlags(uint32(raw))
				if err != nil {
					t.Fatalf("%s: flags 0x%x: %v", f[1], raw, err)
				}
				if f[1] == "db/t" { // created before the checkpoint
					pageSize = fl.PageSize
					continue
				}
				if fl.ZipSize != 0 {
					zip[fl.ZipSize] = true
				}
				p0 := make([]byte, 1024)
				fh, err := os.Open(filepath.Join(s.Crashed, f[1]+".ibd"))
				if err != nil {
					t.Fatal(err)
				}
				fh.ReadAt(p0, 0)
				fh.Close()
				if !discovery.IsZero(p0) {
					t.Errorf("%s: page 0 was written before the crash; the scenario must leave it to the log", f[1])
				}
				blank++
			}
			for size := 1024; size <= min(8192, pageSize); size *= 2 {
				if !zip[size] {
					t.Errorf("no ROW_FORMAT=COMPRESSED table with %d-byte pages", size)
				}
			}
			if blank < 8 || pageSize == 0 {
				t.Errorf("%d tables created after the checkpoint (want 8), page size %d", blank, pageSize)
			}
		})
	}
}

// zlibAdler32 is zlib's adler32(adler, p): Adler-32 continued from adler (the server starts
// the ROW_FORMAT=COMPRESSED legacy checksum from 0, not from hash/adler32's 1).
func zlibAdler32(adler uint32, p []byte) uint32 {
	s1, s2 := adler&0xffff, adler>>16
	for _, b := range p {
		s1 = (s1 + uint32(b)) % 65521
		s2 = (s2 + s1) % 65521
	}
	return s2<<16 | s1
}

// TestZipChecksumRulesAgainstServer: a ROW_FORMAT=COMPRESSED page (the clustered index root of
// db.z, which CHECK TABLE reads) with its checksum field or type rewritten is judged by
// `pages --verify` as the real server (default innodb_checksum_algorithm) and innochecksum
// judge it: the legacy Adler-32 and none checksums are accepted by the server, not by
// innochecksum; a PAGE_COMPRESSED type in a tablespace that is not page_compressed is checked
// by the server (and rejected), skipped by innochecksum. 10.11 writes none of these, so the
// bytes are crafted from a page it wrote.
func TestZipChecksumRulesAgainstServer(t *testing.T) {
	s := lab.Get(t, "compressed_new")
	const no = 3
	cases := []struct {
		name   string
		modify func(p []byte)
	}{
		{"innodb adler32", func(p []byte) {
			a := zlibAdler32(0, p[4:16])
			a = zlibAdler32(a, p[24:26])
			binary.BigEndian.PutUint32(p, zlibAdler32(a, p[34:]))
		}},
		{"none", func(p []byte) { binary.BigEndian.PutUint32(p, 0xdeadbeef) }},
		{"wrong", func(p []byte) { binary.BigEndian.PutUint32(p, binary.BigEndian.Uint32(p)^0x5a5a5a5a) }},
		{"page_compressed type", func(p []byte) { binary.BigEndian.PutUint16(p[24:], uint16(discovery.PagePageCompressed)) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			lab.CopyDir(t, filepath.Join(s.Dir, "server"), dir)
			f := filepath.Join(dir, "db", "z.ibd")
			fh, err := os.OpenFile(f, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			before := pagesOf(t, "--verify", "--summary", f)
			phys := int64(before.PhysicalSize)
			p := make([]byte, phys)
			if _, err := fh.ReadAt(p, no*phys); err != nil {
				t.Fatal(err)
			}
			if discovery.PageType(binary.BigEndian.Uint16(p[24:])) != discovery.PageIndex || before.Flags.ZipSize == 0 {
				t.Fatalf("%s page %d is not a ROW_FORMAT=COMPRESSED index page", f, no)
			}
			c.modify(p)
			_, err = fh.WriteAt(p, no*phys)
			fh.Close()
			if err != nil {
				t.Fatal(err)
			}
			pj := pagesOf(t, "--verify", "--summary", f)
			ours := slices.Contains(pj.Corrupt, no)
			ic, _ := innochecksumBad(t, f)
			if !reflect.DeepEqual(pj.InnochecksumCorrupt, ic) {
				t.Errorf("innochecksum reports %v, innoscope's model %v (%s)", ic, pj.InnochecksumCorrupt, pj.Reasons[no])
			}
			v := s.ServerVerdict(t, dir)
			server := !v.TablesOK || v.Errors != 0
			t.Logf("server: corrupt=%v (started=%v tables_ok=%v errors=%d); innoscope: corrupt=%v %s; innochecksum: %v",
				server, v.Started, v.TablesOK, v.Errors, ours, pj.Reasons[no], ic)
			if !v.Started || ours != server {
				t.Errorf("innoscope says corrupt=%v (%s), the server corrupt=%v:\n%s\n%s", ours, pj.Reasons[no], server,
					serverLines(t, v.ErrLog), v.Checks)
			}
		})
	}
}
