package rows

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"innoscope/discovery"
)

// TestParFile: the .par files MariaDB 10.11 wrote for PARTITION BY RANGE (pz, `p-a`, p10, p2)
// and for two partitions of two subpartitions each give their names in definition order
// (encoded as in SYS_TABLES); a truncated file gives none.
func TestParFile(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		hex  string
		want []string
	}{
		{"0a00000047173c4e040000000c0c0c0c12000000707a00704030303264610070313000703200000000000000000000000000000000000000",
			[]string{"pz", "p@002da", "p10", "p2"}},
		{"11000000290c0c0c040000000c0c0c0c300000007030235350237030737030007030235350237030737031007031235350237031737030007031235350237031737031000000000000000000",
			[]string{"p0#SP#p0sp0", "p0#SP#p0sp1", "p1#SP#p1sp0", "p1#SP#p1sp1"}},
	} {
		b, err := hex.DecodeString(c.hex)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "t.par")
		for _, n := range []int{len(b), 24} {
			os.WriteFile(p, b[:n], 0o644)
			got := parFile(p)
			if n == len(b) && !reflect.DeepEqual(got, c.want) || n < len(b) && got != nil {
				t.Errorf("parFile of %d of %d bytes: %q, want %q", n, len(b), got, c.want)
			}
		}
	}
}

// TestKeyField: SYS_FIELDS.POS as MariaDB 10.11 wrote it for PRIMARY KEY (a DESC, b) (0x8000,
// 0x10000), KEY (v(3) DESC) in utf8mb4 (0x800c), and a narrow-form second field (1).
func TestKeyField(t *testing.T) {
	for _, c := range []struct {
		pos    uint32
		first  bool
		prefix int
		desc   bool
	}{{0x8000, true, 0, true}, {0x10000, false, 0, false}, {0x800c, true, 12, true}, {0x1800c, false, 12, true}, {1, false, 0, false}, {0, true, 0, false}} {
		if p, d := keyField(discovery.DictField{Pos: c.pos}, c.first); p != c.prefix || d != c.desc {
			t.Errorf("POS %#x (first %v): prefix %d, DESC %v; want %d, %v", c.pos, c.first, p, d, c.prefix, c.desc)
		}
	}
}
