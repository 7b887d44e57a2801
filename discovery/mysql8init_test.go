package discovery

import (
	"path/filepath"
	"testing"

	"innoscope/internal/lab"
)

// TestMySQL8InitializingDatadir: the real MySQL 8.0.20 directory of fixtures/mysql8020-init
// (copied during mysqld --initialize: mysql.ibd, the doublewrite file, the session temporary
// files; see its README) is a data directory by its mysql.ibd; the scan lists mysql.ibd with the
// space id and flags of its own page 0, and takes none of its files for an undo tablespace.
func TestMySQL8InitializingDatadir(t *testing.T) {
	dir := filepath.Join(lab.UnpackFixture(t, "mysql8020-init", "initializing.tar.gz"), "mysql")
	l := Layout{Datadir: dir}
	if err := l.CheckDatadir(); err != nil {
		t.Fatalf("CheckDatadir: %v", err)
	}
	f, err := OpenFile(filepath.Join(dir, "mysql.ibd"))
	if err != nil {
		t.Fatal(err)
	}
	id, flags := f.FSP.SpaceID, f.FSP.Flags.Raw
	f.Close()
	ts, err := Scan(l)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range ts {
		if s.FoundBy == FoundUndo {
			t.Errorf("%s (space %d) taken for an undo tablespace", s.Path, s.SpaceID)
		}
		if filepath.Base(s.Path) == "mysql.ibd" {
			found = true
			if s.SpaceID != id || s.Flags.Raw != flags || s.Error != "" || s.FoundBy != FoundScan {
				t.Errorf("mysql.ibd: %+v; page 0 says space %d flags %#x", s, id, flags)
			}
		}
	}
	if !found {
		t.Error("mysql.ibd not listed")
	}
}
