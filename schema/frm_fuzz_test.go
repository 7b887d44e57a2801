package schema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// frmSeeds are .frm files a MariaDB 10.11 server wrote (testdata/frm: t1 COMPACT with a prefix
// key and defaults, t2 a composite key and a UNIQUE one, t4 REDUNDANT with most types).
func frmSeeds(f *testing.F) {
	names, _ := filepath.Glob("testdata/frm/*.frm")
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// TestFrmSeeds: the seeds give their statements (SHOW CREATE TABLE of the server that wrote
// them, as TestSchemaFrmRoundTrip checks on a live server).
func TestFrmSeeds(t *testing.T) {
	s, err := CreateTableFrm("testdata/frm/t1.frm", "t1")
	if err != nil || !strings.Contains(s, "KEY `ka` (`a`(5),`c`)") || !strings.Contains(s, "`a` varchar(20) NOT NULL DEFAULT 'x'") {
		t.Errorf("t1.frm: %v\n%s", err, s)
	}
}

// FuzzFrmKeys: a damaged key section is an error, never a panic.
func FuzzFrmKeys(f *testing.F) {
	frmSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		parseFrmKeys(b, "fuzz.frm")
	})
}

// FuzzFrmCreate: any .frm image gives an error or a statement, never a panic.
func FuzzFrmCreate(f *testing.F) {
	frmSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		createTableFrm(b, "fuzz.frm", "t")
	})
}
