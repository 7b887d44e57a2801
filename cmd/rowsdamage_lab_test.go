package cmd

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"innoscope/discovery"
	"innoscope/internal/lab"
)

// Damaged pages of a table and of the data dictionary, against the real server's rows of the
// undamaged table (issue 29, items 4 and 8).

// rowsDamageServer makes a data directory whose db.t has 5,000 rows on some 80 leaf pages under
// one root (a two-level B-tree), shuts the server down cleanly and returns the directory and
// the server's SELECT * ORDER BY id of the table.
func rowsDamageServer(t *testing.T) (string, string) {
	s := newRowsServer(t, t.TempDir())
	s.sql(t, `CREATE DATABASE db; CREATE TABLE db.t (id INT PRIMARY KEY, v VARCHAR(250), n INT) ENGINE=InnoDB;
		INSERT INTO db.t SELECT seq, REPEAT(CHAR(65 + seq % 26), 240), seq FROM seq_1_to_5000;`)
	want := string(s.sql(t, "SELECT * FROM db.t ORDER BY id"))
	s.shutdown(t)
	return s.dir, want
}

// indexPage is the header of an index page of a tablespace file.
type indexPage struct {
	no, prev, next uint32
	level, nRecs   uint16
}

// indexPages lists the INDEX pages of the file in page order.
func indexPages(t *testing.T, path string) []indexPage {
	f, err := discovery.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []indexPage
	f.EachPage(0, f.Pages(), func(no int64, p []byte) error {
		h, _ := discovery.ParseFilHeader(p)
		if ip, err := discovery.ParseIndexPage(p); err == nil && h.Type == 17855 {
			out = append(out, indexPage{uint32(no), h.Prev, h.Next, ip.Level, ip.NRecs})
		}
		return nil
	})
	return out
}

// resealed changes page no of the tablespace file at path with fn and recomputes its checksum
// (damage the checksum does not reveal).
func resealed(t *testing.T, path string, no uint32, fn func(p []byte)) {
	f, err := discovery.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fl, ps := f.FSP.Flags, int64(f.Physical)
	f.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := b[int64(no)*ps : int64(no+1)*ps]
	fn(p)
	discovery.SealPage(p, fl, binary.BigEndian.Uint64(p[discovery.FilPageLSN:]))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

var lostLine = regexp.MustCompile(`(\d+) rows printed, (\d+) rows lost on (\d+) pages`)

// TestRowsDamagedLeaves: leaf pages damaged in ways their checksum does not show (resealed): a
// type or an index id that is not the table's, a FIL_PAGE_NEXT that points to the root, to the
// page itself (a loop) or past the end of the file. Before issue 29 the first two dropped the
// page's rows with exit 0 and no count; the link to the root printed the first leaf's rows and
// called the root's node pointers "rows lost"; the loop and the dangling link stopped with
// exit 2. Now every case exits 1, prints every readable row in the server's order and counts
// exactly the rows the server's SELECT has and rows does not print; --scan finds the rows the
// walk prints.
func TestRowsDamagedLeaves(t *testing.T) {
	dir, want := rowsDamageServer(t)
	wantLines := strings.SplitAfter(want, "\n")
	wantLines = wantLines[:len(wantLines)-1]
	ibd := filepath.Join(dir, "db", "t.ibd")
	var root indexPage
	var leaves []indexPage
	for _, p := range indexPages(t, ibd) {
		if p.level > 0 {
			root = p
		} else {
			leaves = append(leaves, p)
		}
	}
	if root.level != 1 || len(leaves) < 20 {
		t.Fatalf("db.t: root at level %d, %d leaves: not the two-level tree the test needs", root.level, len(leaves))
	}
	// the leaves in key order, by their links
	byNo := map[uint32]indexPage{}
	first := uint32(0)
	for _, l := range leaves {
		byNo[l.no] = l
		if l.prev == 0xffffffff {
			first = l.no
		}
	}
	var chain []indexPage
	for no := first; no != 0xffffffff; no = byNo[no].next {
		chain = append(chain, byNo[no])
	}
	mid := chain[len(chain)/2]
	cases := []struct {
		name string
		page uint32
		fn   func(p []byte)
		lost int // rows the server's SELECT has and rows cannot print
	}{
		{"type", mid.no, func(p []byte) { binary.BigEndian.PutUint16(p[discovery.FilPageType:], 0) }, int(mid.nRecs)},
		{"index id", mid.no, func(p []byte) { p[discovery.FilPageData+28+7] ^= 0x40 }, int(mid.nRecs)},
		{"type of the first leaf", chain[0].no, func(p []byte) { binary.BigEndian.PutUint16(p[discovery.FilPageType:], 0) }, int(chain[0].nRecs)},
		{"index id of the first leaf", chain[0].no, func(p []byte) { p[discovery.FilPageData+28+7] ^= 0x40 }, int(chain[0].nRecs)},
		{"next to the root", chain[0].no, func(p []byte) { binary.BigEndian.PutUint32(p[discovery.FilPageNext:], root.no) }, 0},
		{"next to itself", mid.no, func(p []byte) { binary.BigEndian.PutUint32(p[discovery.FilPageNext:], mid.no) }, 0},
		{"next past the end", mid.no, func(p []byte) { binary.BigEndian.PutUint32(p[discovery.FilPageNext:], 1<<20) }, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cp := filepath.Join(t.TempDir(), "data")
			lab.CopyDir(t, dir, cp)
			resealed(t, filepath.Join(cp, "db", "t.ibd"), c.page, c.fn)
			before := lab.HashTree(t, cp)
			out, errs, code := run("rows", cp, "db.t")
			if code != ExitFindings {
				t.Fatalf("exit %d (want 1): %s", code, errs)
			}
			if !strings.Contains(errs, fmt.Sprintf("page %d:", c.page)) {
				t.Errorf("the damaged page %d is not named: %s", c.page, errs)
			}
			m := lostLine.FindStringSubmatch(errs)
			if m == nil {
				t.Fatalf("no count of lost rows: %s", errs)
			}
			got := strings.SplitAfter(out, "\n")
			got = got[:len(got)-1]
			// every printed row is the server's, in its order; the missing ones are counted
			i := 0
			for _, l := range got {
				for i < len(wantLines) && wantLines[i] != l {
					i++
				}
				if i == len(wantLines) {
					t.Fatalf("printed row %q is not the server's (or out of order)", l)
				}
				i++
			}
			missing := len(wantLines) - len(got)
			if missing != c.lost || m[2] != fmt.Sprint(c.lost) || m[1] != fmt.Sprint(len(got)) {
				t.Errorf("%d of the server's %d rows printed, %d missing, %d expected missing; rows says %q", len(got), len(wantLines), missing, c.lost, m[0])
			}
			scan, _, _ := run("rows", "--scan", cp, "db.t")
			if c.lost == 0 && sortedLines(scan) != sortedLines(out) {
				t.Errorf("--scan prints other rows than the walk")
			}
			if !mapsEqual(before, lab.HashTree(t, cp)) {
				t.Error("rows changed the data directory")
			}
			t.Logf("%s: %s", c.name, m[0])
		})
	}
}

// TestRowsDamagedDictionary: a byte flipped in a page of the data dictionary (the header page and
// the roots of SYS_TABLES, SYS_COLUMNS, SYS_INDEXES and SYS_FIELDS, each a single leaf here) of
// a cleanly shut down directory. The server, started on the damaged copy, reports the page
// corrupt (for SYS_COLUMNS it refuses to start); rows refuses the table (exit 2) naming the
// system tablespace, the page and the dictionary table. Before issue 29 rows decoded the damaged
// pages: exit 0, with the table's rows as if nothing were wrong or wrong ones.
func TestRowsDamagedDictionary(t *testing.T) {
	dir, want := rowsDamageServer(t)
	sys := filepath.Join(dir, "ibdata1")
	b, err := os.ReadFile(sys)
	if err != nil {
		t.Fatal(err)
	}
	hdr := b[7*16384 : 8*16384]
	pages := []struct {
		name string
		no   uint32
	}{{"dictionary header", 7}}
	for _, d := range []struct {
		name string
		off  int
	}{{"SYS_TABLES", 32}, {"SYS_COLUMNS", 40}, {"SYS_INDEXES", 44}, {"SYS_FIELDS", 48}} {
		pages = append(pages, struct {
			name string
			no   uint32
		}{d.name, binary.BigEndian.Uint32(hdr[discovery.FilPageData+d.off:])})
	}
	if out, _, code := run("rows", dir, "db.t"); code != ExitClean || out != want {
		t.Fatalf("rows on the undamaged directory: exit %d, or not the server's rows", code)
	}
	for _, pg := range pages {
		t.Run(pg.name, func(t *testing.T) {
			// in the page header, in the records, in the free space
			for i, at := range []int64{discovery.FilPageData + 2, 200, 9000} {
				cp := filepath.Join(t.TempDir(), "data")
				lab.CopyDir(t, dir, cp)
				flip(t, filepath.Join(cp, "ibdata1"), 16384, int64(pg.no), at)
				before := lab.HashTree(t, cp)
				out, errs, code := run("rows", cp, "db.t")
				named := fmt.Sprintf("ibdata1: offset %d: page %d (%s) fails its checksum", int64(pg.no)*16384, pg.no, pg.name)
				if code != ExitError || out != "" || !strings.Contains(errs, named) {
					t.Errorf("byte %d flipped: exit %d, %d bytes of rows, %s (want exit 2 naming %q)", at, code, len(out), errs, named)
				}
				if !mapsEqual(before, lab.HashTree(t, cp)) {
					t.Error("rows changed the data directory")
				}
				if i > 0 {
					continue
				}
				// The server on the same damage (its own copy: it writes).
				srv := filepath.Join(t.TempDir(), "srv")
				lab.CopyDir(t, cp, srv)
				v := (&lab.Scenario{}).ServerVerdict(t, srv)
				log, _ := os.ReadFile(v.ErrLog)
				if !regexp.MustCompile(fmt.Sprintf(`page %d from file '\./ibdata1': Page read from tablespace is corrupted`, pg.no)).Match(log) &&
					!regexp.MustCompile(fmt.Sprintf(`page id: space=0, page number=%d\]`, pg.no)).Match(log) {
					t.Errorf("the server did not report page %d corrupt (started %v):\n%s", pg.no, v.Started, serverLines(t, v.ErrLog))
				}
				t.Logf("%s page %d: the server started: %v, [ERROR] lines: %d; rows: %s", pg.name, pg.no, v.Started, v.Errors, strings.TrimSpace(errs))
			}
		})
	}
}
