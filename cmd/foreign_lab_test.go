package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/internal/lab"
	"innoscope/replay"
)

// TestSalvageForeignFile (issue 29, item 5): the dml crash's db/t1.ibd (space 5) removed and
// another server's table file with the same space id put beside it (the lab's clean and
// formats_default servers: db/t.ibd of 9 pages, db/dyn.ibd of 704). Before, `recover --salvage`
// relocated it ("nothing lost", exit 0) and the copy held the other server's rows. The real
// server given that file at t1's name recovers a table whose CHECKSUM TABLE is not its own
// recovery's; the salvage now refuses (exit 2) naming the file and what the log says against
// it, writing nothing. The dml crash's own t1.ibd renamed by hand stays relocated (exit 0), the
// pages the log proves its own named in the detail.
func TestSalvageForeignFile(t *testing.T) {
	s := lab.Get(t, "dml")
	for _, c := range []struct{ scenario, file string }{{"clean", "db/t.ibd"}, {"formats_default", "db/dyn.ibd"}} {
		t.Run(c.scenario, func(t *testing.T) {
			other := lab.Get(t, c.scenario)
			foreign := filepath.Join(other.Crashed, c.file)
			d := damage(t, "dml", func(t *testing.T, dir string) {
				os.Remove(filepath.Join(dir, "db/t1.ibd"))
				cp(t, foreign, filepath.Join(dir, "db/t1_foreign.ibd"))
			})
			// What a relocation gives: the server on the foreign file at t1's name.
			srv := filepath.Join(d.base, "relocated-by-hand")
			lab.CopyDir(t, d.dir, srv)
			mv(t, filepath.Join(srv, "db/t1_foreign.ibd"), filepath.Join(srv, "db/t1.ibd"))
			v := s.ServerVerdict(t, srv)
			want, got := tabbed(s.Checksums(t)), tabbed(v.Checksums)
			if v.Started && got["db.t1"] == want["db.t1"] {
				t.Fatalf("the server on the foreign file gives db.t1 its own recovery's checksum: the file is not foreign")
			}
			t.Logf("the server on the foreign file at t1's name: started %v, db.t1 checksum %q, its own recovery's %q", v.Started, got["db.t1"], want["db.t1"])
			before := lab.HashTree(t, d.dir)
			copyDir := filepath.Join(d.base, "copy")
			out, errs, code := run("recover", "--salvage", d.dir, "--into", copyDir)
			if code != ExitError || !strings.Contains(errs, "t1_foreign.ibd is not the log's tablespace 5") {
				t.Errorf("recover --salvage: exit %d (want 2 naming the foreign file)\n%s%s", code, out, errs)
			}
			if _, err := os.Stat(copyDir); err == nil {
				t.Error("the refused salvage created the copy")
			}
			if !mapsEqual(before, lab.HashTree(t, d.dir)) {
				t.Error("the source changed")
			}
			t.Logf("salvage: %s", strings.TrimSpace(errs))
		})
	}
	t.Run("own file renamed", func(t *testing.T) {
		d := damage(t, "dml", func(t *testing.T, dir string) {
			mv(t, filepath.Join(dir, "db/t1.ibd"), filepath.Join(dir, "db/t1_old.ibd"))
		})
		var j recoverJSON
		out, errs, code := run("recover", "--json", "--salvage", d.dir, "--into", filepath.Join(d.base, "copy"))
		if err := jsonUnmarshalString(out, &j); err != nil || code != ExitClean || len(j.Salvage) != 1 || j.Salvage[0].Action != replay.SalvageRelocated ||
			!strings.Contains(j.Salvage[0].Detail, "it is the log's file") {
			t.Fatalf("recover --salvage: exit %d, %+v: %v\n%s", code, j.Salvage, err, errs)
		}
		t.Logf("salvage: %s", j.Salvage[0].Detail)
	})
}
