package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/internal/lab"
	"innoscope/replay"
)

// salvageCase is a real crash mutated by a real file operation that the server refuses, and
// what `recover --salvage` must do about it.
type salvageCase struct {
	name, scenario string
	mutate         func(t *testing.T, dir string)
	want           map[string]int // action → how many (nil: the caller checks)
	// plainRecovers: the server starts on the directory (a damaged log past the end the
	// checkpoint promises), so plain recover does what it does instead of refusing.
	plainRecovers bool
}

// salvaged is what a salvage gave: its JSON, exit status, copy and the tables it declared
// lost (db.t form).
type salvaged struct {
	j        recoverJSON
	code     int
	copy     string
	lostTbls map[string]bool
}

// runSalvage checks that plain recover refuses d's directory before copying anything and names
// the salvage, then runs `recover --salvage --json` (after `--dry-run`, which must give the same
// plan) and checks the source is unchanged.
func runSalvage(t *testing.T, d *damaged, c salvageCase) salvaged {
	t.Helper()
	before := lab.HashTree(t, d.dir)
	copyDir := filepath.Join(d.base, "copy")
	out, errs, code := run("recover", d.dir, "--into", copyDir)
	if c.plainRecovers {
		if code != ExitClean {
			t.Errorf("recover without --salvage: exit %d, %q; the server starts on this directory", code, errs)
		}
		if err := os.RemoveAll(copyDir); err != nil {
			t.Fatal(err)
		}
	} else {
		if code != ExitError || !strings.Contains(errs, "--salvage") {
			t.Errorf("recover without --salvage: exit %d, %q; want exit 2 naming the salvage", code, errs)
		}
		if _, err := os.Stat(copyDir); err == nil {
			t.Errorf("recover refused after creating %s", copyDir)
		}
	}
	t.Logf("recover without --salvage: %s", errs)
	dry, _, dcode := run("recover", "--json", "--salvage", "--dry-run", d.dir, "--into", copyDir)
	var dj recoverJSON
	if err := json.Unmarshal([]byte(dry), &dj); err != nil {
		t.Fatalf("dry run: exit %d: %v", dcode, err)
	}
	out, errs, code = run("recover", "--json", "--salvage", d.dir, "--into", copyDir)
	var s salvaged
	if err := json.Unmarshal([]byte(out), &s.j); err != nil {
		t.Fatalf("recover --salvage: exit %d: %v\n%s", code, err, errs)
	}
	s.code, s.copy, s.lostTbls = code, copyDir, map[string]bool{}
	got := map[string]int{}
	lost := false
	for _, a := range s.j.Salvage {
		got[a.Action]++
		t.Logf("salvage: %s space %v %s -> %s lsn %d-%d pages %d records %d: %s", a.Action, deref(a.SpaceID), a.File, a.MovedTo, a.LSN, a.EndLSN, a.Pages, a.Records, a.Detail)
		if a.Lost() {
			lost = true
		}
		if a.Action == replay.SalvageSkippedRecords || a.Action == replay.SalvageQuarantined {
			rel, _ := filepath.Rel(d.dir, a.File)
			s.lostTbls[strings.ReplaceAll(strings.TrimSuffix(rel, ".ibd"), "/", ".")] = true
			if a.Records == 0 || a.SpaceID == nil {
				t.Errorf("a loss without its space id or records: %+v", a)
			}
		}
	}
	if len(got) != len(c.want) && c.want != nil {
		t.Errorf("salvage actions %v, want %v", got, c.want)
	}
	for k, n := range c.want {
		if got[k] != n {
			t.Errorf("salvage actions %v, want %v", got, c.want)
			break
		}
	}
	if len(dj.Salvage) != len(s.j.Salvage) || dcode != code {
		t.Errorf("dry run: %d actions, exit %d; the salvage: %d, exit %d", len(dj.Salvage), dcode, len(s.j.Salvage), code)
	}
	if want := map[bool]int{false: ExitClean, true: ExitFindings}[lost]; code != want {
		t.Errorf("recover --salvage: exit %d, want %d (lost=%v)", code, want, lost)
	}
	if len(s.j.Findings) != len(s.j.Salvage) {
		t.Errorf("%d findings for %d actions", len(s.j.Findings), len(s.j.Salvage))
	}
	if len(s.j.Salvage) > 0 {
		// The table form says what was lost before it prints the command that starts the copy.
		tab, _, _ := run("recover", "--salvage", d.dir, "--into", copyDir+"-table")
		if i, j := strings.Index(tab, "salvage:"), strings.Index(tab, "start the server on the copy:"); i < 0 || j < 0 || i > j {
			t.Errorf("the salvage table comes after the start command (or is missing):\n%s", tab)
		}
		os.RemoveAll(copyDir + "-table")
		os.RemoveAll(copyDir + "-table" + replay.ExternalSuffix)
	}
	if after := lab.HashTree(t, d.dir); !mapsEqual(before, after) {
		t.Error("recover --salvage changed the source")
	}
	if ents, _ := os.ReadDir(copyDir); len(ents) == 0 {
		t.Fatal("no copy")
	}
	return s
}

// judgeCopy starts the real server on the salvaged copy: no crash recovery; every error it logs
// names a table the salvage declared lost; every other table passes CHECK TABLE and has the
// CHECKSUM TABLE in want (table<TAB>checksum lines: the server's own recovery of the
// unmutated directory, or of the directory with its log cut at the damage).
func judgeCopy(t *testing.T, s *lab.Scenario, sv salvaged, want string) {
	t.Helper()
	v := s.ServerVerdict(t, sv.copy)
	t.Logf("server on the salvaged copy: started=%v crash_recovery=%v errors=%d\n%s\n%s", v.Started, v.CrashRecovery, v.Errors,
		serverLines(t, v.ErrLog), strings.TrimSpace(v.Checks))
	if !v.Started || v.CrashRecovery {
		t.Fatalf("server on the copy: started=%v crash_recovery=%v", v.Started, v.CrashRecovery)
	}
	// The server's errors come in runs (an OS error, then the file and the table it could not
	// open): each error, or one of the next three, must name a table the salvage declared lost.
	b, _ := os.ReadFile(v.ErrLog)
	var errs []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "[ERROR]") {
			errs = append(errs, l)
		}
	}
	for i := range errs {
		named := false
		for _, e := range errs[i:min(i+4, len(errs))] {
			for tbl := range sv.lostTbls {
				named = named || strings.Contains(e, strings.ReplaceAll(tbl, ".", "/"))
			}
		}
		if !named {
			t.Errorf("an error about no table the salvage declared lost: %s", errs[i])
		}
	}
	checks, sums := tabbed(v.Checks), tabbed(v.Checksums)
	compared := 0
	for _, l := range strings.Split(strings.TrimSpace(want), "\n") {
		tbl, sum, _ := strings.Cut(l, "\t")
		if sv.lostTbls[tbl] {
			if checks[tbl] == "OK" {
				t.Logf("%s, declared lost, passes CHECK TABLE on the copy", tbl)
			}
			continue
		}
		compared++
		if checks[tbl] != "OK" || sums[tbl] != sum {
			t.Errorf("%s: CHECK TABLE %q, CHECKSUM %q; the server's own recovery: %q", tbl, checks[tbl], sums[tbl], sum)
		}
	}
	if compared == 0 {
		t.Error("no table compared")
	}
}

// tabbed maps the first field of each table<TAB>value line of s to the rest (CHECK TABLE and
// CHECKSUM TABLE results).
func tabbed(s string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		k, v, _ := strings.Cut(l, "\t")
		m[k] = v
	}
	return m
}

// swapFiles swaps two files of dir by renaming them.
func swapFiles(t *testing.T, dir, a, b string) {
	mv(t, filepath.Join(dir, a), filepath.Join(dir, "swap.tmp"))
	mv(t, filepath.Join(dir, b), filepath.Join(dir, a))
	mv(t, filepath.Join(dir, "swap.tmp"), filepath.Join(dir, b))
}

var salvageCases = []salvageCase{
	{name: "swapped table files", scenario: "dml", want: map[string]int{replay.SalvageRelocated: 2},
		mutate: func(t *testing.T, d string) { swapFiles(t, d, "db/t1.ibd", "db/t2.ibd") }},
	{name: "file renamed by hand", scenario: "dml", want: map[string]int{replay.SalvageRelocated: 1},
		mutate: func(t *testing.T, d string) { mv(t, filepath.Join(d, "db/t1.ibd"), filepath.Join(d, "db/t1_old.ibd")) }},
	{name: "file the log changes deleted", scenario: "dml", want: map[string]int{replay.SalvageSkippedRecords: 1},
		mutate: func(t *testing.T, d string) { os.Remove(filepath.Join(d, "db/t1.ibd")) }},
	{name: "file copied over another", scenario: "dml",
		want:   map[string]int{replay.SalvageSkippedRecords: 1, replay.SalvageIgnoredDuplicate: 1},
		mutate: func(t *testing.T, d string) { cp(t, filepath.Join(d, "db/t1.ibd"), filepath.Join(d, "db/t2.ibd")) }},
	{name: "page 0 of a table the log changes zeroed", scenario: "dml", want: map[string]int{replay.SalvageQuarantined: 1},
		mutate: func(t *testing.T, d string) { zeroBytes(t, filepath.Join(d, "db/t1.ibd"), 0, 16384) }},
	{name: "corrupt page recovery needs", scenario: "dml", want: map[string]int{replay.SalvageQuarantined: 1},
		mutate: func(t *testing.T, d string) { flipNeededPage(t, d) }},
}

// salvageOn118 are the salvage cases run on 11.8 crashes too (the suite's time budget).
var salvageOn118 = map[string]bool{"swapped table files": true, "corrupt page recovery needs": true}

// TestSalvageAgainstServer: for each mutation of a real crash that the real server refuses,
// plain recover refuses before copying and names the salvage; `recover --salvage` leaves the
// source unchanged and gives a copy on which the server runs no crash recovery, logs errors only
// about the tables the salvage declared lost, and gives every other table its CHECK TABLE and
// the CHECKSUM TABLE of its own recovery of the unmutated crash.
func TestSalvageAgainstServer(t *testing.T) {
	forServers(t, func(t *testing.T, srv *lab.Server) {
		for _, c := range salvageCases {
			if srv == lab.MariaDB118 && !salvageOn118[c.name] && os.Getenv("INNOSCOPE_118_ALL") != "1" {
				continue
			}
			t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
				d := damageOn(t, srv, c.scenario, c.mutate)
				if d.server.Started {
					startedAnyway(t, d)
				}
				sv := runSalvage(t, d, c)
				if _, err := os.Stat(sv.copy + replay.QuarantineSuffix); (err == nil) != (c.want[replay.SalvageQuarantined]+c.want[replay.SalvageIgnoredDuplicate] > 0) {
					t.Errorf("quarantine directory: %v", err)
				}
				judgeCopy(t, d.s, sv, d.s.Checksums(t))
			})
		}
	})
}

// startedAnyway ends a salvage case whose mutation the server met and started on anyway: on
// this crash the log does not touch what was mutated, or the doublewrite buffer restored it.
// That is no salvage case; what is left to check is that diagnose agrees with the server (an
// error finding exactly when some table failed CHECK TABLE).
func startedAnyway(t *testing.T, d *damaged) {
	t.Helper()
	_, code := d.diagnose(t)
	if (code == ExitFindings) != d.serverLost() {
		t.Errorf("the server started (tables_ok=%v) and diagnose exits %d", d.server.TablesOK, code)
	}
	t.Skipf("the server started on the mutated directory of this crash (tables_ok=%v); diagnose agrees: not a salvage case", d.server.TablesOK)
}

// systemPageWithoutCopy finds a page of the system tablespace that recovery reads and of which
// the doublewrite buffer holds no copy.
func systemPageWithoutCopy(t *testing.T, dir string) int64 {
	copies := doublewriteCopies(t, dir)
	for id, read := range neededPages(t, dir) {
		if id.Space == 0 && read && id.Page > 7 && len(copies[[2]uint32{0, id.Page}]) == 0 {
			return int64(id.Page)
		}
	}
	t.Skip("on this crash recovery reads no page of the system tablespace that the doublewrite buffer has no copy of")
	return 0
}

// TestSalvageRefusals: where no salvage is safe or nothing decides, `recover --salvage` refuses
// (exit 2) with the reason, before copying anything: a corrupt page of the system tablespace
// that recovery needs; a missing table file of which two copies lie elsewhere (both named). The
// real server refuses both directories.
func TestSalvageRefusals(t *testing.T) {
	for _, c := range []struct {
		name   string
		mutate func(t *testing.T, dir string)
		want   []string
	}{
		{"corrupt system page", func(t *testing.T, d string) {
			flip(t, filepath.Join(d, "ibdata1"), 16384, systemPageWithoutCopy(t, d), 300)
		}, []string{"no salvage for the system or an undo tablespace"}},
		{"two candidate files", func(t *testing.T, d string) {
			mv(t, filepath.Join(d, "db/t1.ibd"), filepath.Join(d, "db/a.ibd"))
			cp(t, filepath.Join(d, "db/a.ibd"), filepath.Join(d, "db/b.ibd"))
		}, []string{"nothing decides", "db/a.ibd", "db/b.ibd"}},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			d := damage(t, "dml", c.mutate)
			if d.server.Started {
				t.Fatal("the server started on the mutated directory")
			}
			before := lab.HashTree(t, d.dir)
			copyDir := filepath.Join(d.base, "copy")
			_, errs, code := run("recover", "--salvage", d.dir, "--into", copyDir)
			t.Logf("recover --salvage: exit %d: %s", code, errs)
			for _, w := range c.want {
				if code != ExitError || !strings.Contains(errs, w) {
					t.Errorf("exit %d, %q: want exit 2 with %q", code, errs, w)
				}
			}
			if _, err := os.Stat(copyDir); err == nil {
				t.Error("the refused salvage created the copy")
			}
			if after := lab.HashTree(t, d.dir); !mapsEqual(before, after) {
				t.Error("the source changed")
			}
		})
	}
}

// TestSalvageDictionarySwap: two table files of a clean shutdown swapped (no log record names
// them): the real server starts but both tables fail CHECK TABLE; plain recover copies them as
// they are; `recover --salvage` relocates both by the dictionary (nothing lost, exit 0) and the
// server on the copy gives every table its CHECK TABLE and the CHECKSUM TABLE of the unmutated
// directory.
func TestSalvageDictionarySwap(t *testing.T) {
	d := damage(t, "formats_default", func(t *testing.T, dir string) { swapFiles(t, dir, "db/dyn.ibd", "db/red.ibd") })
	if !d.serverLost() {
		t.Fatal("the server recovered the swapped tables")
	}
	before := lab.HashTree(t, d.dir)
	copyDir := filepath.Join(d.base, "copy")
	var sv salvaged
	out, errs, code := run("recover", "--json", "--salvage", d.dir, "--into", copyDir)
	if err := json.Unmarshal([]byte(out), &sv.j); err != nil || code != ExitClean {
		t.Fatalf("recover --salvage: exit %d: %v\n%s", code, err, errs)
	}
	sv.copy = copyDir
	n := 0
	for _, a := range sv.j.Salvage {
		t.Logf("salvage: %s space %v %s -> %s: %s", a.Action, deref(a.SpaceID), a.File, a.MovedTo, a.Detail)
		if a.Action == replay.SalvageRelocated {
			n++
		}
	}
	if n != 2 || len(sv.j.Salvage) != 2 {
		t.Errorf("%d relocations of %d actions, want 2 of 2", n, len(sv.j.Salvage))
	}
	if after := lab.HashTree(t, d.dir); !mapsEqual(before, after) {
		t.Error("the source changed")
	}
	judgeCopy(t, d.s, sv, d.s.Checksums(t))
}
