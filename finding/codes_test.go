package finding

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// codeLiteral is a code as the sources raise it: Code: "X", or a call passing "X" where a
// finding is made (fail("X", ...), finding("X", ...)).
var codeLiteral = regexp.MustCompile(`(?:Code:\s*|\bfail\(|Finding\()"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"`)

// TestCodes: every code a source file raises is in Codes, and every code of Codes is named in
// the README.
func TestCodes(t *testing.T) {
	root := filepath.Join("..")
	raised := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range codeLiteral.FindAllStringSubmatch(string(b), -1) {
			raised[m[1]] = p
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(raised) < 20 {
		t.Fatalf("found only %d codes raised in the sources: the pattern is stale", len(raised))
	}
	for c, p := range raised {
		if _, ok := Codes[c]; !ok {
			t.Errorf("%s raises %s, which is not in finding.Codes", p, c)
		}
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for c := range Codes {
		if !strings.Contains(string(readme), c) && !strings.HasPrefix(c, "SALVAGE_") {
			t.Errorf("%s is in finding.Codes but the README does not name it", c)
		}
	}
}
