package report

import (
	"bufio"
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

var update = flag.Bool("update", false, "rewrite report/testdata/*.golden")

// TestTableDisplayWidth: a table of CJK table names and paths with an emoji, at 80 columns
// (the paths wrapped at a '/') and unlimited, keeps every line of its box the same display width (a CJK
// character and an emoji take two columns; counting runes misaligned every such table), and
// equals its golden file.
func TestTableDisplayWidth(t *testing.T) {
	headers := []string{"TABLE", "FILE", "NOTE"}
	rows := [][]string{
		{"商店.订单", "/srv/mysql/📁 夜间备份/2026-12-04/商店/订单.ibd", "12 pages to apply"},
		{"shop.audit_log", "/srv/mysql/📁 夜间备份/2026-12-04/shop/audit_log.ibd", "-"},
		{"データ.テーブル", "/srv/📁 備份/データ/テーブル.ibd", "ok"},
	}
	var all bytes.Buffer
	for _, width := range []int{80, 0} {
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		o := &Output{w: w, width: width}
		if err := o.Table(headers, rows); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		box := twwidth.Width(lines[0])
		for i, l := range lines {
			if n := twwidth.Width(l); n != box || width > 0 && n > width {
				t.Errorf("width %d: line %d is %d columns, the box %d: %s", width, i+1, n, box, l)
			}
		}
		all.Write(b.Bytes())
	}
	path := filepath.Join("testdata", "table-cjk.golden")
	if *update {
		if err := os.WriteFile(path, all.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, all.Bytes()) {
		t.Errorf("differs from %s (-update rewrites it):\n%s", path, all.String())
	}
}
