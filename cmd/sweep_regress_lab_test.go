package cmd

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"innoscope/internal/lab"
)

// TestSweep1003PageFlushedBeforePage0 is crash-sweep seed 1003: a PAGE_COMPRESSED partition
// being rebuilt by ALTER TABLE when the server was killed had data pages on disk but page 0
// still all zero. The server recovered it (page 0 rebuilt from the log, the other pages read by
// its page_compressed flags) while diagnose reported CORRUPT_PAGE "page id mismatch" on pages
// it cannot decode without those flags, and on pages the log rebuilds anyway.
//
// The same state, made deterministic: compressed_new's db.pc (PAGE_COMPRESSED, created after the
// checkpoint, blank in the crashed directory) gets one page as the server itself wrote it (from
// its own recovery of the same crash, with an LSN within the log), as a flush of that page
// before page 0 would have left it. The real server on a copy is the judge.
func TestSweep1003PageFlushedBeforePage0(t *testing.T) {
	s := lab.Get(t, "compressed_new")
	written, err := os.ReadFile(filepath.Join(s.Dir, "server", "db", "pc.ibd"))
	if err != nil {
		t.Fatal(err)
	}
	const ps = 16384
	d := damage(t, "compressed_new", func(t *testing.T, dir string) {
		var st statsJSON
		runJSON(t, &st, "log", "stats", "--json", "--fail-on", "none", dir)
		f, err := os.OpenFile(filepath.Join(dir, "db", "pc.ibd"), os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for no := 1; (no+1)*ps <= len(written); no++ {
			p := written[no*ps : (no+1)*ps]
			if lsn := binary.BigEndian.Uint64(p[16:]); lsn == 0 || lsn > st.EndLSN {
				continue
			}
			if _, err := f.WriteAt(p, int64(no*ps)); err != nil {
				t.Fatal(err)
			}
			t.Logf("db/pc.ibd page %d as the server wrote it", no)
			return
		}
		t.Fatal("no page of the server's db/pc.ibd has an LSN within the crashed log")
	})
	j, _ := d.diagnose(t)
	if (j.Summary["error"] > 0) != d.serverLost() {
		t.Errorf("diagnose: %d errors; the server started=%v, tables ok=%v", j.Summary["error"], d.server.Started, d.server.TablesOK)
	}
	if code, errs := d.recover(t); (code == ExitClean) != d.server.Started {
		t.Errorf("recover: exit %d (%s); the server started=%v", code, errs, d.server.Started)
	}
}
