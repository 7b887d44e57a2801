package cmd

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// TestRowsMySQLCompressedGeneral checks `rows` and `schema` on the files of fixtures/mysql8rowver
// (MySQL 9.7.4) that are not a table's own uncompressed tablespace: rv.tz, ROW_FORMAT=COMPRESSED
// with 8 KiB pages (its SDI pages compressed too; 2,000 rows, MEDIUMTEXT values off page in
// compressed BLOB pages); gts.ibd, a general tablespace holding rv.g1 (a secondary key) and
// rv.g2 (COMPACT, an instant ADD COLUMN); gtz.ibd, a general tablespace of 8 KiB compressed
// pages holding rv.gz1. Each prints exactly the server's SELECT, and schema its SHOW CREATE
// TABLE (the TABLESPACE clause, KEY_BLOCK_SIZE). --scan of rv.tz gives the same rows: a leaf
// page the index gave up (its extent descriptor marks it free) is passed over, not printed
// again. Before, the compressed files were refused ("its SDI pages are compressed") and so
// was the general tablespace ("the SDI holds 2 tables").
func TestRowsMySQLCompressedGeneral(t *testing.T) {
	dir := lab.UnpackFixture(t, "mysql8rowver", "rv.tar.gz")
	oracle := filepath.Join(lab.Root(), "fixtures", "mysql8rowver", "oracle")
	before := lab.HashTree(t, dir)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(oracle, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	selectOf := func(tbl string) string {
		_, rows, _ := strings.Cut(read(tbl+".tsv"), "\n") // mysql --batch's column names first
		return rows
	}
	gts, gtz, tz := filepath.Join(dir, "gts.ibd"), filepath.Join(dir, "gtz.ibd"), filepath.Join(dir, "rv", "tz.ibd")
	for _, c := range []struct {
		tbl  string
		args []string
	}{
		{"tz", []string{tz}},
		{"gz1", []string{gtz}},
		{"g1", []string{gts, "rv.g1"}},
		{"g2", []string{gts, "rv.g2"}},
		{"g2", []string{gts, "g2"}},
	} {
		want := selectOf(c.tbl)
		out, errs, code := run(append([]string{"rows"}, c.args...)...)
		if code != ExitClean || errs != "" || out != want {
			t.Errorf("rows %s: exit %d, stderr %q: %d rows, the server's SELECT %d: %s", strings.Join(c.args, " "), code, errs,
				strings.Count(out, "\n"), strings.Count(want, "\n"), clip(firstDiff(want, out)))
		}
		out, errs, code = run(append([]string{"schema"}, c.args...)...)
		if show := read(c.tbl + ".sql"); code != ExitClean || strings.TrimSpace(out) != strings.TrimSpace(show) {
			t.Errorf("schema %s: exit %d %s\n%s\nthe server's SHOW CREATE TABLE:\n%s", strings.Join(c.args, " "), code, errs, out, show)
		}
	}
	// --scan reads the leaves in file order: the same rows (in another order), none twice.
	out, errs, code := run("rows", "--scan", tz)
	if want := selectOf("tz"); code != ExitClean || byKey(out) != want {
		t.Errorf("rows --scan tz: exit %d, stderr %q: %s", code, errs, clip(firstDiff(want, byKey(out))))
	} else {
		t.Logf("rows --scan tz: %d rows; %s", strings.Count(out, "\n"), strings.TrimSpace(errs))
	}
	// The general tablespace without a table named: refused, naming both; a name it does not
	// hold: refused, naming what it holds. schema prints both tables.
	if out, errs, code := run("rows", gts); code != ExitError || out != "" || !strings.Contains(errs, "rv.g1, rv.g2") || !strings.Contains(errs, "name one") {
		t.Errorf("rows gts.ibd: exit %d, %q, stderr %s", code, out, errs)
	}
	if out, errs, code := run("rows", gts, "rv.t1"); code != ExitError || out != "" || !strings.Contains(errs, "no table rv.t1") || !strings.Contains(errs, "rv.g1, rv.g2") {
		t.Errorf("rows gts.ibd rv.t1: exit %d, %q, stderr %s", code, out, errs)
	}
	out, errs, code = run("schema", gts)
	want := "-- rv.g1 (" + gts + ")\n" + read("g1.sql") + "\n-- rv.g2 (" + gts + ")\n" + read("g2.sql")
	if code != ExitClean || out != want {
		t.Errorf("schema gts.ibd: exit %d %s: %s", code, errs, clip(firstDiff(want, out)))
	}
	// The data directory: every table, the partitioned ones (from a partition's file) and
	// those of the general tablespaces beside the database directory (before, schema DIR left
	// out rv.ph, rv.pr, rv.g1, rv.g2 and rv.gz1 without a word), and each by its name.
	out, errs, code = run("schema", dir)
	var listed []string
	for _, l := range strings.Split(out, "\n") {
		if name, _, ok := strings.Cut(strings.TrimPrefix(l, "-- "), " ("); ok && strings.HasPrefix(l, "-- ") {
			listed = append(listed, name)
		}
	}
	wantListed := []string{"rv.g1", "rv.g2", "rv.gz1", "rv.ph", "rv.plain", "rv.pr", "rv.t1", "rv.t2", "rv.t3", "rv.t4", "rv.tz"}
	if code != ExitClean || !slices.Equal(listed, wantListed) {
		t.Errorf("schema DIR: exit %d, %s: tables %v, want %v", code, errs, listed, wantListed)
	}
	for _, tbl := range []string{"g2", "ph"} {
		out, errs, code := run("schema", dir, "rv."+tbl)
		if _, stmt, _ := strings.Cut(out, "\n"); code != ExitClean || strings.TrimSpace(stmt) != strings.TrimSpace(read(tbl+".sql")) {
			t.Errorf("schema DIR rv.%s: exit %d, %s\n%s", tbl, code, errs, out)
		}
	}
	// The compressed table's long values are in compressed BLOB pages (ZBLOB, type 11).
	if out, _, _ := run("pages", tz); !strings.Contains(out, "ZBLOB") {
		t.Errorf("pages tz: no ZBLOB page:\n%s", clip(out))
	}
	if after := lab.HashTree(t, dir); !reflect.DeepEqual(before, after) {
		t.Errorf("the files changed")
	}
}

// byKey sorts tsv lines by their first field, a number.
func byKey(tsv string) string {
	lines := strings.SplitAfter(tsv, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	key := func(l string) int {
		f, _, _ := strings.Cut(l, "\t")
		n, _ := strconv.Atoi(f)
		return n
	}
	slices.SortStableFunc(lines, func(a, b string) int { return key(a) - key(b) })
	return strings.Join(lines, "")
}
