package cmd

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/internal/lab"
)

// TestSweep1070CompressedBlankPage0 is crash-sweep seed 1070: a ROW_FORMAT=COMPRESSED
// (KEY_BLOCK_SIZE=2) partition created by ALTER TABLE after the checkpoint had pages 1, 3, 4, 5
// and 7 on disk while its 2 KiB page 0 was still blank. The server's recovery defers such a file
// and rebuilds page 0 from the log; innoscope read the first 16 KiB as page 0, found bytes there
// (pages 1..7) and took the file for a corrupt page of space 0: diagnose said SPACE_ID_MISMATCH
// and recover refused when the log's FILE_CREATE met the file ("file exists").
//
// The same state, made deterministic for every compressed page size: compressed_new's tables
// created after the checkpoint (blank in the crashed directory) get, one table at a time, the
// pages the server itself wrote in its own recovery of the same crash whose LSN is within the
// crashed log (as flushes before page 0 would have left them). The real server is the judge: it
// recovers the damaged directory, and the server on innoscope's copy must start without crash
// recovery, pass CHECK TABLE, give the same CHECKSUM TABLE and log no more errors.
func TestSweep1070CompressedBlankPage0(t *testing.T) {
	for _, name := range []string{"compressed_new", "compressed_new_4k"} {
		s := lab.Get(t, name)
		for _, z := range compressedNewTables(t, s) {
			t.Run(fmt.Sprintf("%s/%s KEY_BLOCK_SIZE=%d", name, z.name, z.zip>>10), func(t *testing.T) {
				sweep1070(t, s, z)
			})
		}
	}
}

// zipTable is a ROW_FORMAT=COMPRESSED table of a scenario: its name (db/t) and page size.
type zipTable struct {
	name string
	zip  int
}

// compressedNewTables returns one table per ROW_FORMAT=COMPRESSED page size of a compressed_new
// scenario (the flags are the live server's, sys_tablespaces.tsv), each blank in the crashed
// directory.
func compressedNewTables(t *testing.T, s *lab.Scenario) []zipTable {
	b, err := os.ReadFile(filepath.Join(s.Dir, "sys_tablespaces.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	bySize := map[int]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 3 || !strings.HasPrefix(f[1], "db/") {
			continue
		}
		raw, err := strconv.ParseUint(f[2], 10, 32)
		if err != nil {
			t.Fatalf("sys_tablespaces.tsv: %q: %v", line, err)
		}
		fl, err := discovery.DecodeFlags(uint32(raw))
		if err != nil || fl.ZipSize == 0 {
			continue
		}
		p0 := make([]byte, discovery.MinPhysicalPageSize)
		fh, err := os.Open(filepath.Join(s.Crashed, f[1]+".ibd"))
		if err != nil {
			t.Fatal(err)
		}
		fh.ReadAt(p0, 0)
		fh.Close()
		if prev, ok := bySize[fl.ZipSize]; discovery.IsZero(p0) && (!ok || f[1] < prev) {
			bySize[fl.ZipSize] = f[1]
		}
	}
	var out []zipTable
	for zip, name := range bySize {
		out = append(out, zipTable{name, zip})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].zip > out[j].zip })
	if len(out) == 0 {
		t.Fatalf("%s: no ROW_FORMAT=COMPRESSED table blank in the crashed directory", s.Name)
	}
	return out
}

// sweep1070 writes into z's blank file the pages the server wrote (LSN within the log), and
// judges diagnose, verify and recover by the real server.
func sweep1070(t *testing.T, s *lab.Scenario, z zipTable) {
	written, err := os.ReadFile(filepath.Join(s.Dir, "server", z.name+".ibd"))
	if err != nil {
		t.Fatal(err)
	}
	d := damage(t, s.Name, func(t *testing.T, dir string) {
		var st statsJSON
		runJSON(t, &st, "log", "stats", "--json", "--fail-on", "none", dir)
		f, err := os.OpenFile(filepath.Join(dir, z.name+".ibd"), os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var pages []int
		for no := 1; (no+1)*z.zip <= len(written); no++ {
			p := written[no*z.zip : (no+1)*z.zip]
			if lsn := binary.BigEndian.Uint64(p[16:]); lsn == 0 || lsn > st.EndLSN {
				continue
			}
			if _, err := f.WriteAt(p, int64(no*z.zip)); err != nil {
				t.Fatal(err)
			}
			pages = append(pages, no)
		}
		if len(pages) == 0 || pages[0]*z.zip >= 16384 {
			t.Fatalf("%s: pages %v of the server's file have LSNs within the crashed log; the state needs one in the first 16 KiB", z.name, pages)
		}
		t.Logf("%s: %d pages (%v ...) as the server wrote them, page 0 blank", z.name, len(pages), pages[:min(len(pages), 4)])
	})
	if !d.server.Started || !d.server.TablesOK {
		t.Fatalf("the server does not recover the damaged directory (started=%v tables_ok=%v): not the state of seed 1070", d.server.Started, d.server.TablesOK)
	}
	file := filepath.Join(d.dir, z.name+".ibd")

	j, code := d.diagnose(t)
	for _, f := range j.Findings {
		if f.Severity >= finding.Warning {
			t.Errorf("diagnose: %s %s %s: %s (the server recovers the directory)", f.Severity, f.Code, f.File, f.Message)
		}
	}
	if code != ExitClean {
		t.Errorf("diagnose: exit %d", code)
	}
	if out, errs, code := run("verify", d.dir); code != ExitClean {
		t.Errorf("verify: exit %d\n%s\n%s", code, out, errs)
	}
	for _, x := range spacesOf(t, d.dir) {
		if x.Path == file && x.Note != discovery.NotePage0Zero {
			t.Errorf("spaces: %s: note %q, error %q; want %q", file, x.Note, x.Error, discovery.NotePage0Zero)
		}
	}

	cp := filepath.Join(d.base, "copy")
	if out, errs, code := run("recover", d.dir, "--into", cp); code != ExitClean {
		t.Fatalf("recover: exit %d\n%s\n%s", code, out, errs)
	}
	v := s.ServerVerdict(t, cp)
	t.Logf("server on the copy: started=%v crash_recovery=%v tables_ok=%v errors=%d\n%s", v.Started, v.CrashRecovery, v.TablesOK, v.Errors, serverLines(t, v.ErrLog))
	if !v.Started || v.CrashRecovery || !v.TablesOK {
		t.Errorf("the server on innoscope's copy: started=%v crash_recovery=%v tables_ok=%v; its own recovery passed every table:\n%s",
			v.Started, v.CrashRecovery, v.TablesOK, v.Checks)
	}
	if v.Errors > d.server.Errors {
		t.Errorf("the server on innoscope's copy logged %d errors, %d in its own recovery", v.Errors, d.server.Errors)
	}
	if v.Checksums != d.server.Checksums {
		t.Errorf("CHECKSUM TABLE on the copy:\n%s\nafter the server's own recovery:\n%s", v.Checksums, d.server.Checksums)
	}
}
