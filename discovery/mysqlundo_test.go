package discovery

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// mysqlUndoOracle is, by file name, the space id and tablespace name of each undo tablespace
// the MySQL 9.7.4 server of fixtures/mysql8dd listed in information_schema.FILES.
func mysqlUndoOracle(t *testing.T) map[string]struct {
	id   uint32
	name string
} {
	out := map[string]struct {
		id   uint32
		name string
	}{}
	for _, r := range lab.MySQL8Oracle(t, "files.tsv") {
		if !strings.HasPrefix(r[2], "innodb_undo_") {
			continue
		}
		id, err := strconv.ParseUint(r[0], 10, 32)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(r[1])] = struct {
			id   uint32
			name string
		}{uint32(id), r[2]}
	}
	if len(out) != 2 {
		t.Fatalf("files.tsv lists %d undo tablespaces, want 2", len(out))
	}
	return out
}

// TestMySQLUndoTablespaces: the undo tablespaces of the real MySQL 9.7.4 directory (undo_001,
// undo_002 in its innodb_undo_directory) are found as undo tablespaces, with the space ids the
// server listed in information_schema.FILES and the undo space numbers of their names; renamed
// copies are still undo tablespaces, by name (*.ibu, CREATE UNDO TABLESPACE) or by space id (an
// .ibd in a database directory).
func TestMySQLUndoTablespaces(t *testing.T) {
	dir := lab.MySQL8Fixture(t)
	want := mysqlUndoOracle(t)
	for f, w := range want {
		if !IsMySQLUndoSpace(w.id) {
			t.Errorf("%s: space id %d is not a MySQL undo space id", f, w.id)
		}
		if n, _ := strconv.Atoi(strings.TrimPrefix(w.name, "innodb_undo_")); MySQLUndoNumber(w.id) != n {
			t.Errorf("%s: undo space number %d, the server named it %s", f, MySQLUndoNumber(w.id), w.name)
		}
	}
	for _, id := range []uint32{0, 1, 127, 0xFFFFFFFD, 0xFFFFFFFE, 0xFFFFFFF0} { // system, MariaDB undo, temporary, mysql.ibd, redo
		if IsMySQLUndoSpace(id) {
			t.Errorf("space id %d taken for a MySQL undo space", id)
		}
	}
	// Copies under other names: undo_001 as a CREATE UNDO TABLESPACE file in an
	// innodb_directories entry, undo_002 as a table's datafile.
	cp := func(from, to string) {
		r, err := os.Open(from)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		w, err := os.Create(to)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(w, r); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	cp(filepath.Join(dir, "undo", "undo_001"), filepath.Join(dir, "ext", "u3.ibu"))
	cp(filepath.Join(dir, "undo", "undo_002"), filepath.Join(dir, "data", "shop", "u4.ibd"))
	ts, err := Scan(Layout{Datadir: filepath.Join(dir, "data"), UndoDir: filepath.Join(dir, "undo"), Directories: []string{filepath.Join(dir, "ext")}})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range ts {
		base := filepath.Base(s.Path)
		w, inUndo := want[base]
		switch {
		case inUndo:
			seen[base] = true
			if s.FoundBy != FoundUndo || s.SpaceID != w.id || s.Location != LocKnown || s.Error != "" {
				t.Errorf("%s: found by %q, space %d, location %q, error %q; want an undo tablespace of space %d (%s)", s.Path, s.FoundBy, s.SpaceID, s.Location, s.Error, w.id, w.name)
			}
		case base == "u3.ibu", base == "u4.ibd":
			seen[base] = true
			if s.FoundBy != FoundUndo || !IsMySQLUndoSpace(s.SpaceID) {
				t.Errorf("%s: found by %q, space %d; want an undo tablespace", s.Path, s.FoundBy, s.SpaceID)
			}
			if base == "u4.ibd" && !strings.Contains(s.Note, "undo tablespace by its space id") {
				t.Errorf("%s: note %q does not say it is an undo tablespace by its space id", s.Path, s.Note)
			}
		case s.FoundBy == FoundUndo:
			t.Errorf("%s (space %d) taken for an undo tablespace", s.Path, s.SpaceID)
		}
	}
	if len(seen) != 4 {
		t.Errorf("found %v; want undo_001, undo_002, u3.ibu, u4.ibd", seen)
	}
	// UndoPages opens the MySQL undo files by their space ids.
	read, closeFn, err := UndoPages(Layout{Datadir: filepath.Join(dir, "data"), UndoDir: filepath.Join(dir, "undo")})
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	for f, w := range want {
		if _, err := read(w.id, 0); err != nil {
			t.Errorf("%s: page 0 of space %d: %v", f, w.id, err)
		}
	}
}

// TestUndoFileName: the names the servers give undo tablespaces, and some they do not.
func TestUndoFileName(t *testing.T) {
	for name, want := range map[string]bool{
		"undo001": true, "undo127": true, "undo_001": true, "undo_002": true, "u3.ibu": true, "undo_003.ibu": true,
		".ibu": false, "undo01": false, "undo_0001": false, "undo_001.ibd": false, "t.ibd": false, "ibdata1": false, "undo_001_trunc.log": false,
	} {
		if got := UndoFileName(name); got != want {
			t.Errorf("UndoFileName(%q) = %v, want %v", name, got, want)
		}
	}
}
