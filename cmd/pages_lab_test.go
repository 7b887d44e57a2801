package cmd

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// formatScenarios are cleanly shut down installs with every row format and checksum setting.
var formatScenarios = []string{"formats_default", "formats_crc32", "formats_4k", "formats_64k"}

var icFail = regexp.MustCompile(`Fail: page::(\d+) invalid`)

// innochecksumBad runs the real innochecksum on path: once allowing any number of mismatches,
// for the pages it reports, and once plainly, for its exit status.
func innochecksumBad(t *testing.T, path string) ([]int64, int) {
	t.Helper()
	out, _ := exec.Command("innochecksum", "-a", "1000000000", path).CombinedOutput()
	code := 0
	if err := exec.Command("innochecksum", path).Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("innochecksum %s: %v", path, err)
		}
		code = ee.ExitCode()
	}
	bad := []int64{}
	for _, m := range icFail.FindAllStringSubmatch(string(out), -1) {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		bad = append(bad, n)
	}
	sort.Slice(bad, func(i, j int) bool { return bad[i] < bad[j] })
	return bad, code
}

// datafiles lists the system tablespace, undo tablespaces and .ibd files under dir.
func datafiles(t *testing.T, dir string) []string {
	var out []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			b := filepath.Base(p)
			if b == "ibdata1" || strings.HasPrefix(b, "undo") || strings.HasSuffix(b, ".ibd") {
				out = append(out, p)
			}
		}
		return nil
	})
	if len(out) == 0 {
		t.Fatalf("no datafiles under %s", dir)
	}
	return out
}

func pagesOf(t *testing.T, args ...string) pagesJSON {
	t.Helper()
	out, errs, code := run(append([]string{"pages", "--json"}, args...)...)
	var j pagesJSON
	if err := json.Unmarshal([]byte(out), &j); err != nil || code == ExitError {
		t.Fatalf("pages %v: exit %d: %v\n%s", args, code, err, errs)
	}
	return j
}

// TestPagesAgainstInnochecksum: on every datafile written under each format, the pages
// innochecksum reports are exactly those innoscope says innochecksum would report, and none is
// corrupt by the server's rule.
func TestPagesAgainstInnochecksum(t *testing.T) {
	for _, name := range formatScenarios {
		t.Run(name, func(t *testing.T) {
			s := lab.Get(t, name)
			for _, f := range datafiles(t, s.Crashed) {
				j := pagesOf(t, "--verify", "--summary", f)
				ic, _ := innochecksumBad(t, f)
				if !reflect.DeepEqual(j.InnochecksumCorrupt, ic) || len(j.Corrupt) != 0 {
					t.Errorf("%s: innoscope corrupt %v, innochecksum-parity %v; innochecksum %v",
						f, j.Corrupt, j.InnochecksumCorrupt, ic)
				}
			}
		})
	}
}

// TestPagesFlippedBytes damages chosen index pages of copies of each table file: both the
// server rule and innochecksum parity must name exactly those pages, as innochecksum does.
func TestPagesFlippedBytes(t *testing.T) {
	for _, name := range formatScenarios {
		t.Run(name, func(t *testing.T) {
			s := lab.Get(t, name)
			for _, tbl := range []string{"dyn", "red", "pc", "zip", "inst"} {
				src := filepath.Join(s.Crashed, "db", tbl+".ibd")
				if _, err := os.Stat(src); err != nil {
					continue // no ROW_FORMAT=COMPRESSED at 64k
				}
				j := pagesOf(t, src)
				var chosen []int64
				for _, p := range j.PageList {
					if (p.Type == "INDEX" || p.Type == "INSTANT" || p.Type == "PAGE_COMPRESSED") && len(chosen) < 2 && p.No > 2 {
						chosen = append(chosen, p.No)
					}
				}
				if len(chosen) == 0 {
					t.Fatalf("%s: no index page to damage (%v)", tbl, j.Summary)
				}
				want := chosen
				if tbl == "pc" && !j.Flags.FullCRC32 {
					// Outside full_crc32, page_compressed pages carry no checksum of their own
					// (it is checked after decompression): neither tool can see the damage.
					want = []int64{}
				}
				b, _ := os.ReadFile(src)
				for _, no := range chosen {
					b[no*int64(j.PhysicalSize)+200] ^= 0x5a
				}
				dst := filepath.Join(t.TempDir(), tbl+".ibd")
				os.WriteFile(dst, b, 0o644)
				v := pagesOf(t, "--verify", "--summary", dst)
				ic, code := innochecksumBad(t, dst)
				if !reflect.DeepEqual(v.Corrupt, want) || !reflect.DeepEqual(v.InnochecksumCorrupt, want) ||
					!reflect.DeepEqual(ic, want) || (code == 0) != (len(want) == 0) {
					t.Errorf("%s: damaged %v, want %v flagged; innoscope %v (parity %v); innochecksum %v exit %d",
						tbl, chosen, want, v.Corrupt, v.InnochecksumCorrupt, ic, code)
				}
				if _, _, code := run("pages", "--verify", "--summary", dst); (code == ExitFindings) != (len(want) > 0) {
					t.Errorf("%s: exit %d, %d pages flagged", tbl, code, len(want))
				}
			}
		})
	}
}

// readFacts reads the lab's facts.tsv: table → column count before the instant ALTER.
func readFacts(t *testing.T, dir string) map[string]int {
	f, err := os.Open(filepath.Join(dir, "facts.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "\t")
		m[k], _ = strconv.Atoi(v)
	}
	return m
}

// TestInstantRoot: after ALTER TABLE ... ADD COLUMN ..., ALGORITHM=INSTANT on a table with
// rows, the clustered index root is INSTANT, PAGE_INSTANT holds the original number of fields
// of the clustered index, and the leftmost leaf starts with the metadata record. The original
// field count is the live server's column count before the ALTER (INNODB_SYS_COLUMNS) plus
// the two hidden fields a clustered index with a PRIMARY KEY carries (DB_TRX_ID, DB_ROLL_PTR).
func TestInstantRoot(t *testing.T) {
	for _, name := range formatScenarios {
		t.Run(name, func(t *testing.T) {
			s := lab.Get(t, name)
			want := readFacts(t, s.Dir)["db/inst"] + 2
			j := pagesOf(t, "--summary", filepath.Join(s.Crashed, "db", "inst.ibd"))
			if len(j.Instant) != 1 || j.Instant[0].NCoreFields != want || !j.Instant[0].MetadataRecord {
				t.Errorf("instant roots %+v, want one with %d core fields and a metadata record", j.Instant, want)
			}
			for _, tbl := range []string{"dyn", "red"} {
				if j := pagesOf(t, "--summary", filepath.Join(s.Crashed, "db", tbl+".ibd")); len(j.Instant) != 0 {
					t.Errorf("%s: instant roots %+v in a table never altered", tbl, j.Instant)
				}
			}
		})
	}
}

// TestPeerFixtures reads the real MySQL files of innodb_ruby: innoscope's innochecksum parity
// agrees with INNOCHECKSUM-VERDICTS.tsv and with a live innochecksum run page by page; for the
// files innochecksum rejects, every rejected page validates under the legacy innodb checksum
// (no page is corrupt by the server's rule). 8.0+ files show SDI pages; the redundant and
// compact sets show their row formats.
func TestPeerFixtures(t *testing.T) {
	base := filepath.Dir(peerFixture(t, "innodb_ruby/INNOCHECKSUM-VERDICTS.tsv"))
	f, err := os.Open(filepath.Join(base, "INNOCHECKSUM-VERDICTS.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	n := 0
	for sc.Scan() {
		verdict, rel, _ := strings.Cut(sc.Text(), "\t")
		path := filepath.Join(base, rel)
		j := pagesOf(t, "--verify", "--summary", path)
		n++
		if len(j.Corrupt) != 0 {
			t.Errorf("%s: pages %v corrupt by the server's rule: %v", rel, j.Corrupt, j.Reasons)
		}
		if (verdict == "0") != (len(j.InnochecksumCorrupt) == 0) {
			t.Errorf("%s: innochecksum verdict %s, innoscope parity %v", rel, verdict, j.InnochecksumCorrupt)
		}
		if _, err := exec.LookPath("innochecksum"); err == nil {
			ic, code := innochecksumBad(t, path)
			if strconv.Itoa(code) != verdict || !reflect.DeepEqual(ic, j.InnochecksumCorrupt) {
				t.Errorf("%s: live innochecksum exit %d pages %v; tsv %s; innoscope %v", rel, code, ic, verdict, j.InnochecksumCorrupt)
			}
		}
		if verdict != "0" && (!j.InnochecksumStops || j.Algorithms["innodb"] == 0 || j.Algorithms["crc32"] != 0) {
			t.Errorf("%s: innochecksum rejects page 0; want every page on the legacy innodb checksum: %v", rel, j.Algorithms)
		}
		for no, why := range j.Reasons {
			if !strings.Contains(why, "legacy innodb checksum") {
				t.Errorf("%s page %d: %s", rel, no, why)
			}
		}
		if j.SpaceID == 0 || j.PageSize != 16384 {
			t.Errorf("%s: space %d page size %d", rel, j.SpaceID, j.PageSize)
		}
		if (strings.Contains(rel, "/8.0/") || strings.Contains(rel, "/8.4/")) && j.Summary["SDI"] == 0 {
			t.Errorf("%s: no SDI page in a MySQL 8 file: %v", rel, j.Summary)
		}
		if strings.Contains(rel, "/redundant/") || strings.Contains(rel, "/compact/") {
			for _, p := range pagesOf(t, path).PageList {
				if p.Index != nil && p.Index.Compact != strings.Contains(rel, "/compact/") {
					t.Errorf("%s page %d: compact=%v", rel, p.No, p.Index.Compact)
				}
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d peer files checked", n)
	}
}

// TestPeerFixturesSpaces: `spaces` on each directory of real MySQL files lists every .ibd with the
// space id and page size that `pages` reads from the same file, decodes MySQL 8's SDI flag, and
// reports the absent system tablespace (these are loose files, not a whole data directory).
func TestPeerFixturesSpaces(t *testing.T) {
	base := filepath.Dir(peerFixture(t, "innodb_ruby/INNOCHECKSUM-VERDICTS.tsv"))
	for _, v := range []string{"5.0", "5.7", "8.0", "8.4", "compact", "redundant"} {
		dir := filepath.Join(base, "sakila", v)
		n := 0
		for _, x := range spacesOf(t, dir) {
			if x.FoundBy == "system" {
				if x.Error == "" {
					t.Errorf("%s: a system tablespace where there is none", dir)
				}
				continue
			}
			j := pagesOf(t, "--summary", x.Path)
			sdi := strings.Contains(strings.Join(x.Flags.Names, " "), "SDI")
			if x.Error != "" || x.SpaceID != j.SpaceID || x.PageSize != 16384 || sdi != (v == "8.0" || v == "8.4") {
				t.Errorf("%s: %+v (pages says space %d)", x.Path, x, j.SpaceID)
			}
			n++
		}
		if n < 10 {
			t.Errorf("%s: only %d tablespaces", dir, n)
		}
	}
}
