package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// TestRowsMySQLRowVersions checks `rows FILE.ibd` on tables a real MySQL 9.7.4 server altered
// with ALGORITHM=INSTANT ADD and DROP COLUMN (8.0.29+ row versions; fixtures/mysql8rowver, rows
// inserted between every ALTER): DYNAMIC (a column added last, in the middle and first, two
// dropped, an off-page TEXT), COMPACT (an instantly added column dropped again), REDUNDANT, a
// 6,000-row table of many types over 33 leaves with one version, and a table never altered. From
// each file alone (the schema from its SDI), walking the B-tree and scanning the leaves in file
// order, every table prints exactly what the server's SELECT printed, and `schema` its SHOW CREATE
// TABLE. Before, every altered table was refused ("8.0.29+ row versions ... not decoded yet"),
// and so was every partition ("a partitioned table: not read yet").
func TestRowsMySQLRowVersions(t *testing.T) {
	dir := lab.UnpackFixture(t, "mysql8rowver", "rv.tar.gz")
	oracle := filepath.Join(lab.Root(), "fixtures", "mysql8rowver", "oracle")
	before := lab.HashTree(t, dir)
	for _, tbl := range []string{"plain", "t1", "t2", "t3", "t4"} {
		sel, err := os.ReadFile(filepath.Join(oracle, tbl+".tsv"))
		if err != nil {
			t.Fatal(err)
		}
		_, want, _ := strings.Cut(string(sel), "\n") // mysql --batch's column names first
		file := filepath.Join(dir, "rv", tbl+".ibd")
		for _, args := range [][]string{{"rows", file}, {"rows", "--scan", file}} {
			out, errs, code := run(args...)
			if code != ExitClean || errs != "" {
				t.Errorf("%s: exit %d, stderr %s", strings.Join(args[:len(args)-1], " ")+" "+tbl, code, errs)
				continue
			}
			if out != want {
				t.Errorf("%s %s: %d rows, the server's SELECT %d: %s", strings.Join(args[:len(args)-1], " "), tbl,
					strings.Count(out, "\n"), strings.Count(want, "\n"), clip(firstDiff(want, out)))
			}
		}
		show, err := os.ReadFile(filepath.Join(oracle, tbl+".sql"))
		if err != nil {
			t.Fatal(err)
		}
		if out, errs, code := run("schema", file); code != ExitClean || strings.TrimSpace(out) != strings.TrimSpace(string(show)) {
			t.Errorf("schema %s: exit %d %s\n%s\nthe server's SHOW CREATE TABLE:\n%s", tbl, code, errs, out, show)
		}
	}
	// t1's 10,000-byte TEXT is an uncompressed LOB: its first page is LOB_FIRST (fil0fil.h's
	// FIL_PAGE_TYPE_LOB_FIRST, 24; before, the labels were two off: ZLOB_DATA), and an
	// uncompressed table has no ZLOB page.
	out, _, _ := run("pages", "--json", filepath.Join(dir, "rv", "t1.ibd"))
	var pg struct {
		Summary map[string]int `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &pg); err != nil || pg.Summary["LOB_FIRST"] != 1 {
		t.Errorf("pages t1: %v %v, want one LOB_FIRST page", err, pg.Summary)
	}
	for k := range pg.Summary {
		if strings.HasPrefix(k, "ZLOB") {
			t.Errorf("pages t1: %s in an uncompressed table", k)
		}
	}
	// Partitioned tables (HASH with an instant ADD COLUMN; RANGE subpartitioned by HASH): the
	// file of each partition gives that partition's rows, the table's definition coming from
	// the first partition's file beside it (MySQL keeps it there only); schema writes the
	// partitioning clause as SHOW CREATE TABLE does.
	parts := map[string]string{"ph#p#p0": "ph.p0", "ph#p#p1": "ph.p1", "ph#p#p2": "ph.p2",
		"pr#p#p2020#sp#p2020sp0": "pr.p2020sp0", "pr#p#p2020#sp#p2020sp1": "pr.p2020sp1",
		"pr#p#pmax#sp#pmaxsp0": "pr.pmaxsp0", "pr#p#pmax#sp#pmaxsp1": "pr.pmaxsp1"}
	for file, o := range parts {
		sel, err := os.ReadFile(filepath.Join(oracle, o+".tsv"))
		if err != nil {
			t.Fatal(err)
		}
		_, want, _ := strings.Cut(string(sel), "\n")
		if out, errs, code := run("rows", filepath.Join(dir, "rv", file+".ibd")); code != ExitClean || out != want {
			t.Errorf("rows %s: exit %d %s: %s", file, code, errs, clip(firstDiff(want, out)))
		}
	}
	for file, tbl := range map[string]string{"ph#p#p2": "ph", "pr#p#pmax#sp#pmaxsp1": "pr"} {
		show, err := os.ReadFile(filepath.Join(oracle, tbl+".sql"))
		if err != nil {
			t.Fatal(err)
		}
		if out, errs, code := run("schema", filepath.Join(dir, "rv", file+".ibd")); code != ExitClean || strings.TrimSpace(out) != strings.TrimSpace(string(show)) {
			t.Errorf("schema %s: exit %d %s\n%s\nthe server's SHOW CREATE TABLE:\n%s", file, code, errs, out, show)
		}
	}
	lone := t.TempDir()
	b, err := os.ReadFile(filepath.Join(dir, "rv", "ph#p#p2.ibd"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lone, "ph#p#p2.ibd"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errs, code := run("rows", filepath.Join(lone, "ph#p#p2.ibd")); code != ExitError || out != "" || !strings.Contains(errs, "first partition's file") {
		t.Errorf("a partition's file alone: exit %d, %q, stderr %s", code, out, errs)
	}
	if after := lab.HashTree(t, dir); !reflect.DeepEqual(before, after) {
		t.Errorf("the files changed")
	}
}
