package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// TestDefaultsFileWithoutDatadir: Debian's /etc/mysql/my.cnf (two !includedir lines, whose
// 50-server.cnf has "#datadir = /var/lib/mysql" commented out) sets no datadir, and the server
// then uses its built-in one; innoscope said "no data directory: give DIR, --datadir or a
// --defaults-file with datadir". It now reads the server's built-in data directory, the one the
// real mariadbd names for the same my.cnf (`--print-defaults` has no datadir, `--help --verbose`
// prints it), with a note saying so.
func TestDefaultsFileWithoutDatadir(t *testing.T) {
	lab.Require(t)
	d := t.TempDir()
	for name, text := range map[string]string{
		"my.cnf": "[client-server]\nsocket = /run/mysqld/mysqld.sock\n\n!includedir " + filepath.Join(d, "conf.d") + "/\n!includedir " +
			filepath.Join(d, "mariadb.conf.d") + "/\n",
		"conf.d/mysql.cnf":                  "[mysql]\n",
		"mariadb.conf.d/50-server.cnf":      "[server]\n\n[mysqld]\n#user                    = mysql\npid-file                = /run/mysqld/mysqld.pid\nbasedir                 = /usr\n#datadir                 = /var/lib/mysql\n#tmpdir                  = /tmp\nbind-address            = 127.0.0.1\n",
		"mariadb.conf.d/50-client.cnf":      "[client]\ndefault-character-set = utf8mb4\n",
		"mariadb.conf.d/60-galera.cnf":      "[galera]\n#wsrep_on = ON\n",
		"mariadb.conf.d/50-mysqld_safe.cnf": "[mysqld_safe]\nnice = 0\n",
	} {
		p := filepath.Join(d, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cnf := filepath.Join(d, "my.cnf")
	out, err := exec.Command("mariadbd", "--defaults-file="+cnf, "--print-defaults").Output()
	if err != nil || strings.Contains(string(out), "--datadir") {
		t.Fatalf("mariadbd --print-defaults: %v\n%s (the case needs a my.cnf without datadir)", err, out)
	}
	help, err := exec.Command("mariadbd", "--defaults-file="+cnf, "--help", "--verbose").Output()
	if err != nil {
		t.Fatalf("mariadbd --help --verbose: %v", err)
	}
	want := ""
	for _, l := range strings.Split(string(help), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "datadir" {
			want = filepath.Clean(f[1])
		}
	}
	if want == "" {
		t.Fatalf("mariadbd --help --verbose names no datadir")
	}
	t.Logf("the server's built-in datadir: %s", want)
	out2, errs, code := run("spaces", "--json", "--defaults-file", cnf)
	var j []struct {
		Path string `json:"path"`
	}
	switch {
	case code == ExitError && strings.Contains(errs, want):
		t.Logf("spaces: exit 2 naming %s: %s", want, errs) // no (readable) data directory there on this machine
	case code == ExitError:
		t.Errorf("spaces --defaults-file (no datadir): exit 2 without naming %s: %s", want, errs)
	case json.Unmarshal([]byte(out2), &j) != nil || len(j) == 0 || !strings.HasPrefix(j[0].Path, want+"/"):
		t.Errorf("spaces --defaults-file (no datadir): exit %d, not the tablespaces of %s:\n%s", code, want, out2)
	}
	if !strings.Contains(errs, "no datadir") || !strings.Contains(errs, want) {
		t.Errorf("no note that the server's built-in datadir %s is read: %q", want, errs)
	}
}

// TestDiagnoseJSONVerdict: `diagnose --json` carried the findings but not the verdict sentence
// its table output starts with, so a script had to judge the findings itself. It now carries
// it (verdict: sentence, severity, code, count), equal to the table's first line, and the
// document validates against schemas/diagnose.schema.json. On real crashes: dml (the server
// starts and recovers; the sentence quotes its "To recover" count) and ddl with db/keep.ibd,
// which the log changes, removed (a refusal: MISSING_FILE).
func TestDiagnoseJSONVerdict(t *testing.T) {
	schema := compileSchema(t)
	for _, name := range []string{"dml", "ddl_missing"} {
		t.Run(name, func(t *testing.T) {
			s := lab.Get(t, strings.TrimSuffix(name, "_missing"))
			where, _ := splitOptions(s.Options)
			dir := s.Crashed
			if name == "ddl_missing" {
				dir = filepath.Join(t.TempDir(), "data")
				lab.CopyDir(t, s.Crashed, dir)
				if err := os.Remove(filepath.Join(dir, "db", "keep.ibd")); err != nil {
					t.Fatal(err)
				}
			}
			table, _, tcode := run(append([]string{"diagnose", dir}, where...)...)
			out, errs, code := run(append([]string{"diagnose", "--json", dir}, where...)...)
			var doc map[string]any
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("exit %d: %v\n%s", code, err, errs)
			}
			if err := schema.Validate(doc); err != nil {
				t.Errorf("JSON does not match the schema: %v", err)
			}
			v, _ := doc["verdict"].(map[string]any)
			sentence, _ := v["sentence"].(string)
			if first := strings.SplitN(table, "\n", 2)[0]; sentence == "" || sentence != first || code != tcode {
				t.Errorf("verdict %q (exit %d); the table's first line %q (exit %d)", sentence, code, first, tcode)
			}
			if name == "dml" && s.Verdict.ToRecoverPages > 0 && !strings.Contains(sentence, fmt.Sprintf("apply %d pages", s.Verdict.ToRecoverPages)) {
				t.Errorf("verdict %q; the server said To recover: %d pages", sentence, s.Verdict.ToRecoverPages)
			}
			t.Logf("%s: %s", name, sentence)
		})
	}
}

// TestLogOnlyDirectory: a directory holding only a redo log (the bundled fixture, or the
// ib_logfile0 of a real crash copied alone) was diagnosed as a data directory that lost every
// file: "mariadbd will refuse to start: MISSING_FILE in 3 files and 2 other errors". It is now
// LOG_ONLY: the verdict says that only a log was given and what cannot be said, the log's own
// findings stay (its checkpoint and end are the server's), nothing is said of files; recover,
// verify, rows and spaces refuse (exit 2) with the commands that do read a log.
func TestLogOnlyDirectory(t *testing.T) {
	fixture := filepath.Join(lab.Root(), "fixtures", "mariadb-10.11-crash")
	fv, err := lab.ReadVerdict(filepath.Join(fixture, "server-verdict.txt"))
	if err != nil {
		t.Fatal(err)
	}
	s := lab.Get(t, "dml")
	alone := filepath.Join(t.TempDir(), "logonly")
	if err := os.Mkdir(alone, 0o755); err != nil {
		t.Fatal(err)
	}
	cp(t, filepath.Join(s.Crashed, "ib_logfile0"), filepath.Join(alone, "ib_logfile0"))
	var full diagnoseJSON
	runJSON(t, &full, "diagnose", "--json", s.Crashed)
	for _, c := range []struct {
		name, dir string
		server    lab.Verdict
		pages     int // pages with records, from the diagnosis of the whole directory (-1: unknown)
	}{{"fixture", fixture, fv, -1}, {"dml_log_alone", alone, s.Verdict, full.PagesWithRecords}} {
		t.Run(c.name, func(t *testing.T) {
			before := lab.HashTree(t, c.dir)
			out, errs, code := run("diagnose", "--json", c.dir)
			var j diagnoseJSON
			if err := json.Unmarshal([]byte(out), &j); err != nil {
				t.Fatalf("exit %d: %v\n%s", code, err, errs)
			}
			if j.Verdict.Code != "LOG_ONLY" || !strings.HasPrefix(j.Verdict.Sentence, "only a redo log was given") || code != ExitClean {
				t.Errorf("verdict %+v, exit %d; want LOG_ONLY, exit 0", j.Verdict, code)
			}
			for _, f := range j.Findings {
				if f.Code != "LOG_ONLY" && f.File != filepath.Join(c.dir, "ib_logfile0") {
					t.Errorf("a finding on something else than the log: %s %s %s", f.Code, f.File, f.Message)
				}
				if f.Code == "LOG_ONLY" && !strings.Contains(f.Message, "cannot") {
					t.Errorf("LOG_ONLY does not say what cannot be said: %s", f.Message)
				}
			}
			if j.CheckpointLSN != c.server.CheckpointLSN || j.EndLSN != c.server.EndLSN || c.pages >= 0 && j.PagesWithRecords != c.pages {
				t.Errorf("checkpoint %d, end %d, %d pages with records; the server: checkpoint %d, end %d; the whole directory: %d pages",
					j.CheckpointLSN, j.EndLSN, j.PagesWithRecords, c.server.CheckpointLSN, c.server.EndLSN, c.pages)
			}
			table, _, _ := run("diagnose", c.dir)
			t.Logf("%s", table)
			for _, args := range [][]string{
				{"recover", c.dir, "--into", filepath.Join(t.TempDir(), "copy")},
				{"verify", c.dir},
				{"rows", c.dir, "db.t1"},
				{"spaces", c.dir},
			} {
				if out, errs, code := run(args...); code != ExitError || !strings.Contains(errs, "only a redo log") || !strings.Contains(errs, "innoscope diagnose") {
					t.Errorf("%v: exit %d, %q%s; want exit 2 saying only a log was given, and what reads it", args, code, errs, out)
				}
			}
			if !mapsEqual(before, lab.HashTree(t, c.dir)) {
				t.Error("the directory changed")
			}
		})
	}
}
