package cmd

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/discovery"
)

// TestFileNameAsServer: the server's own directory names for databases named with every
// 13th character of the ranges its file-name encoding writes in two characters, characters
// around them and ASCII punctuation are discovery.FileName of the names, and SQLName gives
// the names back (diagnose, report and rows name tables by SQLName; rows finds them by
// FileName).
func TestFileNameAsServer(t *testing.T) {
	s := newRowsServer(t, t.TempDir())
	var names []string
	for _, r := range [][2]rune{{0xA0, 0x2FF}, {0x360, 0x5AF}, {0x1DF0, 0x200F}, {0x2150, 0x218F}, {0x24A0, 0x24FF}, {0xFF00, 0xFF6F}} {
		for c := r[0]; c <= r[1]; c += 13 {
			names = append(names, "n"+string(c)+"_"+string(c+1))
		}
	}
	for c := rune(' ') + 1; c < 0x7f; c++ {
		if c != '`' && !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			names = append(names, "p"+string(c)+"q")
		}
	}
	names = append(names, "p`q", "a@0040b", "t#P#p0")
	var stmts strings.Builder
	for _, n := range names {
		stmts.WriteString("CREATE DATABASE `" + strings.ReplaceAll(n, "`", "``") + "`;\n")
	}
	s.sql(t, stmts.String())
	s.shutdown(t)
	for _, n := range names {
		enc := discovery.FileName(n)
		if _, err := os.Stat(filepath.Join(s.dir, enc)); err != nil {
			t.Errorf("database %q: FileName %q is not the server's directory (%v)", n, enc, err)
			continue
		}
		if got := discovery.SQLName(enc); got != n {
			t.Errorf("SQLName(%q) = %q, the server's name is %q", enc, got, n)
		}
	}
	t.Logf("%d database names checked", len(names))
}

// TestTableNamesAsSQL: diagnose names a table as SQL spells it, the spelling rows takes: the
// real server's table `d-b`.`uni✓é` whose .frm is gone is MISSING_FRM "table d-b.uni✓é"
// (the server starts and no longer lists the table, as the finding says), and `rows` of
// d-b.uni✓é (with the .frm) prints the server's rows. Before, diagnose said
// d@002db/uni@2713@0p, the file-name encoding.
func TestTableNamesAsSQL(t *testing.T) {
	s := newRowsServer(t, t.TempDir())
	s.sql(t, "CREATE DATABASE `d-b`; CREATE TABLE `d-b`.`uni✓é` (id INT PRIMARY KEY, v VARCHAR(10)) ENGINE=InnoDB;"+
		"INSERT INTO `d-b`.`uni✓é` VALUES (1, 'a'), (2, 'b');")
	want := string(s.sql(t, "SELECT * FROM `d-b`.`uni✓é` ORDER BY id"))
	s.shutdown(t)
	if out, errs, code := run("rows", s.dir, "d-b.uni✓é"); code != ExitClean || out != want {
		t.Errorf("rows d-b.uni✓é: exit %d, %s\n%s", code, errs, firstDiff(want, out))
	}
	frm := filepath.Join(s.dir, discovery.FileName("d-b"), discovery.FileName("uni✓é")+".frm")
	if err := os.Remove(frm); err != nil {
		t.Fatal(err)
	}
	fs, _ := findingCodes(t, "diagnose", "--json", s.dir)
	if f := fs["MISSING_FRM"]; !strings.Contains(f.Message, "table d-b.uni✓é ") {
		t.Errorf("MISSING_FRM: %+v, want the table named d-b.uni✓é", f)
	}
	s2 := startRowsServer(t, s.dir)
	if tables := string(s2.sql(t, "SHOW TABLES FROM `d-b`")); strings.Contains(tables, "uni") {
		t.Errorf("the server lists the table without its .frm: %s", tables)
	}
	s2.shutdown(t)
}

// TestRowFormatMismatch: rows of a table whose file holds pages of the other row format (the
// real server's REDUNDANT table's file put in place of its DYNAMIC twin's) is refused naming
// the row format mismatch; the server started on the same directory cannot read the table
// either. Before, the refusal named only the index id.
func TestRowFormatMismatch(t *testing.T) {
	s := newRowsServer(t, t.TempDir())
	s.sql(t, "CREATE DATABASE db; CREATE TABLE db.red (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=InnoDB ROW_FORMAT=REDUNDANT;"+
		"CREATE TABLE db.dyn (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;"+
		"INSERT INTO db.red VALUES (1, 'r'), (2, 'rr'); INSERT INTO db.dyn VALUES (1, 'd');")
	s.shutdown(t)
	// db.red's file, its pages given db.dyn's space id (and resealed), as db.dyn's.
	dyn, err := discovery.OpenFile(filepath.Join(s.dir, "db", "dyn.ibd"))
	if err != nil {
		t.Fatal(err)
	}
	space := dyn.FSP.SpaceID
	dyn.Close()
	f, err := discovery.OpenFile(filepath.Join(s.dir, "db", "red.ibd"))
	if err != nil {
		t.Fatal(err)
	}
	var img []byte
	f.EachPage(0, f.Pages(), func(no int64, p []byte) error {
		p = append([]byte(nil), p...)
		if !discovery.IsZero(p) {
			binary.BigEndian.PutUint32(p[discovery.FilPageSpaceID:], space)
			if no == 0 {
				binary.BigEndian.PutUint32(p[discovery.FilPageData:], space) // FSP_SPACE_ID
			}
			discovery.SealPage(p, f.FSP.Flags, binary.BigEndian.Uint64(p[discovery.FilPageLSN:]))
		}
		img = append(img, p...)
		return nil
	})
	f.Close()
	if err := os.WriteFile(filepath.Join(s.dir, "db", "dyn.ibd"), img, 0o660); err != nil {
		t.Fatal(err)
	}
	_, errs, code := run("rows", s.dir, "db.dyn")
	if code != ExitError || !strings.Contains(errs, "row format mismatch: the page's records are ROW_FORMAT=REDUNDANT, the dictionary gives db.dyn ROW_FORMAT=COMPACT, DYNAMIC or COMPRESSED") {
		t.Errorf("rows db.dyn holding db.red's file: exit %d, %s", code, errs)
	}
	s2 := startRowsServer(t, s.dir)
	cmd := exec.Command("mariadb", "--no-defaults", "-S", s2.sock, "-uroot", "-e", "SELECT * FROM db.dyn")
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Errorf("the server reads db.dyn holding db.red's file:\n%s", out)
	} else {
		t.Logf("the server: %s", out)
	}
	s2.shutdown(t)
}
