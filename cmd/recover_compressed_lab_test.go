package cmd

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"innoscope/discovery"
	"innoscope/internal/lab"
)

// TestCompressedNewScenario: the compressed_new scenario (of TestRecoverAgainstServer) crashes
// with the tablespaces it creates after the checkpoint still blank on disk, so that recovery
// rebuilds them from the log alone: ROW_FORMAT=COMPRESSED at every KEY_BLOCK_SIZE the 16 KiB
// page allows, PAGE_COMPRESSED and REDUNDANT, on the default (full_crc32) server. The flags and
// sizes are the live server's (sys_tablespaces.tsv).
func TestCompressedNewScenario(t *testing.T) {
	s := lab.Get(t, "compressed_new")
	b, err := os.ReadFile(filepath.Join(s.Dir, "sys_tablespaces.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	zip := map[int]bool{}
	blank := 0
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 5 || !strings.HasPrefix(f[1], "db/") || f[1] == "db/t" {
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
	for _, size := range []int{1024, 2048, 4096, 8192} {
		if !zip[size] {
			t.Errorf("no ROW_FORMAT=COMPRESSED table with %d-byte pages", size)
		}
	}
	if blank < 7 {
		t.Errorf("%d tables created after the checkpoint, want 7", blank)
	}
}
