package mysqldd

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"innoscope/discovery"
	"innoscope/internal/lab"
	"innoscope/schema"
)

// TestReadDictionary: the tablespaces, files and tables innoscope decodes from mysql.ibd's
// dictionary tables are those the server printed from information_schema (FILES,
// INNODB_TABLES) for the same dictionary, and those the SDI inside each datafile names.
func TestReadDictionary(t *testing.T) {
	dir := lab.MySQL8Fixture(t)
	d, err := Read(filepath.Join(dir, "data", File))
	if err != nil {
		t.Fatal(err)
	}
	if d.Version != 90704 {
		t.Errorf("mysqld_version_id %d, the SDI of a 9.7.4 server says 90704", d.Version)
	}
	// information_schema.FILES: space id -> file name (the server writes ./ before some).
	files := lab.MySQL8Oracle(t, "files.tsv")
	for _, r := range files {
		var id uint32
		if _, err := fmtSscan(r[0], &id); err != nil {
			t.Fatal(err)
		}
		ts := d.BySpace(id)
		if ts == nil {
			t.Errorf("space %d (%s, %s): not in the decoded dictionary", id, r[2], r[1])
			continue
		}
		if ts.Name != r[2] || len(ts.Files) != 1 || filepath.Clean(ts.Files[0]) != filepath.Clean(r[1]) {
			t.Errorf("space %d: decoded %s %v, the server printed %s %s", id, ts.Name, ts.Files, r[2], r[1])
		}
	}
	if n := len(d.Tablespaces); n != len(files) {
		t.Errorf("%d tablespaces decoded, information_schema.FILES lists %d", n, len(files))
	}
	// information_schema.INNODB_TABLES: db/table[#p#pN] -> space id. It hides the dictionary's
	// own tables, which mysql.ibd holds too.
	want := map[uint32][]string{}
	for _, r := range lab.MySQL8Oracle(t, "innodb_tables.tsv") {
		var id uint32
		if _, err := fmtSscan(r[1], &id); err != nil {
			t.Fatal(err)
		}
		db, tb, _ := strings.Cut(r[0], "/")
		name := db + "." + tb
		if base, part, ok := strings.Cut(tb, "#p#"); ok {
			name = db + "." + base + " PARTITION " + part
		}
		want[id] = append(want[id], name)
	}
	for id, names := range want {
		got := map[string]bool{}
		for _, n := range d.BySpace(id).Tables {
			got[n] = true
		}
		for _, n := range names {
			if !got[n] {
				t.Errorf("space %d: %s (information_schema.INNODB_TABLES) is not among the decoded tables %v", id, n, d.BySpace(id).Tables)
			}
		}
		if id != 4294967294 && len(got) != len(names) {
			t.Errorf("space %d: decoded %v, the server lists %v", id, d.BySpace(id).Tables, names)
		}
	}
	// The SDI of every user datafile: page 0's space id, the tables its SDI describes.
	n := 0
	described := map[string]bool{}
	var partitionsWithout []string
	for _, sub := range []string{"data", "data/shop", "data/sys", "ext", "ext/shop"} {
		ms, _ := filepath.Glob(filepath.Join(dir, sub, "*.ibd"))
		for _, p := range ms {
			if filepath.Base(p) == File {
				continue
			}
			f, err := discovery.OpenFile(p)
			if err != nil {
				t.Fatal(err)
			}
			id := f.FSP.SpaceID
			f.Close()
			recs, err := schema.ReadSDI(p)
			if err != nil {
				t.Logf("%s: %v (its SDI pages were not written before the kill)", p, err)
				continue
			}
			var sdi []string
			for _, r := range recs {
				if o, err := schema.ParseSDITable(r.JSON); err == nil {
					sdi = append(sdi, o.Table.SchemaRef+"."+o.Table.Name)
				}
			}
			sort.Strings(sdi)
			var dd []string
			part := false
			if ts := d.BySpace(id); ts != nil {
				for _, tb := range ts.Tables {
					tb, _, part = strings.Cut(tb, " PARTITION ")
					dd = append(dd, tb)
				}
			}
			for _, tb := range sdi {
				described[tb] = true
			}
			if len(sdi) == 0 && part {
				// The server writes a partitioned table's SDI into one partition's file only.
				partitionsWithout = append(partitionsWithout, dd...)
			} else if strings.Join(sdi, ",") != strings.Join(dd, ",") {
				t.Errorf("%s (space %d): its SDI describes %v, the dictionary places %v in it", p, id, sdi, dd)
			}
			n++
		}
	}
	for _, tb := range partitionsWithout {
		if !described[tb] {
			t.Errorf("the SDI of no partition of %s describes it", tb)
		}
	}
	if n < 7 {
		t.Errorf("only %d datafiles compared with their SDI", n)
	}
}
