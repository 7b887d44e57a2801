package discovery

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPlacesOverlap: a directory is judged against the source's places by identity: through a
// symbolic link to the source or to a directory in it, a not yet existing directory by its
// deepest existing ancestor, the directory above the source as holding it; a hard link of a
// source file is the source's file.
func TestPlacesOverlap(t *testing.T) {
	base := t.TempDir()
	src := filepath.Join(base, "up", "S")
	os.MkdirAll(filepath.Join(src, "db"), 0o755)
	os.WriteFile(filepath.Join(src, "db", "t.ibd"), []byte("x"), 0o644)
	os.Symlink(src, filepath.Join(base, "link"))
	os.Symlink(filepath.Join(src, "db"), filepath.Join(base, "dblink"))
	os.Link(filepath.Join(src, "db", "t.ibd"), filepath.Join(base, "hard.html"))
	logs := filepath.Join(base, "logs")
	os.Mkdir(logs, 0o755)
	os.Symlink(logs, filepath.Join(base, "loglink"))
	p := SourcePlaces(Layout{Datadir: src, LogDir: logs})
	if place, how, _ := p.Overlap(filepath.Join(base, "loglink", "copy")); place != logs || how != "is inside" {
		t.Errorf("Overlap of a directory in the log directory through a link: %q %q", place, how)
	}
	for dir, want := range map[string]string{
		src: "is", filepath.Join(base, "link"): "is", filepath.Join(base, "link", "new", "copy"): "is inside",
		filepath.Join(base, "dblink", "copy"): "is inside", filepath.Join(base, "up"): "holds", base: "holds",
		filepath.Join(base, "elsewhere"): "", filepath.Join(base, "up", "S2"): "",
	} {
		place, how, err := p.Overlap(dir)
		if err != nil || how != want || (want != "" && place != src) {
			t.Errorf("Overlap(%s) = %q %q %v, want %q", dir, place, how, err, want)
		}
	}
	if f, err := p.SameFile(filepath.Join(base, "hard.html")); err != nil || f != filepath.Join(src, "db", "t.ibd") {
		t.Errorf("SameFile of a hard link = %q %v", f, err)
	}
	for _, c := range []struct {
		inner, outer string
		want         bool
	}{{filepath.Join(base, "new", "a"), filepath.Join(base, "new"), true}, {filepath.Join(base, "new"), filepath.Join(base, "new", "a"), false},
		{filepath.Join(base, "newer"), filepath.Join(base, "new"), false}, {filepath.Join(base, "link", "x"), src, true}} {
		if got := SameOrWithin(c.inner, c.outer); got != c.want {
			t.Errorf("SameOrWithin(%s, %s) = %v", c.inner, c.outer, got)
		}
	}
}
