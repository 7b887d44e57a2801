package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"innoscope/replay"
)

// TestRecoverNamesFailingTables: on a real directory the server starts on but where a table
// will fail (formats_default with one, then two, table files deleted: diagnose's "tables will
// fail: MISSING_FILE"), recover makes the copy, says what the server will meet on it (the
// verdict, the findings, the tables it will not open, by name and why) and exits 1 by
// --fail-on's default as diagnose does (0 with --fail-on none); its dry run exits as diagnose
// does. The real server started on the copy fails CHECK TABLE on exactly the tables recover
// named, and on no other.
func TestRecoverNamesFailingTables(t *testing.T) {
	for _, n := range []int{1, 2} {
		t.Run(map[int]string{1: "one", 2: "two"}[n], func(t *testing.T) {
			var deleted []string
			d := damage(t, "formats_default", func(t *testing.T, dir string) {
				ibds, _ := filepath.Glob(filepath.Join(dir, "db", "*.ibd"))
				sort.Strings(ibds)
				if len(ibds) < n {
					t.Fatalf("%d table files in db/", len(ibds))
				}
				for _, f := range ibds[len(ibds)-n:] {
					if err := os.Remove(f); err != nil {
						t.Fatal(err)
					}
					deleted = append(deleted, filepath.Base(f))
				}
			})
			t.Logf("deleted %v", deleted)
			if !d.server.Started || d.server.TablesOK {
				t.Fatalf("server on the mutated directory: started=%v tables_ok=%v; want a start with failing tables", d.server.Started, d.server.TablesOK)
			}
			diag, _, dcode := run("diagnose", d.dir)
			if dcode != ExitFindings || !strings.HasPrefix(diag, "mariadbd will start, but tables will fail") {
				t.Fatalf("diagnose: exit %d\n%s", dcode, diag)
			}

			// The dry run's exit status follows --fail-on as diagnose's does.
			for failOn, want := range map[string]int{"error": ExitFindings, "none": ExitClean, "info": ExitFindings} {
				if _, errs, code := run("recover", "--dry-run", "--fail-on", failOn, d.dir); code != want {
					t.Errorf("recover --dry-run --fail-on %s: exit %d, want %d\n%s", failOn, code, want, errs)
				}
				if _, _, code := run("diagnose", "--fail-on", failOn, d.dir); code != want {
					t.Errorf("diagnose --fail-on %s: exit %d, want %d", failOn, code, want)
				}
			}
			dry, _, _ := run("recover", "--dry-run", "--json", d.dir)
			var dj recoverJSON
			if err := json.Unmarshal([]byte(dry), &dj); err != nil || len(dj.Findings) == 0 {
				t.Errorf("recover --dry-run --json: %v, findings %v: the findings its exit status is judged by are missing", err, dj.Findings)
			}

			copyDir := filepath.Join(d.base, "copy")
			out, errs, code := run("recover", "--json", d.dir, "--into", copyDir)
			var j recoverJSON
			if err := json.Unmarshal([]byte(out), &j); err != nil {
				t.Fatalf("recover --json: exit %d: %v\n%s", code, err, errs)
			}
			if code != ExitFindings {
				t.Errorf("recover: exit %d, want %d (an error finding on the copy, --fail-on error)", code, ExitFindings)
			}
			if j.OnCopy == nil {
				t.Fatalf("recover --json: no copy_diagnosis\n%s", out)
			}
			t.Logf("on the copy: %s", j.OnCopy.Verdict.Sentence)
			named := map[string]string{}
			for _, ft := range j.OnCopy.FailingTables {
				named[ft.Table] = ft.Code
				if ft.Code != "MISSING_FILE" || !strings.HasPrefix(ft.File, copyDir+string(filepath.Separator)) {
					t.Errorf("failing table %+v: want MISSING_FILE naming the copy's file", ft)
				}
			}
			if !strings.HasPrefix(j.OnCopy.Verdict.Sentence, "mariadbd will start, but tables will fail: MISSING_FILE") {
				t.Errorf("copy's verdict %q", j.OnCopy.Verdict.Sentence)
			}

			// The table form names them too, and --fail-on none makes the same recovery exit 0.
			tab, _, tcode := run("recover", d.dir, "--into", copyDir+"-table")
			if tcode != ExitFindings || !strings.Contains(tab, "on the copy, mariadbd will start, but tables will fail: MISSING_FILE") {
				t.Errorf("recover (table): exit %d\n%s", tcode, tab)
			}
			for tbl, c := range named {
				if !strings.Contains(tab, tbl+" ("+c+")") {
					t.Errorf("recover (table) does not name %s (%s):\n%s", tbl, c, tab)
				}
			}
			if _, errs, code := run("recover", "--fail-on", "none", d.dir, "--into", copyDir+"-none"); code != ExitClean {
				t.Errorf("recover --fail-on none: exit %d\n%s", code, errs)
			}
			for _, c := range []string{copyDir + "-table", copyDir + "-none"} {
				os.RemoveAll(c)
				os.RemoveAll(c + replay.ExternalSuffix)
			}

			// The real server on the copy: the tables failing CHECK TABLE are those named.
			v := d.s.ServerVerdict(t, copyDir)
			t.Logf("server on the copy: started=%v crash_recovery=%v errors=%d\n%s", v.Started, v.CrashRecovery, v.Errors, strings.TrimSpace(v.Checks))
			if !v.Started || v.CrashRecovery {
				t.Fatalf("server on the copy: started=%v crash_recovery=%v", v.Started, v.CrashRecovery)
			}
			failed := map[string]bool{}
			for _, l := range strings.Split(strings.TrimSpace(v.Checks), "\n") {
				tbl, verdict, _ := strings.Cut(l, "\t")
				if verdict != "OK" {
					failed[tbl] = true
				}
			}
			got := map[string]bool{}
			for tbl := range named {
				got[tbl] = true
			}
			if len(failed) != n || !reflect.DeepEqual(got, failed) {
				t.Errorf("recover named %v; the server fails CHECK TABLE on %v (%d files deleted)", named, failed, n)
			}
			// and its error log names each table's file.
			b, _ := os.ReadFile(v.ErrLog)
			for tbl := range failed {
				if !strings.Contains(string(b), strings.ReplaceAll(tbl, ".", "/")) {
					t.Errorf("the server's error log does not name %s", tbl)
				}
			}
		})
	}
}
