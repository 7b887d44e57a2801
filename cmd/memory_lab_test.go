package cmd

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"innoscope/discovery"
	"innoscope/internal/lab"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hostileLimit is the memory innoscope may write to in TestBoundedMemory (RLIMIT_DATA: its
// private writable mappings; the Go runtime's address space reservations are not writable and
// do not count, so unlike RLIMIT_AS the limit holds whatever threads are made). The commands
// need a few MB on these small directories; every file the test makes claims gigabytes.
const hostileLimit = 768 << 20

// limited is the command line that runs the test binary as innoscope within hostileLimit
// bytes (prlimit --data), where an allocation of what a file claims fails ("fatal error: out
// of memory", exit 2).
func limited(t *testing.T) []string {
	t.Helper()
	pl, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("needs prlimit")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{pl, fmt.Sprintf("--data=%d", hostileLimit), exe}
}

// sparse extends the file at path to size bytes (a hole: no disk space).
func sparse(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}

// noOOM fails the test when innoscope ran out of memory or panicked.
func noOOM(t *testing.T, what string, r cliResult) {
	t.Helper()
	if strings.Contains(r.stderr, "out of memory") || strings.Contains(r.stderr, "fatal error") || strings.Contains(r.stderr, "panic:") {
		t.Errorf("%s in %d MiB: exit %d\n%.2000s", what, hostileLimit>>20, r.code, r.stderr)
	}
}

// TestBoundedMemory: files whose size or structure claims gigabytes are read within what the
// server itself reads of them, in an address space of 768 MiB: a sparse 3 GB .frm (the server
// reads the length its header gives, at most FRM_MAX_SIZE), a 2 GB .par (the server reads the
// length its first word gives), a 2 GB ddl_recovery.log (the server reads it entry by entry),
// and a BLOB reference claiming 0xF0000000 bytes (its chain is read as it goes). The server
// started on a copy holding the same .frm, .par and DDL log gives the same rows. Before, each
// was read whole (or the BLOB's claimed length allocated first): "fatal error: out of memory".
func TestBoundedMemory(t *testing.T) {
	argv := limited(t)
	base := t.TempDir()
	src := newRowsServer(t, filepath.Join(base, "src"))
	src.sql(t, "CREATE DATABASE d;\n"+
		"CREATE TABLE d.bl (id INT PRIMARY KEY, b LONGBLOB) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;\n"+
		"INSERT INTO d.bl SELECT seq, REPEAT(CHAR(64 + seq), 30000) FROM seq_1_to_5;\n"+
		"CREATE TABLE d.pt (id INT PRIMARY KEY, v INT) ENGINE=InnoDB PARTITION BY HASH(id) PARTITIONS 3;\n"+
		"INSERT INTO d.pt SELECT seq, seq * 2 FROM seq_1_to_30;\n")
	parts := string(src.sql(t, "SELECT PARTITION_NAME FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA='d' AND TABLE_NAME='pt' ORDER BY PARTITION_ORDINAL_POSITION"))
	src.shutdown(t)
	bigify := func(dir string) {
		sparse(t, filepath.Join(dir, "d", "bl.frm"), 3<<30)
		sparse(t, filepath.Join(dir, "d", "pt.par"), 2<<30)
	}
	// The server on a copy with the same files.
	srvCopy := filepath.Join(base, "srv")
	lab.CopyDir(t, src.dir, srvCopy)
	bigify(srvCopy)
	s := startRowsServer(t, srvCopy)
	wantBl := string(s.sql(t, "SELECT * FROM d.bl ORDER BY id"))
	wantP0 := string(s.sql(t, "SELECT * FROM d.pt PARTITION (p0) ORDER BY id"))
	s.shutdown(t)

	dir := filepath.Join(base, "big")
	lab.CopyDir(t, src.dir, dir)
	bigify(dir)
	r := cliIn(t, base, hangLimit, argv, "rows", dir, "d.bl")
	noOOM(t, "rows of a table with a 3 GB .frm", r)
	if r.code != ExitClean || r.stdout != wantBl {
		t.Errorf("rows d.bl with a 3 GB .frm: exit %d, %s\n%s", r.code, r.stderr, firstDiff(wantBl, r.stdout))
	}
	plain := cliIn(t, base, hangLimit, nil, "diagnose", "--json", src.dir)
	r = cliIn(t, base, hangLimit, argv, "diagnose", "--json", dir)
	noOOM(t, "diagnose with a 3 GB .frm and a 2 GB .par", r)
	if r.code != plain.code {
		t.Errorf("diagnose with a 3 GB .frm and a 2 GB .par: exit %d, %d without\n%s", r.code, plain.code, r.stderr)
	}
	r = cliIn(t, base, hangLimit, argv, "rows", dir, "d.pt")
	noOOM(t, "rows of a partitioned table with a 2 GB .par", r)
	var names []string
	for _, p := range strings.Fields(parts) {
		names = append(names, "d.pt#P#"+p)
	}
	if want := strings.Join(names, ", "); r.code != ExitError || !strings.Contains(r.stderr, want) {
		t.Errorf("rows d.pt with a 2 GB .par: exit %d, want the partitions in the server's order (%s)\n%s", r.code, want, r.stderr)
	}
	r = cliIn(t, base, hangLimit, argv, "rows", dir, "d.pt#P#p0")
	noOOM(t, "rows of a partition", r)
	if r.code != ExitClean || r.stdout != wantP0 {
		t.Errorf("rows d.pt#P#p0: exit %d, %s\n%s", r.code, r.stderr, firstDiff(wantP0, r.stdout))
	}
	// The DDL log of a crash in a copying ALTER TABLE, followed by 2 GB of free entries: the
	// server reads it entry by entry and recovers the same.
	churn := lab.Get(t, "ddl_churn")
	ddl := copyScenario(t, churn)
	plain = cliIn(t, base, hangLimit, nil, "diagnose", "--json", "--skip-pages", ddl)
	sparse(t, filepath.Join(ddl, "ddl_recovery.log"), 2<<30)
	r = cliIn(t, base, hangLimit, argv, "diagnose", "--json", "--skip-pages", ddl)
	noOOM(t, "diagnose with a 2 GB ddl_recovery.log", r)
	if r.code != plain.code || ddlFindings(r.stdout) != ddlFindings(plain.stdout) || ddlFindings(r.stdout) == "" {
		t.Errorf("diagnose with ddl_recovery.log grown to 2 GB: exit %d, DDL findings\n%s\nwithout the growth: exit %d\n%s\n%s",
			r.code, ddlFindings(r.stdout), plain.code, ddlFindings(plain.stdout), r.stderr)
	}

	// A BLOB reference claiming 0xF0000000 bytes in a leaf page of d.bl (its checksum redone).
	blob := filepath.Join(base, "blob")
	lab.CopyDir(t, src.dir, blob)
	claimHugeBlob(t, filepath.Join(blob, "d", "bl.ibd"))
	r = cliIn(t, base, hangLimit, argv, "rows", blob, "d.bl")
	noOOM(t, "rows with a BLOB reference of 0xF0000000 bytes", r)
	if r.code != ExitFindings || !strings.Contains(r.stderr, "1 rows lost") || !oneLineLess(wantBl, r.stdout) {
		t.Errorf("rows with a BLOB reference claiming 0xF0000000 bytes: exit %d, want 1 and every row but one\n%s\n%s", r.code, r.stderr, firstDiff(wantBl, r.stdout))
	}
}

// oneLineLess reports whether got is want without one of its lines.
func oneLineLess(want, got string) bool {
	w := strings.SplitAfter(want, "\n")
	for i := range w {
		if strings.Join(w[:i], "")+strings.Join(w[i+1:], "") == got && w[i] != "" {
			return true
		}
	}
	return false
}

// ddlFindings are the DDL_RECOVERY findings of diagnose --json output, one a line.
func ddlFindings(out string) string {
	var d struct{ Findings []findingJSON }
	json.Unmarshal([]byte(out), &d)
	var lines []string
	for _, f := range d.Findings {
		if strings.HasPrefix(f.Code, "DDL_RECOVERY") {
			lines = append(lines, f.Severity+" "+f.Code+" "+f.Message)
		}
	}
	return strings.Join(lines, "\n")
}

// claimHugeBlob sets the length of the first BLOB reference (to a 30000-byte value) in a leaf
// page of the tablespace at path to 0xF0000000, reseals the page, and returns the id of its row.
func claimHugeBlob(t *testing.T, path string) {
	t.Helper()
	f, err := discovery.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ps, fl, space := int64(f.Physical), f.FSP.Flags, f.FSP.SpaceID
	var page []byte
	var no int64
	at := -1
	f.EachPage(0, f.Pages(), func(n int64, p []byte) error {
		if h, _ := discovery.ParseFilHeader(p); h.Type == 17855 && page == nil {
			if at = blobRef(p, space, 30000); at >= 0 {
				page, no = append([]byte(nil), p...), n
			}
		}
		return nil
	})
	f.Close()
	if page == nil {
		t.Fatal("no leaf page holds a BLOB reference")
	}
	binary.BigEndian.PutUint32(page[at+16:], 0xF0000000)
	discovery.SealPage(page, fl, binary.BigEndian.Uint64(page[discovery.FilPageLSN:]))
	w, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.WriteAt(page, no*ps); err != nil {
		t.Fatal(err)
	}
}

// blobRef is the offset in page p of a 20-byte BLOB reference of the space to a value of
// length bytes (space id, page, offset FIL_PAGE_DATA = 38, length in 8 bytes), or -1.
func blobRef(p []byte, space uint32, length uint32) int {
	be := binary.BigEndian
	for i := 38 + 21; i+20 <= len(p); i++ {
		if be.Uint32(p[i:]) == space && be.Uint32(p[i+8:]) == 38 && be.Uint32(p[i+12:]) == 0 && be.Uint32(p[i+16:]) == length {
			return i
		}
	}
	return -1
}
