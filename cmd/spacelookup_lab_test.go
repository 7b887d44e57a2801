package cmd

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/internal/lab"
)

// TestSpaceLookupAgainstServer asks `spaces --space N` for every tablespace the live server
// listed just before the crash (INNODB_SYS_TABLESPACES: id, name, file): the answer on the
// crashed directory names the same table and the same file, whatever its page 0 says (files
// created after the checkpoint have an all-zero page 0: their id is unknown there, and the
// answer gives the id the log gives them).
func TestSpaceLookupAgainstServer(t *testing.T) {
	for _, name := range []string{"ddl_churn", "data_directory", "dml"} {
		t.Run(name, func(t *testing.T) {
			s := lab.Get(t, name)
			where, _ := splitOptions(s.Options)
			b, err := os.ReadFile(filepath.Join(s.Dir, "sys_tablespaces.tsv"))
			if err != nil {
				t.Fatal(err)
			}
			blanks := 0
			for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				f := strings.Split(line, "\t")
				id, err := strconv.ParseUint(f[0], 10, 32)
				if err != nil || len(f) < 5 || id == 0 || f[1] == "innodb_temporary" || strings.HasPrefix(f[1], "innodb_undo") {
					continue
				}
				var a analysis.SpaceAnswer
				runJSON(t, &a, append([]string{"spaces", s.Crashed, "--json", "--space", f[0]}, where...)...)
				if want := strings.ReplaceAll(f[1], "/", "."); a.Table != want {
					t.Errorf("space %d: table %q, the server had %q", id, a.Table, want)
				}
				file := f[4]
				if !filepath.IsAbs(file) {
					file = filepath.Join(s.Crashed, file)
				}
				if discovery.ResolvePath(a.File) != discovery.ResolvePath(file) {
					t.Errorf("space %d: file %s, the server had %s", id, a.File, file)
				}
				for _, p := range a.Page0 {
					if p.Page0ID == nil {
						blanks++
						if p.LogID == nil || *p.LogID != uint32(id) {
							t.Errorf("space %d: %s has a blank page 0 and the log gives it %v", id, p.Path, p.LogID)
						}
					}
				}
			}
			t.Logf("%s: %d files with an all-zero page 0", name, blanks)
		})
	}
}

// TestPagesRefusesFrm: `pages` on a .frm the server wrote is one line, exit 2.
func TestPagesRefusesFrm(t *testing.T) {
	s := lab.Get(t, "dml")
	frms, _ := filepath.Glob(filepath.Join(s.Crashed, "*", "*.frm"))
	if len(frms) == 0 {
		t.Fatal("no .frm in the dml scenario")
	}
	out, errs, code := run("pages", "--verify", frms[0])
	if code != ExitError || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, ".frm") {
		t.Errorf("exit %d\nstdout %q\nstderr %q", code, out, errs)
	}
}
