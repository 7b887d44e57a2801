package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/discovery"
	"innoscope/internal/lab"
	"innoscope/logformat/redo"
)

// TestDeferredPagesSameCopy: the copy that leaves out the pages the log changes (the replay
// takes them from Open's pre-flight read or the source, and copies the rest before any file
// operation) is byte for byte the copy made by copying every page and replaying into it, with
// one batch and with many (a batch writes pages that later ones read again), on crashes of the
// real server with DDL, DATA DIRECTORY tables, undo truncation, compressed and 4k pages.
func TestDeferredPagesSameCopy(t *testing.T) {
	for _, name := range []string{"dml", "ddl", "ddl_churn", "data_directory", "undo", "compressed", "compressed_new_4k", "alter_force", "instant"} {
		t.Run(name, func(t *testing.T) {
			s := lab.Get(t, name)
			before := lab.HashTree(t, s.Crashed)
			run := func(into string, cache int64, copyAll bool) *Outcome {
				p, err := Open(discovery.Layout{Datadir: s.Crashed}, redo.ScanOptions{})
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				o, err := p.Run(RunOptions{Target: into, CacheBytes: cache, copyAll: copyAll})
				if err != nil {
					t.Fatal(err)
				}
				return o
			}
			tmp := t.TempDir()
			ref := run(filepath.Join(tmp, "all"), 0, true)
			for _, c := range []struct {
				dir   string
				cache int64
			}{{"deferred", 0}, {"deferred-batches", 1 << 20}} {
				o := run(filepath.Join(tmp, c.dir), c.cache, false)
				if o.Result.PagesApplied != ref.Result.PagesApplied || o.Result.RecordsApplied != ref.Result.RecordsApplied {
					t.Errorf("%s: %d pages, %d records applied; copying every page: %d, %d", c.dir,
						o.Result.PagesApplied, o.Result.RecordsApplied, ref.Result.PagesApplied, ref.Result.RecordsApplied)
				}
				for _, sub := range []string{"", ExternalSuffix} {
					sameTree(t, filepath.Join(tmp, "all")+sub, filepath.Join(tmp, c.dir)+sub)
				}
				t.Logf("%s: %d batches, %d pages applied, same copy", c.dir, o.Result.Batches, o.Result.PagesApplied)
			}
			after := lab.HashTree(t, s.Crashed)
			for p, h := range before {
				if after[p] != h {
					t.Errorf("the source changed: %s", p)
				}
			}
		})
	}
}

// sameTree fails unless the regular files under a and b have the same names and contents
// (.isl files name their copy's own external directory: not compared).
func sameTree(t *testing.T, a, b string) {
	t.Helper()
	if _, err := os.Stat(a); os.IsNotExist(err) {
		if _, err := os.Stat(b); !os.IsNotExist(err) {
			t.Errorf("%s exists, %s does not", b, a)
		}
		return
	}
	ha, hb := lab.HashTree(t, a), lab.HashTree(t, b)
	if len(ha) != len(hb) {
		t.Errorf("%d files in %s, %d in %s", len(ha), a, len(hb), b)
	}
	for p, h := range ha {
		rel, _ := filepath.Rel(a, p)
		if strings.HasSuffix(rel, ".isl") {
			continue
		}
		if g, ok := hb[filepath.Join(b, rel)]; !ok || g[:64] != h[:64] {
			t.Errorf("%s differs from the copy of every page", rel)
		}
	}
}
