package mysqldd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/internal/lab"
	"innoscope/schema"
)

// TestReadDamagedDictionary: a dictionary table whose root page is damaged, or a mysql.ibd cut
// short, is an error naming what could not be read, never a partial dictionary taken as whole.
func TestReadDamagedDictionary(t *testing.T) {
	dir := lab.MySQL8Fixture(t)
	src := filepath.Join(dir, "data", File)
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	// The root of mysql.tablespaces, as the SDI of the same file gives it.
	recs, err := schema.ReadSDI(src)
	if err != nil {
		t.Fatal(err)
	}
	root := uint64(0)
	for _, r := range recs {
		if o, err := schema.ParseSDITable(r.JSON); err == nil && o.Table.SchemaRef == "mysql" && o.Table.Name == "tablespaces" {
			root, _ = privateUint(o.Table.Indexes[0].SEPrivateData, "root")
		}
	}
	if root == 0 {
		t.Fatal("no root of mysql.tablespaces in the SDI")
	}
	bad := append([]byte(nil), b...)
	for i := int(root)*16384 + 100; i < int(root+1)*16384-100; i++ {
		bad[i] ^= 0x5a
	}
	p := filepath.Join(t.TempDir(), File)
	if err := os.WriteFile(p, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(p); err == nil || !strings.Contains(err.Error(), "tablespaces") {
		t.Errorf("root page %d of mysql.tablespaces damaged: %v", root, err)
	}
	if err := os.WriteFile(p, b[:len(b)/64], 0o644); err != nil {
		t.Fatal(err)
	}
	if d, err := Read(p); err == nil {
		t.Errorf("mysql.ibd cut to %d bytes: read %d tablespaces, no error", len(b)/64, len(d.Tablespaces))
	}
}

// TestReadInitializingMySQLIbd: the real mysql.ibd of fixtures/mysql8020-init (MySQL 8.0.20,
// copied while --initialize extended it: page 0 alone, no SDI root yet) is refused with the
// reason, not read as an empty dictionary.
func TestReadInitializingMySQLIbd(t *testing.T) {
	dir := lab.UnpackFixture(t, "mysql8020-init", "initializing.tar.gz")
	d, err := Read(filepath.Join(dir, "mysql", "mysql.ibd"))
	if err == nil || d != nil {
		t.Fatalf("Read: %v, %v; want an error", d, err)
	}
	if !strings.Contains(err.Error(), "root page 0") {
		t.Errorf("Read: %v; want it to say the SDI has no root page", err)
	}
}
