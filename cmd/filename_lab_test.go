package cmd

import (
	"os"
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
