package cmd

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/analysis"
	"innoscope/finding"
	"innoscope/internal/lab"
	"innoscope/replay"
)

// TestCorruptPageTheLogDoesNotChange: a crash whose table holds a corrupt index page that
// the log does not change. The server's own recovery starts and leaves it so (CHECK TABLE
// fails); recover's copy is the same (the server started on it gives the same CHECK TABLE
// results), and the copy's verdict says so (issue 28 item 3: recover exited 0 with "on the copy,
// mariadbd will start: nothing to recover"): CORRUPT_PAGE on the copy, the table named among
// those that fail (exactly the tables failing CHECK TABLE on the copy), exit 1;
// --skip-pages keeps the old, fast, unchecked copy and says which pages it did not
// check. verify, which checks every page of its copy, names the page (COPY_CORRUPT_PAGE, exit
// 1), as diagnose does in the source (CORRUPT_PAGE).
func TestCorruptPageTheLogDoesNotChange(t *testing.T) {
	s := lab.Get(t, "dml")
	base := t.TempDir()
	d := filepath.Join(base, "data")
	lab.CopyDir(t, s.Crashed, d)
	needed := neededPages(t, d)
	files, _ := filepath.Glob(filepath.Join(d, "db", "*.ibd"))
	p, page := "", -1
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || len(b) < 4*16384 {
			continue
		}
		space := binary.BigEndian.Uint32(b[34:]) // FIL_PAGE_SPACE_ID of page 0
		for n := 3; (n+1)*16384 <= len(b) && page < 0; n++ {
			img := b[n*16384 : (n+1)*16384]
			const index = 17855 // FIL_PAGE_INDEX
			if _, inLog := needed[analysis.PageID{Space: space, Page: uint32(n)}]; !inLog && binary.BigEndian.Uint16(img[24:]) == index {
				p, page = f, n
			}
		}
		if page >= 0 {
			break
		}
	}
	if page < 0 {
		t.Fatal("no index page of a table that the log leaves alone")
	}
	t.Logf("page %d of %s", page, p)
	flip(t, p, 16384, int64(page), 300)
	server := filepath.Join(base, "server")
	lab.CopyDir(t, d, server)
	sv := s.ServerVerdict(t, server)
	if !sv.Started || sv.TablesOK {
		t.Fatalf("the server on the damaged crash: started %v, tables OK %v: want started with a failing CHECK TABLE\n%s", sv.Started, sv.TablesOK, sv.Checks)
	}

	var dj diagnoseJSON
	out, _, code := run("diagnose", "--json", d)
	if err := json.Unmarshal([]byte(out), &dj); err != nil || code != ExitFindings || !strings.Contains(out, `"CORRUPT_PAGE"`) {
		t.Errorf("diagnose: exit %d, want %d with CORRUPT_PAGE\n%s", code, ExitFindings, out)
	}

	copyDir := filepath.Join(base, "copy")
	out, errs, code := run("recover", "--json", d, "--into", copyDir)
	var rj struct {
		OnCopy *replay.CopyDiagnosis `json:"copy_diagnosis"`
	}
	if err := json.Unmarshal([]byte(out), &rj); err != nil || rj.OnCopy == nil {
		t.Fatalf("recover --json: %v\n%s%s", err, out, errs)
	}
	cv := s.ServerVerdict(t, copyDir)
	if !cv.Started || cv.CrashRecovery || cv.Checks != sv.Checks {
		t.Errorf("the server on recover's copy: started %v, crash recovery %v, CHECK TABLE\n%s\nwant as on its own recovery:\n%s", cv.Started, cv.CrashRecovery, cv.Checks, sv.Checks)
	}
	// The tables recover says will fail are those failing CHECK TABLE on the copy.
	var named, failing []string
	for _, ft := range rj.OnCopy.FailingTables {
		named = append(named, ft.Table)
	}
	for _, l := range strings.Split(strings.TrimSpace(cv.Checks), "\n") {
		if tbl, verdict, _ := strings.Cut(l, "\t"); verdict != "OK" {
			failing = append(failing, tbl)
		}
	}
	corrupt := false
	for _, f := range rj.OnCopy.Findings {
		corrupt = corrupt || f.Code == "CORRUPT_PAGE" && f.Severity == finding.Error && strings.Contains(f.Message, fmt.Sprintf("page %d:", page))
	}
	t.Logf("recover names %v; CHECK TABLE on the copy fails %v", named, failing)
	if code != ExitFindings || !rj.OnCopy.AllPages || !corrupt || len(failing) == 0 || strings.Join(named, ",") != strings.Join(failing, ",") {
		t.Errorf("recover: exit %d (want %d), every page checked %v, CORRUPT_PAGE of page %d %v, tables named %v, want those failing CHECK TABLE on the copy %v\n%s%s",
			code, ExitFindings, rj.OnCopy.AllPages, page, corrupt, named, failing, out, errs)
	}
	out, _, code = run("recover", d, "--into", filepath.Join(base, "copy2"))
	if code != ExitFindings || !strings.Contains(out, "tables that will fail on the copy: "+strings.Join(named, ", ")) || !strings.Contains(out, "checked: every page of the copy") {
		t.Errorf("recover: exit %d\n%s", code, out)
	}
	out, errs, code = run("recover", "--skip-pages", d, "--into", filepath.Join(base, "copy3"))
	if code != ExitClean || !strings.Contains(out, "not checked: pages the log does not change, copied as they are (`innoscope verify "+d+"` checks every page)") {
		t.Errorf("recover --skip-pages: exit %d\n%s%s", code, out, errs)
	}

	var v replay.Verification
	out, _, code = run("verify", "--json", d)
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("verify --json: %v\n%s", err, out)
	}
	found := false
	for _, f := range v.Findings {
		found = found || f.Code == "COPY_CORRUPT_PAGE" && strings.Contains(f.Message, fmt.Sprintf("page %d of db/%s (space ", page, filepath.Base(p)))
	}
	if code != ExitFindings || v.OK || !found {
		t.Errorf("verify: exit %d, ok %v, want exit %d naming page %d of %s as COPY_CORRUPT_PAGE\n%s", code, v.OK, ExitFindings, page, p, out)
	}
}

// TestCorruptChangeBufferBitmap: page 1 of a table (its change buffer bitmap page, which the log
// of this crash does not change) corrupt. The real server starts, logs "Failed to read page 1"
// errors when it reads that page (not on every crash), and every table passes CHECK TABLE with the CHECKSUM TABLE of its own recovery of the
// undamaged crash. diagnose says CORRUPT_PAGE as a warning (exit 0), where it said the tables
// will fail (new-user trial).
func TestCorruptChangeBufferBitmap(t *testing.T) {
	s := lab.Get(t, "dml")
	d := damage(t, "dml", func(t *testing.T, dir string) {
		if _, inLog := neededPages(t, dir)[analysis.PageID{Space: spaceOf(t, filepath.Join(dir, "db/t1.ibd")), Page: 1}]; inLog {
			t.Skip("the log of this generation of the crash changes page 1 of db/t1.ibd")
		}
		if len(doublewriteCopies(t, dir)[[2]uint32{spaceOf(t, filepath.Join(dir, "db/t1.ibd")), 1}]) > 0 {
			t.Skip("the doublewrite buffer of this generation of the crash holds page 1 of db/t1.ibd: the server restores it")
		}
		flip(t, filepath.Join(dir, "db/t1.ibd"), 16384, 1, 200)
	})
	if !d.server.Started || !d.server.TablesOK {
		t.Fatalf("the server: started %v, tables OK %v; want started and CHECK TABLE passing", d.server.Started, d.server.TablesOK)
	}
	// Whether the server reads the bitmap page at all depends on the crash (which pages its
	// recovery and CHECK TABLE touch); when it does, it logs read errors and goes on.
	t.Logf("the server read page 1 and logged errors: %v", strings.Contains(d.errLog, "Failed to read page 1 from file './db/t1.ibd'"))
	if strings.TrimSpace(d.server.Checksums) != strings.TrimSpace(s.Checksums(t)) {
		t.Fatalf("the server's CHECKSUM TABLE on the damaged crash differs from the undamaged one's:\n%s\n%s", d.server.Checksums, s.Checksums(t))
	}
	j, code := d.diagnose(t)
	fs := findings(j, "CORRUPT_PAGE")
	if code != ExitClean || len(fs) != 1 || fs[0].Severity != finding.Warning || !strings.Contains(fs[0].Message, "page 1 (a change buffer bitmap page)") {
		t.Fatalf("diagnose: exit %d, CORRUPT_PAGE %+v; want one warning for page 1", code, fs)
	}
}

// spaceOf is the space id page 0 of the file at path carries.
func spaceOf(t *testing.T, path string) uint32 {
	b := make([]byte, 38)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.ReadAt(b, 0); err != nil {
		t.Fatal(err)
	}
	return binary.BigEndian.Uint32(b[34:])
}
