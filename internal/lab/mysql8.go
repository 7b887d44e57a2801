package lab

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// MySQL8Fixture unpacks fixtures/mysql8dd/crashed.tar.gz (a MySQL 9.7.4 directory killed after
// DDL: see its README) into a temporary directory: data/, ext/, undo/ side by side.
func MySQL8Fixture(t testing.TB) string {
	t.Helper()
	return UnpackFixture(t, "mysql8dd", "crashed.tar.gz")
}

// UnpackFixture unpacks the tar.gz fixtures/DIR/NAME into a temporary directory, its path.
func UnpackFixture(t testing.TB, dir, name string) string {
	t.Helper()
	f, err := os.Open(filepath.Join(Root(), "fixtures", dir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(out, filepath.Clean(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(p, 0o755)
		case tar.TypeReg:
			if err = os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				break
			}
			var w *os.File
			if w, err = os.Create(p); err == nil {
				_, err = io.Copy(w, tr)
				w.Close()
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// MySQL8Oracle reads a table that server printed with --batch (fixtures/mysql8dd/oracle/NAME):
// its rows, less the header.
func MySQL8Oracle(t testing.TB, name string) [][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Root(), "fixtures", "mysql8dd", "oracle", name))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		out = append(out, strings.Split(l, "\t"))
	}
	return out
}
