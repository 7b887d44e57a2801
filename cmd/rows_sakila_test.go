package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// sakilaTables are the sakila tables whose files the MySQL 8.0 and 8.4 fixtures hold and whose
// expected rows testdata/sakila has (derived from the public sakila-data.sql: see its README).
var sakilaTables = []string{"actor", "address", "category", "city", "country", "customer", "film", "film_actor",
	"film_category", "film_text", "inventory", "language", "staff", "store"}

// TestRowsSakilaMySQL checks `rows FILE.ibd` on the real MySQL 8.0 and 8.4 sakila files: with no
// system tablespace, no redo log and no .frm, the schema from the SDI inside each file, every
// table prints exactly the public sakila data (2 x 14 tables, 15,180 rows each: TIMESTAMPs in UTC,
// DECIMALs, ENUM/SET, YEAR, a geometry, a BLOB of 36,365 bytes on MySQL 8 LOB pages, film_text's
// hidden FTS_DOC_ID left out). The fixtures stay byte-identical.
func TestRowsSakilaMySQL(t *testing.T) {
	for _, v := range []string{"8.0", "8.4"} {
		dir := peerFixture(t, filepath.Join("innodb_ruby/sakila", v, "sakila"))
		before := lab.HashTree(t, dir)
		total := 0
		for _, tbl := range sakilaTables {
			want, err := os.ReadFile(filepath.Join("testdata/sakila", tbl+".tsv"))
			if err != nil {
				t.Fatal(err)
			}
			out, errs, code := run("rows", filepath.Join(dir, tbl+".ibd"))
			if code != ExitClean || errs != "" {
				t.Errorf("%s %s: exit %d, stderr %s", v, tbl, code, errs)
				continue
			}
			if out != string(want) {
				t.Errorf("%s %s: %d lines differ from the %d expected: %s", v, tbl, strings.Count(out, "\n"), strings.Count(string(want), "\n"), clip(firstDiff(string(want), out)))
			}
			total += strings.Count(out, "\n")
		}
		if total != 15180 {
			t.Errorf("%s: %d rows, want 15180", v, total)
		}
		if after := lab.HashTree(t, dir); !reflect.DeepEqual(before, after) {
			t.Errorf("%s: the fixtures changed", v)
		}
	}
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "..."
	}
	return s
}

// TestRowsSakilaDamaged checks that damaged MySQL 8 files give an error or a listed loss, never
// a wrong row: a file cut in half, a leaf page with a flipped byte, a file whose page 0 claims
// another page size. Every row printed is one of the table's expected rows.
func TestRowsSakilaDamaged(t *testing.T) {
	src := peerFixture(t, "innodb_ruby/sakila/8.0/sakila/film.ibd")
	img, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/sakila/film.tsv")
	if err != nil {
		t.Fatal(err)
	}
	wantSet := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSuffix(string(want), "\n"), "\n") {
		wantSet[l] = true
	}
	flip := bytes.Clone(img)
	flip[8*16384+500] ^= 0xff // a leaf page of the clustered index
	pageSize := bytes.Clone(img)
	pageSize[54+2] ^= 0x01 // FSP flags: page size code 4 (8K), not 0 (16K)
	for _, c := range []struct {
		name  string
		img   []byte
		loss  bool // a listed loss (exit 1) rather than an error (exit 2)
		noRow bool
	}{
		{"truncated", img[:len(img)/2], true, false},
		{"flipped byte in a leaf", flip, true, false},
		{"page size", pageSize, false, true},
	} {
		p := filepath.Join(t.TempDir(), "film.ibd")
		if err := os.WriteFile(p, c.img, 0o644); err != nil {
			t.Fatal(err)
		}
		out, errs, code := run("rows", p)
		if code == ExitClean {
			t.Errorf("%s: exit 0 (%d lines)", c.name, strings.Count(out, "\n"))
		}
		if !strings.Contains(errs, p) {
			t.Errorf("%s: the message does not name the file: %s", c.name, errs)
		}
		n := 0
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if l == "" {
				continue
			}
			n++
			if !wantSet[l] {
				t.Errorf("%s: a row that is not sakila's: %s", c.name, clip(l))
			}
		}
		if c.noRow && n > 0 || c.loss && (n == 0 || n == len(wantSet) || !strings.Contains(errs, "rows lost")) {
			t.Errorf("%s: %d rows, exit %d, stderr %s", c.name, n, code, errs)
		}
		t.Logf("%s: exit %d, %d rows: %s", c.name, code, n, strings.TrimSpace(errs))
	}
}
