package cmd

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/internal/lab"
	"innoscope/logformat"
	"innoscope/replay"
)

// mutation is a file operation on a copy of a real crashed directory, and the finding codes
// (with their severities) innoscope must report for it.
type mutation struct {
	name     string
	scenario string
	extra    []string // extra options for both innoscope and the server
	mutate   func(t *testing.T, s *lab.Scenario, dir string)
	want     map[string]string // code → severity
	exact    bool              // want lists every finding code
}

func mv(t *testing.T, from, to string) {
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

func cp(t *testing.T, from, to string) {
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// fileSpaceID is the space id page 0 of the datafile p carries (db/t1 is space 5 on 10.11, 8
// on 11.8 with its three undo tablespaces).
func fileSpaceID(t *testing.T, p string) uint32 {
	t.Helper()
	f, err := discovery.OpenFile(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return f.FSP.SpaceID
}

// flipNeededPage corrupts (300 bytes flipped) a page that recovery must read (no INIT_PAGE
// rebuilds it), that exists in the file and that the doublewrite buffer holds no copy of (the
// server would restore it), in db/t1.ibd or else db/t2.ibd of dir. Which pages those are
// depends on the crash: when neither file has one, the test is skipped.
func flipNeededPage(t *testing.T, dir string) {
	t.Helper()
	needed := neededPages(t, dir)
	copies := doublewriteCopies(t, dir)
	for _, name := range []string{"db/t1.ibd", "db/t2.ibd"} {
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		space := fileSpaceID(t, p)
		for id, read := range needed {
			if id.Space == space && read && id.Page > 2 && int64(id.Page) < fi.Size()/16384 && len(copies[[2]uint32{space, id.Page}]) == 0 {
				flip(t, p, 16384, int64(id.Page), 300)
				return
			}
		}
	}
	t.Skip("on this crash recovery reads no page of db/t1.ibd or db/t2.ibd that the file holds and the doublewrite buffer lacks: nothing to corrupt")
}

// doublewriteCopies are the pages the doublewrite buffer of dir's ibdata1 holds copies of.
func doublewriteCopies(t *testing.T, dir string) map[[2]uint32][]discovery.DoublewriteCopy {
	t.Helper()
	sys, err := discovery.OpenFile(filepath.Join(dir, "ibdata1"))
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Close()
	copies, err := discovery.DoublewriteCopies(sys)
	if err != nil {
		t.Fatal(err)
	}
	return copies
}

// doublewritePage finds a page of space in dir's db/t.ibd that recovery must read and of
// which the doublewrite buffer holds a valid copy: one that crash recovery uses (written
// between the checkpoint and the end of the log: discovery.DoublewriteCopy.Usable) when usable,
// else one whose only valid copies are older than the checkpoint, which the server ignores.
// The lowest such page, so that a lab gives the same page every run; skipped when there is none.
func doublewritePage(t *testing.T, dir string, space uint32, usable bool) uint32 {
	copies := doublewriteCopies(t, dir)
	fi, _ := os.Stat(filepath.Join(dir, "db/t.ibd"))
	needed, from, to := neededPagesRange(t, dir)
	fl, _ := discovery.DecodeFlags(0x15)
	best, found := uint32(0), false
	for k, cs := range copies {
		if k[0] != space || k[1] < 3 || int64(k[1]) >= fi.Size()/16384 || !needed[analysis.PageID{Space: space, Page: k[1]}] || (found && k[1] >= best) {
			continue
		}
		valid, used := false, false
		for _, c := range cs {
			if !discovery.CheckPage(c.Image, fl, k[1], space).Corrupt {
				valid = true
				used = used || c.Usable(from, to)
			}
		}
		if valid && used == usable {
			best, found = k[1], true
		}
	}
	if !found {
		t.Skipf("on this crash no page of space %d is both needed by recovery and in the doublewrite buffer (usable by recovery: %v)", space, usable)
	}
	return best
}

func neededPages(t *testing.T, dir string) map[analysis.PageID]bool {
	needed, _, _ := neededPagesRange(t, dir)
	return needed
}

// neededPagesRange are the pages crash recovery of dir touches (true: it reads them), the
// checkpoint LSN and the end of the log.
func neededPagesRange(t *testing.T, dir string) (map[analysis.PageID]bool, uint64, uint64) {
	f, err := os.Open(filepath.Join(dir, "ib_logfile0"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	l, _, err := logformat.Open(f, fi.Size(), "ib_logfile0")
	if err != nil {
		t.Fatal(err)
	}
	cp, _ := l.Checkpoint()
	a, err := analysis.Analyze(l.Scan(cp.LSN, logformat.ScanOptions{}), 0, cp.LSN)
	if err != nil {
		t.Fatal(err)
	}
	return a.Pages, cp.LSN, a.Map.EndLSN
}

func flip(t *testing.T, path string, pageSize, page, at int64) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[page*pageSize+at] ^= 0x5a
	os.WriteFile(path, b, 0o644)
}

var mutations = []mutation{
	{name: "healthy crash", scenario: "dml", exact: true, want: map[string]string{"UNCLEAN_SHUTDOWN": "info"}},
	{name: "healthy ddl crash", scenario: "ddl", exact: true, want: map[string]string{"UNCLEAN_SHUTDOWN": "info"}},
	{name: "healthy alter crash", scenario: "alter_force", exact: true, want: map[string]string{"UNCLEAN_SHUTDOWN": "info"}},
	{name: "clean shutdown", scenario: "formats_default", want: map[string]string{}},
	// Renames, exchanges, copying ALTERs, repartitioning, DROP+CREATE, stale .isl files, a
	// copying ALTER cut by the crash: the server recovers it with every table usable. The test's
	// copy of the crash names the scenario's DATA DIRECTORY files: WRITES_OUTSIDE.
	{name: "healthy ddl churn crash", scenario: "ddl_churn", exact: true,
		want: map[string]string{"UNCLEAN_SHUTDOWN": "info", "STALE_ISL": "info", "UNPROTECTED_LOCATION": "info", "DDL_RECOVERY": "info", "WRITES_OUTSIDE": "warning"}},
	{name: "swapped .ibd files", scenario: "dml", want: map[string]string{"SPACE_ID_MISMATCH": "error"},
		mutate: func(t *testing.T, s *lab.Scenario, d string) {
			mv(t, filepath.Join(d, "db/t1.ibd"), filepath.Join(d, "tmp.ibd"))
			mv(t, filepath.Join(d, "db/t2.ibd"), filepath.Join(d, "db/t1.ibd"))
			mv(t, filepath.Join(d, "tmp.ibd"), filepath.Join(d, "db/t2.ibd"))
		}},
	{name: "deleted .ibd the log modifies", scenario: "dml", want: map[string]string{"MISSING_FILE": "error"},
		mutate: func(t *testing.T, s *lab.Scenario, d string) { os.Remove(filepath.Join(d, "db/t1.ibd")) }},
	{name: "deleted .ibd only the dictionary lists", scenario: "formats_default", want: map[string]string{"MISSING_FILE": "error"},
		mutate: func(t *testing.T, s *lab.Scenario, d string) { os.Remove(filepath.Join(d, "db/dyn.ibd")) }},
	// A file created an instant before the crash (0 bytes): the server defers it and the log
	// rebuilds every page of it.
	{name: "datafile created at the crash", scenario: "ddl", want: map[string]string{"UNCLEAN_SHUTDOWN": "info"}, exact: true,
		mutate: func(t *testing.T, s *lab.Scenario, d string) { os.Truncate(filepath.Join(d, "db/fresh.ibd"), 0) }},
	{name: "rename logged but not done", scenario: "ddl", want: map[string]string{"PENDING_RENAME": "warning"},
		mutate: func(t *testing.T, s *lab.Scenario, d string) {
			mv(t, filepath.Join(d, "db/new_name.ibd"), filepath.Join(d, "db/old_name.ibd"))
		}},
	{name: "renamed file gone", scenario: "ddl", want: map[string]string{"PENDING_RENAME": "error"},
		mutate: func(t *testing.T, s *lab.Scenario, d string) { os.Remove(filepath.Join(d, "db/new_name.ibd")) }},
	{name: "leftover #sql file", scenario: "dml", want: map[string]string{"ORPHAN_FILE": "warning"},
		mutate: func(t *testing.T, s *lab.Scenario, d string) {
			f := lab.Get(t, "formats_default") // space 9 there; dml has no space 9
			cp(t, filepath.Join(f.Crashed, "db/zip.ibd"), filepath.Join(d, "db/#sql-ib99.ibd"))
		}},
	{name: "copied .ibd over another", scenario: "dml", want: map[string]string{"DUPLICATE_SPACE_ID": "error", "SPACE_ID_MISMATCH": "error"},
		mutate: func(t *testing.T, s *lab.Scenario, d string) {
			cp(t, filepath.Join(d, "db/t1.ibd"), filepath.Join(d, "db/t2.ibd"))
		}},
	// The server writes back the doublewrite buffer's copy of a page from the future, and the
	// log rebuilds others: whether any is left (an error) depends on the crash, which the
	// server judges (stop 39: run r1 of f56c5d3 had none left, a warning).
	{name: "datafile newer than the log", scenario: "dml", want: map[string]string{"FILE_AHEAD_OF_LOG": "any"},
		mutate: func(t *testing.T, s *lab.Scenario, d string) {
			cp(t, filepath.Join(s.Dir, "later/db/t1.ibd"), filepath.Join(d, "db/t1.ibd"))
		}},
	{name: "corrupt page recovery needs", scenario: "dml", want: map[string]string{"CORRUPT_PAGE_NEEDED": "error"},
		mutate: func(t *testing.T, s *lab.Scenario, d string) { flipNeededPage(t, d) }},
	{name: "torn page with a doublewrite copy", scenario: "wrapped", want: map[string]string{"CORRUPT_PAGE_NEEDED": "warning"},
		mutate: func(t *testing.T, s *lab.Scenario, d string) {
			flip(t, filepath.Join(d, "db/t.ibd"), 16384, int64(doublewritePage(t, d, 5, true)), 300)
		}},
	// The server loads only doublewrite copies not older than the checkpoint: a corrupt page
	// whose copy predates it stops the server (stop 39's loaded run picked such a page).
	{name: "corrupt page whose doublewrite copy predates the checkpoint", scenario: "wrapped", want: map[string]string{"CORRUPT_PAGE_NEEDED": "error"},
		mutate: func(t *testing.T, s *lab.Scenario, d string) {
			flip(t, filepath.Join(d, "db/t.ibd"), 16384, int64(doublewritePage(t, d, 5, false)), 300)
		}},
	{name: "corrupt page nobody touches", scenario: "formats_default", want: map[string]string{"CORRUPT_PAGE": "error"},
		mutate: func(t *testing.T, s *lab.Scenario, d string) { flip(t, filepath.Join(d, "db/dyn.ibd"), 16384, 3, 300) }},
	{name: "missing .frm", scenario: "dml", want: map[string]string{"MISSING_FRM": "warning"},
		mutate: func(t *testing.T, s *lab.Scenario, d string) { os.Remove(filepath.Join(d, "db/t2.frm")) }},
	{name: "datafile in the undo directory", scenario: "formats_default", want: map[string]string{"UNDO_DIR_DATAFILE": "warning"},
		extra: []string{"--innodb-undo-directory=UNDO"},
		mutate: func(t *testing.T, s *lab.Scenario, d string) {
			os.Mkdir(filepath.Join(filepath.Dir(d), "undo"), 0o755)
			cp(t, filepath.Join(d, "db/dyn.ibd"), filepath.Join(filepath.Dir(d), "undo", "stray.ibd"))
		}},
}

// diagnoseOn118 are the mutations TestDiagnoseAgainstServer makes on 11.8 crashes too (the
// suite's time budget: each starts the server twice).
var diagnoseOn118 = map[string]bool{"healthy crash": true, "healthy ddl crash": true, "swapped .ibd files": true,
	"corrupt page recovery needs": true}

// TestDiagnoseAgainstServer: for each real crashed directory, as it is or after a file operation
// on a copy, innoscope reports the expected findings, and the real server started on another
// copy agrees: an error finding if and only if it refuses to start or CHECK TABLE fails on some
// table (data is lost or unusable). The JSON validates against schemas/diagnose.schema.json.
func TestDiagnoseAgainstServer(t *testing.T) {
	schema := compileSchema(t)
	forServers(t, func(t *testing.T, srv *lab.Server) {
		for _, m := range mutations {
			if srv == lab.MariaDB118 && !diagnoseOn118[m.name] && os.Getenv("INNOSCOPE_118_ALL") != "1" {
				continue
			}
			t.Run(strings.ReplaceAll(m.name, " ", "_"), func(t *testing.T) {
				s := srv.Get(t, m.scenario)
				base := t.TempDir()
				dir := filepath.Join(base, "data")
				lab.CopyDir(t, s.Crashed, dir)
				if m.mutate != nil {
					m.mutate(t, s, dir)
				}
				var extra []string
				for _, e := range m.extra {
					extra = append(extra, strings.ReplaceAll(e, "UNDO", filepath.Join(base, "undo")))
				}
				before := lab.HashTree(t, dir)
				out, errs, code := run(append([]string{"diagnose", "--json", dir}, extra...)...)
				var j diagnoseJSON
				if err := json.Unmarshal([]byte(out), &j); err != nil {
					t.Fatalf("exit %d: %v\n%s", code, err, errs)
				}
				var doc any
				json.Unmarshal([]byte(out), &doc)
				if err := schema.Validate(doc); err != nil {
					t.Errorf("JSON does not match the schema: %v", err)
				}
				got := map[string]string{}
				for _, f := range j.Findings {
					got[f.Code] = f.Severity.String()
					t.Logf("innoscope: %s %s space %v %s: %s", f.Severity, f.Code, deref(f.SpaceID), f.File, f.Message)
					if f.File == "" || f.LSN == nil {
						t.Errorf("finding without file or LSN: %+v", f)
					}
				}
				want := maps.Clone(m.want)
				if !s.Verdict.CrashRecovery {
					// The kill came right after a checkpoint (the log holds nothing past the
					// checkpoint's own mini-transaction): the server runs no crash recovery on
					// this crash and diagnose must not say it will (run r1 of d3abc5a, 11.8).
					delete(want, "UNCLEAN_SHUTDOWN")
				}
				for code, sev := range want {
					if got[code] != sev && (sev != "any" || got[code] == "") {
						t.Errorf("want %s (%s), got %v", code, sev, got)
					}
				}
				if m.scenario == "formats_default" && len(m.want) == 0 && len(j.Findings) != 0 {
					t.Errorf("a clean shutdown has findings: %v", got)
				}
				for code, sev := range got {
					if m.exact && want[code] == "" {
						t.Errorf("unexpected %s (%s)", code, sev)
					}
				}
				if (j.Summary["error"] > 0) != (code == ExitFindings) {
					t.Errorf("exit %d with %d errors", code, j.Summary["error"])
				}
				if after := lab.HashTree(t, dir); !mapsEqual(before, after) {
					t.Error("diagnose changed the directory")
				}
				vout, verrs, vcode := run(append([]string{"verify", "--json", "--tmpdir", base, dir}, extra...)...)
				var vj replay.Verification
				if err := json.Unmarshal([]byte(vout), &vj); err != nil {
					t.Fatalf("verify: exit %d: %v\n%s", vcode, err, verrs)
				}
				vcodes := map[string]bool{}
				for _, f := range vj.Findings {
					vcodes[f.Code] = true
					if f.Severity == finding.Error && !strings.HasPrefix(f.Code, "REPLAY") && !strings.HasPrefix(f.Code, "COPY_") {
						continue
					}
					if f.Severity == finding.Error {
						t.Logf("verify: %s %s: %s", f.Code, f.File, f.Message)
					}
				}
				if vj.OK != (vcode == ExitClean) {
					t.Errorf("verify ok=%v, exit %d", vj.OK, vcode)
				}
				if after := lab.HashTree(t, dir); !mapsEqual(before, after) {
					t.Error("verify changed the directory")
				}
				var v lab.Verdict
				if m.mutate == nil && len(sourceTrees(s)) > 1 {
					// Files outside the data directory (DATA DIRECTORY): the log names them by
					// absolute path, so a server started on a copy would recover the lab's frozen
					// files; the verdict is the server's own recovery of the scenario.
					v = s.Verdict
					v.Checks = s.Checks(t)
					lines := strings.Split(strings.TrimSpace(v.Checks), "\n")
					v.TablesOK, v.TablesChecked = true, len(lines)
					for _, l := range lines {
						v.TablesOK = v.TablesOK && strings.HasSuffix(l, "\tOK")
					}
				} else {
					server := filepath.Join(base, "server")
					lab.CopyDir(t, dir, server)
					opts := append(append([]string{}, s.Options...), extra...)
					v = srv.VerdictOn(t, server, opts)
				}
				t.Logf("server: started=%v tables_ok=%v (%d checked)\n%s\n%s", v.Started, v.TablesOK, v.TablesChecked,
					serverLines(t, v.ErrLog), strings.TrimSpace(v.Checks))
				serverLost := !v.Started || !v.TablesOK
				if (j.Summary["error"] > 0) != serverLost {
					t.Errorf("innoscope: %d errors; server: started=%v, tables ok=%v", j.Summary["error"], v.Started, v.TablesOK)
				}
				// verify is the same gate, with the replay done: ok exactly when the server recovers
				// the directory with every table usable.
				if vj.OK == serverLost {
					t.Errorf("verify ok=%v (%v); server: started=%v, tables ok=%v", vj.OK, vcodes, v.Started, v.TablesOK)
				}
				t.Logf("verify: ok=%v, replay failed=%v, server started=%v", vj.OK, vcodes["REPLAY_FAILED"], v.Started)
				if m.name == "datafile newer than the log" && !serverLost {
					// recover's copy is the server's own recovery: the pages from the future
					// written back from the doublewrite buffer, the others rebuilt by the log.
					copyDir := filepath.Join(base, "copy")
					if _, errs, code := run("recover", dir, "--into", copyDir); code != ExitClean {
						t.Fatalf("recover: exit %d\n%s", code, errs)
					}
					c := srv.VerdictOn(t, copyDir, s.Options)
					if !c.Started || c.CrashRecovery || !c.TablesOK || c.Checksums != v.Checksums || c.Checksums == "" {
						t.Errorf("the server on recover's copy: started=%v crash_recovery=%v tables_ok=%v\nCHECKSUM TABLE:\n%s\nits own recovery:\n%s",
							c.Started, c.CrashRecovery, c.TablesOK, c.Checksums, v.Checksums)
					}
				}
			})
		}
	})
}

func deref(p *uint32) any {
	if p == nil {
		return "-"
	}
	return *p
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	b, err := os.ReadFile(filepath.Join(lab.Root(), "schemas", "diagnose.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("diagnose.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("diagnose.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDiagnoseLocationPolicy: a DATA DIRECTORY table outside innodb_directories is information for
// MariaDB (which opens it through its .isl: the server started on this scenario and recovered
// it, see TestLogAgainstServer) and an error under --policy=mysql8 (WL#13065 FR3/FR4); naming its
// directory in --innodb-directories clears it.
func TestDiagnoseLocationPolicy(t *testing.T) {
	s := lab.Get(t, "data_directory")
	// The server recovered this very directory (in place: the log names the external file by
	// its absolute path) and CHECKSUM TABLE read the DATA DIRECTORY table afterwards.
	if sums, _ := os.ReadFile(filepath.Join(s.Dir, "checksums.tsv")); !s.Verdict.Started || !strings.Contains(string(sums), "db.remote") {
		t.Fatalf("the server did not recover the DATA DIRECTORY table: %+v\n%s", s.Verdict, sums)
	}
	sev := func(args ...string) (string, int) {
		out, _, code := run(append([]string{"diagnose", "--json", s.Crashed}, args...)...)
		var j diagnoseJSON
		json.Unmarshal([]byte(out), &j)
		for _, f := range j.Findings {
			if f.Code == "UNPROTECTED_LOCATION" {
				return f.Severity.String(), code
			}
		}
		return "", code
	}
	if got, code := sev(); got != "info" || code != ExitClean {
		t.Errorf("default policy: %q exit %d", got, code)
	}
	if got, code := sev("--policy", "mysql8"); got != "error" || code != ExitFindings {
		t.Errorf("mysql8 policy: %q exit %d", got, code)
	}
	// The verdict speaks of MySQL 8's server, whose rule it is (it said "mariadbd will start, but
	// tables will fail" for a location MariaDB opens: new-user trial).
	if out, _, _ := run("diagnose", "--policy", "mysql8", s.Crashed); !strings.HasPrefix(out, "mysqld will") {
		t.Errorf("mysql8 policy verdict: %.120s", out)
	}
	if got, _ := sev("--innodb-directories", filepath.Join(s.Dir, "ext")); got != "" {
		t.Errorf("with innodb_directories: %q", got)
	}
}

// TestDiagnoseSkipPages: --skip-pages does not read the pages, so a datafile newer than the log
// goes unreported there, and the report says the check was skipped.
func TestDiagnoseSkipPages(t *testing.T) {
	s := lab.Get(t, "dml")
	dir := filepath.Join(t.TempDir(), "data")
	lab.CopyDir(t, s.Crashed, dir)
	cp(t, filepath.Join(s.Dir, "later/db/t1.ibd"), filepath.Join(dir, "db/t1.ibd"))
	codes := func(args ...string) string {
		out, _, _ := run(append([]string{"diagnose", "--json", dir}, args...)...)
		var j diagnoseJSON
		json.Unmarshal([]byte(out), &j)
		var c []string
		for _, f := range j.Findings {
			c = append(c, f.Code)
		}
		return strings.Join(c, ",")
	}
	if all := codes(); !strings.Contains(all, "FILE_AHEAD_OF_LOG") {
		t.Fatalf("full diagnosis: %s", all)
	}
	if quick := codes("--skip-pages"); strings.Contains(quick, "FILE_AHEAD_OF_LOG") || !strings.Contains(quick, "PAGES_NOT_CHECKED") {
		t.Errorf("--skip-pages: %s", quick)
	}
}
