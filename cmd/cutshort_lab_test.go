package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"innoscope/replay"
)

// TestCutShortFile (issue 29, item 6): a table file of a real crash cut short (truncate(1)),
// shorter than the FSP_SIZE on its page 0. Where recovery must read pages beyond where the
// server finds the end (whole extents), the server refuses to start, "Unable to apply log to
// corrupted page N"; diagnose reports TRUNCATED_FILE naming that page N (before: 0 errors),
// recover refuses naming the file and the salvage (before: it replayed the records onto zero
// pages and said nothing), and `recover --salvage` quarantines the file, giving a copy on which
// the server starts without crash recovery and every other table has the CHECKSUM TABLE of its
// own recovery. Where the pages recovery reads all lie before that end, the server recovers the
// directory and passes CHECK TABLE, and diagnose reports no error.
func TestCutShortFile(t *testing.T) {
	for _, c := range []struct {
		scenario, file string
		pages          int64
	}{
		{"wrapped", "db/t.ibd", 200},
		{"wrapped", "db/t.ibd", 400},
		{"undo", "db/big.ibd", 500},
	} {
		t.Run(fmt.Sprintf("%s_%d", c.scenario, c.pages), func(t *testing.T) {
			d := damage(t, c.scenario, func(t *testing.T, dir string) {
				if err := os.Truncate(filepath.Join(dir, c.file), c.pages*16384); err != nil {
					t.Fatal(err)
				}
			})
			j, code := d.diagnose(t)
			var found []string
			for _, f := range j.Findings {
				if f.Code == "TRUNCATED_FILE" {
					found = append(found, f.Message)
				}
			}
			m := regexp.MustCompile(`Unable to apply log to corrupted page (\d+) in file \./` + regexp.QuoteMeta(c.file)).FindStringSubmatch(d.errLog)
			if d.server.Started {
				if len(found) > 0 || code != ExitClean || !d.server.TablesOK {
					t.Errorf("the server recovered the directory (tables ok: %v); diagnose: exit %d, %q", d.server.TablesOK, code, found)
				}
				return
			}
			if m == nil {
				t.Fatalf("the server refused to start, but not for a page of %s", c.file)
			}
			if len(found) != 1 || !strings.Contains(found[0], fmt.Sprintf("corrupted page %s in file ./%s", m[1], c.file)) {
				t.Errorf("the server refused at page %s; diagnose: %q", m[1], found)
			}
			if out, _, _ := run("diagnose", d.dir); !strings.HasPrefix(out, "mariadbd will refuse to start: TRUNCATED_FILE") {
				t.Errorf("verdict %q", strings.SplitN(out, "\n", 2)[0])
			}
			sv := runSalvage(t, d, salvageCase{want: map[string]int{replay.SalvageQuarantined: 1}})
			for _, a := range sv.j.Salvage {
				if !strings.Contains(a.Detail, "page "+m[1]+", beyond the end of the file") {
					t.Errorf("the quarantine does not say why: %s", a.Detail)
				}
			}
			if strings.Count(strings.TrimSpace(d.s.Checksums(t)), "\n") == 0 { // the cut table alone
				if v := d.s.ServerVerdict(t, sv.copy); !v.Started || v.CrashRecovery {
					t.Errorf("server on the salvaged copy: started=%v crash_recovery=%v", v.Started, v.CrashRecovery)
				}
				return
			}
			judgeCopy(t, d.s, sv, d.s.Checksums(t))
		})
	}
}
