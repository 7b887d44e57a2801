package cmd

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"innoscope/discovery"
	"innoscope/internal/lab"
	"innoscope/replay"
)

// recoverScenarios are the crash scenarios recover is checked on (compressed: crc32 checksums,
// 4 KiB pages, ROW_FORMAT=COMPRESSED and PAGE_COMPRESSED tables).
var recoverScenarios = append(append([]string{}, scenarios...), "compressed")

// sourceTrees are the directories of a scenario that recover reads: the crashed data directory
// and, for DATA DIRECTORY scenarios, the external directory its .isl files name.
func sourceTrees(s *lab.Scenario) []string {
	trees := []string{s.Crashed}
	if _, err := os.Stat(filepath.Join(s.Dir, "ext-crashed")); err == nil {
		trees = append(trees, filepath.Join(s.Dir, "ext-crashed"))
	}
	return trees
}

// pageDiff compares the pages recovery changed in our file (their LSN differs from the crashed
// file's) with the server's recovered file: every such page that carries the same LSN in both
// (the server's recovery wrote it and nothing changed it afterwards) must be byte for byte the
// same. page_compressed pages are compared after inflating the server's copy (innoscope writes
// them uncompressed).
func pageDiff(t *testing.T, ours, crashed, theirs string) (compared int, diffs []string) {
	t.Helper()
	a, err := discovery.OpenFile(ours)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := os.Open(theirs)
	if err != nil {
		return 0, nil
	}
	defer b.Close()
	c, err := os.Open(crashed)
	if err != nil {
		return 0, nil
	}
	defer c.Close()
	fl := a.FSP.Flags
	buf, old := make([]byte, a.Physical), make([]byte, a.Physical)
	a.EachPage(0, -1, func(no int64, p []byte) error {
		if n, _ := b.ReadAt(buf, no*int64(a.Physical)); n < len(buf) {
			return nil
		}
		if n, _ := c.ReadAt(old, no*int64(a.Physical)); n == len(old) && bytes.Equal(old[16:24], p[16:24]) {
			return nil // not changed by recovery
		}
		q := buf
		if discovery.IsPageCompressed(q, fl) {
			var err error
			if q, err = discovery.Decompress(q, fl, fl.PageSize); err != nil {
				diffs = append(diffs, filepath.Base(theirs)+": "+err.Error())
				return nil
			}
		}
		lsn := binary.BigEndian.Uint64(p[16:])
		if lsn != binary.BigEndian.Uint64(q[16:]) {
			return nil
		}
		compared++
		if !bytes.Equal(p, q) {
			i := 0
			for i < len(p) && p[i] == q[i] {
				i++
			}
			diffs = append(diffs, fmt.Sprintf("%s page %d: first difference at byte %d", ours, no, i))
		}
		return nil
	})
	return compared, diffs
}

// TestRecoverAgainstServer: for every crash scenario, `recover --into` exits 0 and leaves the
// source untouched; the copy's pages are valid for the server's rule and for innochecksum; every
// page the server's own recovery left with the same LSN as ours is byte-identical; and the real
// server started on the copy runs no crash recovery, logs no error, passes CHECK TABLE, and gives
// the same CHECKSUM TABLE as its own crash recovery of the same directory.
func TestRecoverAgainstServer(t *testing.T) {
	for _, name := range recoverScenarios {
		t.Run(name, func(t *testing.T) {
			s := lab.Get(t, name)
			var before []map[string]string
			for _, d := range sourceTrees(s) {
				before = append(before, lab.HashTree(t, d))
			}
			copyDir := filepath.Join(t.TempDir(), "copy")
			var j recoverJSON
			runJSON(t, &j, "recover", "--json", s.Crashed, "--into", copyDir)
			for i, d := range sourceTrees(s) {
				if !mapsEqual(before[i], lab.HashTree(t, d)) {
					t.Errorf("recover changed the source %s", d)
				}
			}
			r := j.Result
			t.Logf("recover: checkpoint %d, end %d, %d mtrs, %d records applied, %d skipped, %d pages read, %d applied, %d freed",
				r.CheckpointLSN, r.EndLSN, r.MTRs, r.RecordsApplied, r.RecordsSkipped, r.PagesRead, r.PagesApplied, r.PagesFreed)
			if s.Verdict.CrashRecovery && (r.CheckpointLSN != s.Verdict.CheckpointLSN || r.EndLSN != s.Verdict.EndLSN) {
				t.Errorf("replayed %d..%d, the server recovered %d..%d", r.CheckpointLSN, r.EndLSN,
					s.Verdict.CheckpointLSN, s.Verdict.EndLSN)
			}
			if s.Verdict.CrashRecovery && r.PagesApplied == 0 {
				t.Error("a crash scenario with no page applied")
			}
			if _, err := os.Stat(filepath.Join(copyDir, replay.IncompleteMarker)); err == nil {
				t.Error("the finished copy is still marked incomplete")
			}
			compared := 0
			for _, f := range datafiles(t, copyDir) {
				pj := pagesOf(t, "--verify", "--summary", f)
				ic, _ := innochecksumBad(t, f)
				if len(pj.Corrupt) != 0 || !reflect.DeepEqual(pj.InnochecksumCorrupt, ic) {
					t.Errorf("%s: corrupt %v (%v); innochecksum reports %v, innoscope's model %v", f, pj.Corrupt, pj.Reasons, ic, pj.InnochecksumCorrupt)
				}
				for _, no := range ic {
					if !strings.Contains(pj.Reasons[no], "doublewrite") {
						t.Errorf("%s page %d: innochecksum rejects it: %s", f, no, pj.Reasons[no])
					}
				}
				rel, _ := filepath.Rel(copyDir, f)
				n, diffs := pageDiff(t, f, filepath.Join(s.Crashed, rel), filepath.Join(s.Dir, "server", rel))
				compared += n
				for _, d := range diffs {
					t.Errorf("differs from the server's recovery: %s", d)
				}
			}
			t.Logf("%d of the %d pages recovery changed are byte-identical to the server's own recovery (the others changed again after it)",
				compared, r.PagesApplied)
			if s.Verdict.CrashRecovery && compared == 0 {
				t.Error("no page to compare with the server's recovery")
			}
			v := s.ServerVerdict(t, copyDir) // the copy is disposable: the server writes to it
			t.Logf("server on the copy: started=%v crash_recovery=%v tables_ok=%v (%d checked), %d errors\n%s",
				v.Started, v.CrashRecovery, v.TablesOK, v.TablesChecked, v.Errors, serverLines(t, v.ErrLog))
			if !v.Started || v.CrashRecovery || !v.TablesOK || v.Errors != 0 {
				t.Errorf("server on the recovered copy: started=%v crash_recovery=%v tables_ok=%v errors=%d\n%s",
					v.Started, v.CrashRecovery, v.TablesOK, v.Errors, v.Checks)
			}
			if want := s.Checksums(t); v.Checksums != want || want == "" {
				t.Errorf("CHECKSUM TABLE on the copy:\n%s\nafter the server's own recovery:\n%s", v.Checksums, want)
			}
		})
	}
}
