package cmd

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"innoscope/finding"
	"innoscope/internal/lab"
	"innoscope/replay"
)

// The third new-user trial of the front end: each test failed before its fix.

// TestVerifyFailOn: verify's outcome (OK or FAILED, "ok" in JSON) follows --fail-on as its exit
// status does; it said OK and exited 1 with --fail-on info on a crash the server recovers (an
// info finding: UNCLEAN_SHUTDOWN).
func TestVerifyFailOn(t *testing.T) {
	s := lab.Get(t, "dml")
	where, _ := splitOptions(s.Options)
	for _, c := range []struct {
		failOn string
		ok     bool
		word   string
	}{{"error", true, ": OK: "}, {"info", false, ": FAILED (--fail-on info): "}, {"none", true, ": OK (--fail-on none): "}} {
		args := append([]string{"verify", s.Crashed, "--tmpdir", t.TempDir(), "--fail-on", c.failOn}, where...)
		out, errs, code := run(append(args, "--json")...)
		var j struct {
			OK     bool   `json:"ok"`
			FailOn string `json:"fail_on"`
		}
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatalf("verify --fail-on %s --json: %v\n%s%s", c.failOn, err, out, errs)
		}
		want := ExitClean
		if !c.ok {
			want = ExitFindings
		}
		if j.OK != c.ok || j.FailOn != c.failOn || code != want {
			t.Errorf("verify --fail-on %s --json: ok=%v fail_on=%q exit %d, want ok=%v exit %d", c.failOn, j.OK, j.FailOn, code, c.ok, want)
		}
		out, _, code = run(args...)
		if !strings.Contains(out, c.word) || code != want {
			t.Errorf("verify --fail-on %s: exit %d, no %q in\n%s", c.failOn, code, c.word, out)
		}
	}
}

// TestVerifyKeepNamesItsFlags: verify's refusals of its --keep directory name --keep, never
// recover's --into or --force (verify has neither); they said "pass --force to use it". The
// directory refused is left as it was.
func TestVerifyKeepNamesItsFlags(t *testing.T) {
	s := lab.Get(t, "dml")
	where, _ := splitOptions(s.Options)
	root := t.TempDir()
	empty, full, marked := filepath.Join(root, "empty"), filepath.Join(root, "full"), filepath.Join(root, "marked")
	for _, d := range []string{empty, full, marked} {
		if err := os.Mkdir(d, 0o750); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(full, "x"), filepath.Join(marked, replay.IncompleteMarker)} {
		if err := os.WriteFile(f, []byte("x"), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	before := lab.HashTree(t, root)
	for _, c := range []struct{ dir, want string }{
		{full, "is not empty: --keep needs a new directory"},
		{marked, "holds an interrupted recovery"},
	} {
		_, errs, code := run(append([]string{"verify", s.Crashed, "--skip-pages", "--keep", c.dir}, where...)...)
		if code != ExitError || !strings.Contains(errs, c.want) || !strings.Contains(errs, "--keep") ||
			strings.Contains(errs, "--into") || strings.Contains(errs, "--force") {
			t.Errorf("verify --keep %s: exit %d, want %d and %q naming --keep (not --into, --force):\n%s", c.dir, code, ExitError, c.want, errs)
		}
	}
	if after := lab.HashTree(t, root); !maps.Equal(before, after) {
		t.Errorf("verify wrote into the --keep directories it refused: %v, was %v", after, before)
	}
}

// TestLogStatsFromLSNWording: `log stats --from-lsn N` counts the records from N, and its
// UNCLEAN_SHUTDOWN said they were "after checkpoint ... crash recovery will apply them"; on a
// cleanly shut down log (nothing to recover) it said so too. The message now names the range
// counted, and a log that needs no recovery gets no UNCLEAN_SHUTDOWN from a range scan.
func TestLogStatsFromLSNWording(t *testing.T) {
	type stats struct {
		CheckpointLSN uint64            `json:"checkpoint_lsn"`
		StartLSN      uint64            `json:"start_lsn"`
		PageRecords   int               `json:"page_records"`
		PagesTouched  int               `json:"pages_touched"`
		CrashRecovery bool              `json:"crash_recovery"`
		Findings      []finding.Finding `json:"findings"`
	}
	unclean := func(j stats) string {
		for _, f := range j.Findings {
			if f.Code == "UNCLEAN_SHUTDOWN" {
				return f.Message
			}
		}
		return ""
	}
	for _, name := range []string{"dml", "clean"} {
		s := lab.Get(t, name)
		where, _ := splitOptions(s.Options)
		var h struct {
			FirstLSN uint64 `json:"first_lsn"`
		}
		runJSON(t, &h, append([]string{"log", "header", "--json", s.Crashed}, where...)...)
		var whole, from stats
		runJSON(t, &whole, append([]string{"log", "stats", "--json", s.Crashed}, where...)...)
		runJSON(t, &from, append([]string{"log", "stats", "--json", s.Crashed, "--from-lsn", strconv.FormatUint(h.FirstLSN, 10)}, where...)...)
		if from.StartLSN != h.FirstLSN || from.StartLSN >= from.CheckpointLSN || from.PageRecords <= whole.PageRecords {
			t.Fatalf("%s: --from-lsn %d scanned from %d (checkpoint %d), %d page records (%d from the checkpoint): not the range this test needs",
				name, h.FirstLSN, from.StartLSN, from.CheckpointLSN, from.PageRecords, whole.PageRecords)
		}
		if !whole.CrashRecovery { // clean: nothing to recover, whatever the range
			if m := unclean(from); m != "" {
				t.Errorf("%s (clean) --from-lsn %d: UNCLEAN_SHUTDOWN %q", name, h.FirstLSN, m)
			}
			continue
		}
		wantWhole := fmt.Sprintf("%d page records for %d pages after checkpoint LSN %d; crash recovery will apply them",
			whole.PageRecords, whole.PagesTouched, whole.CheckpointLSN)
		if m := unclean(whole); m != wantWhole {
			t.Errorf("%s: UNCLEAN_SHUTDOWN %q, want %q", name, m, wantWhole)
		}
		m := unclean(from)
		if want := fmt.Sprintf("%d page records for %d pages counted from LSN %d to the end of the log", from.PageRecords, from.PagesTouched, h.FirstLSN); !strings.HasPrefix(m, want) ||
			strings.Contains(m, "after checkpoint") || strings.Contains(m, "will apply them") {
			t.Errorf("%s --from-lsn %d: UNCLEAN_SHUTDOWN %q, want it to start %q and not to call these counts the checkpoint's", name, h.FirstLSN, m, want)
		}
	}
}

// TestLogCommandsRefuseTablespace: `log header ibdata1` (or any datafile) said "format
// identifier 0 (the redo log of MySQL 5.6 ...)", taking page 0 for an old log header. The log
// commands now say the file is a tablespace, not a redo log, and to read it with `innoscope
// pages` (exit 2, the file named; in JSON as the error's file).
func TestLogCommandsRefuseTablespace(t *testing.T) {
	s := lab.Get(t, "dml")
	ibds, _ := filepath.Glob(filepath.Join(s.Crashed, "*", "*.ibd"))
	if len(ibds) == 0 {
		t.Fatalf("no .ibd under %s", s.Crashed)
	}
	for _, f := range []string{filepath.Join(s.Crashed, "ibdata1"), ibds[0]} {
		for _, cmd := range [][]string{{"log", "header"}, {"log", "stats"}, {"log", "records"}, {"map"}} {
			args := append(append([]string{}, cmd...), f)
			_, errs, code := run(args...)
			want := f + ": offset 0: not a redo log: a tablespace"
			if code != ExitError || !strings.Contains(errs, want) || !strings.Contains(errs, "innoscope pages "+f) {
				t.Errorf("innoscope %s: exit %d, want %d and %q with the advice to use `innoscope pages`:\n%s", strings.Join(args, " "), code, ExitError, want, errs)
			}
			out, _, code := run(append(args, "--json")...)
			var j struct {
				Error string  `json:"error"`
				File  *string `json:"file"`
			}
			if err := json.Unmarshal([]byte(out), &j); err != nil || code != ExitError || j.File == nil || *j.File != f || !strings.Contains(j.Error, "not a redo log") {
				t.Errorf("innoscope %s --json: exit %d, %v, want an error naming file %s:\n%s", strings.Join(args, " "), code, err, f, out)
			}
		}
	}
}

// TestRecoverDryRunChecksTarget: `recover --dry-run --into COPY` printed its plan (exit 0)
// for a COPY a real run refuses: inside the source, not empty, an interrupted copy without --force, locked by another run. It now refuses each with the real
// run's error, and writes nothing (the marked copy it accepts with --force is left as it is;
// the real run empties it).
func TestRecoverDryRunChecksTarget(t *testing.T) {
	s := lab.Get(t, "dml")
	where, _ := splitOptions(s.Options)
	root := t.TempDir()
	empty, full, marked, locked := filepath.Join(root, "empty"), filepath.Join(root, "full"), filepath.Join(root, "marked"), filepath.Join(root, "locked")
	for _, d := range []string{empty, full, marked, locked} {
		if err := os.Mkdir(d, 0o750); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(full, "x"), filepath.Join(marked, replay.IncompleteMarker), filepath.Join(marked, "old")} {
		if err := os.WriteFile(f, []byte("x"), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	lf, err := os.Open(locked) // as a run writing into it holds it
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	trees := append(sourceTrees(s), root)
	hashes := func() []map[string]string {
		var hs []map[string]string
		for _, d := range trees {
			hs = append(hs, lab.HashTree(t, d))
		}
		return hs
	}
	before := hashes()
	unchanged := func(what string) {
		t.Helper()
		for i, h := range hashes() {
			if !maps.Equal(h, before[i]) {
				t.Errorf("%s wrote into %s", what, trees[i])
			}
		}
	}
	for _, c := range []struct {
		into  string
		force bool
		want  string
	}{
		{filepath.Join(s.Crashed, "sub"), false, "overlaps the source"},
		{full, true, "is not empty"},
		{full, false, "is not empty"},
		{marked, false, "holds an interrupted recovery"},
		{locked, true, "another innoscope run"},
	} {
		args := append([]string{"recover", s.Crashed, "--into", c.into}, where...)
		if c.force {
			args = append(args, "--force")
		}
		_, dryErrs, dryCode := run(append(args, "--dry-run")...)
		unchanged("recover --dry-run --into " + c.into)
		_, errs, code := run(args...)
		unchanged("a refused recover --into " + c.into)
		if dryCode != ExitError || !strings.Contains(dryErrs, c.want) || dryErrs != errs || code != ExitError {
			t.Errorf("recover --dry-run --into %s (force %v): exit %d, %q; want exit %d and the real run's refusal (exit %d) %q",
				c.into, c.force, dryCode, dryErrs, ExitError, code, errs)
		}
		if _, err := os.Stat(filepath.Join(s.Crashed, "sub")); err == nil {
			t.Fatalf("recover created %s inside the source", filepath.Join(s.Crashed, "sub"))
		}
	}
	for _, into := range []string{marked, empty, filepath.Join(root, "new")} {
		if out, errs, code := run(append([]string{"recover", s.Crashed, "--into", into, "--force", "--dry-run"}, where...)...); code != ExitClean || !strings.Contains(out, "mariadbd will") {
			t.Errorf("recover --dry-run --force --into %s: exit %d\n%s%s", into, code, out, errs)
		}
	}
	if out, errs, code := run(append([]string{"recover", s.Crashed, "--into", empty, "--dry-run"}, where...)...); code != ExitClean || !strings.Contains(out, "mariadbd will") {
		t.Errorf("recover --dry-run --into %s (empty, no --force): exit %d\n%s%s", empty, code, out, errs)
	}
	unchanged("recover --dry-run --force")
	if _, err := os.Stat(filepath.Join(root, "new")); err == nil {
		t.Error("recover --dry-run created its --into")
	}
}

// TestJSONErrorNamesPathErrorFile: with --json, an error that wraps an OS error on a path
// (*fs.PathError: "stat /x: no such file or directory", "open /d/r.html: ...") printed
// "file": null; the file is now the path the OS error names.
func TestJSONErrorNamesPathErrorFile(t *testing.T) {
	s := lab.Get(t, "dml")
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	for _, c := range []struct {
		args []string
		file string
	}{
		{[]string{"pages", filepath.Join(missing, "t.ibd")}, filepath.Join(missing, "t.ibd")},
		{[]string{"log", "header", missing}, missing},
		{[]string{"report", s.Crashed, "--out", filepath.Join(missing, "r.html")}, filepath.Join(missing, "r.html")},
	} {
		out, errs, code := run(append(c.args, "--json")...)
		var j struct {
			Error string  `json:"error"`
			File  *string `json:"file"`
		}
		if err := json.Unmarshal([]byte(out), &j); err != nil || code != ExitError || j.File == nil || *j.File != c.file ||
			!strings.Contains(j.Error, c.file) {
			t.Errorf("innoscope %s --json: exit %d (%v), want exit %d and \"file\": %q:\n%s%s", strings.Join(c.args, " "), code, err, ExitError, c.file, out, errs)
		}
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("%s was created", missing)
	}
}

// TestRowsFormatAndJSON: `rows --format sql --json` printed JSON rows (exit 0), dropping the
// --format asked for without a word. The contradiction is refused (exit 2) naming both flags;
// --json alone and with --format json still print the JSON rows.
func TestRowsFormatAndJSON(t *testing.T) {
	s := lab.Get(t, "clean")
	where, _ := splitOptions(s.Options)
	json1, _, code1 := run(append([]string{"rows", s.Crashed, "db.t", "--json"}, where...)...)
	json2, _, code2 := run(append([]string{"rows", s.Crashed, "db.t", "--format", "json", "--json"}, where...)...)
	if code1 != ExitClean || json1 == "" || json2 != json1 || code2 != ExitClean {
		t.Fatalf("rows --json: exit %d, --format json --json: exit %d, outputs equal %v", code1, code2, json1 == json2)
	}
	for _, f := range []string{"sql", "tsv"} {
		out, errs, code := run(append([]string{"rows", s.Crashed, "db.t", "--format", f, "--json"}, where...)...)
		if code != ExitError || !strings.Contains(errs, "--format "+f) || !strings.Contains(errs, "--json") || strings.Contains(out, json1) {
			t.Errorf("rows --format %s --json: exit %d, want %d and an error naming --format %s and --json:\nstdout %s\nstderr %s", f, code, ExitError, f, out, errs)
		}
	}
}

// TestToLSNSaysWhereItStopped: `log stats` and `log records` with --to-lsn N said "end of log
// LSN M" and "end of log at LSN M: limit (reached the requested end LSN)", though the log goes
// on past M; on a MariaDB 10.5 log `log stats` ignored --to-lsn and counted to the end. Both now
// say the scan stopped at --to-lsn N, on both formats, and end at the same LSN.
func TestToLSNSaysWhereItStopped(t *testing.T) {
	type stats struct {
		CheckpointLSN uint64 `json:"checkpoint_lsn"`
		EndLSN        uint64 `json:"end_lsn"`
		StopReason    string `json:"stop_reason"`
		RecordCount   int    `json:"record_count"`
	}
	for _, s := range []*lab.Scenario{lab.Get(t, "dml"), lab.MariaDB105.Get(t, "dml105")} {
		where, _ := splitOptions(s.Options)
		var whole, part stats
		runJSON(t, &whole, append([]string{"log", "stats", "--json", s.Crashed}, where...)...)
		n := whole.CheckpointLSN + (whole.EndLSN-whole.CheckpointLSN)/4
		to := strconv.FormatUint(n, 10)
		runJSON(t, &part, append([]string{"log", "stats", "--json", s.Crashed, "--to-lsn", to}, where...)...)
		if part.StopReason != "limit" || part.EndLSN < n || part.EndLSN >= whole.EndLSN || part.RecordCount >= whole.RecordCount {
			t.Errorf("%s: log stats --to-lsn %d: stopped (%s) at %d with %d records; the whole log ends at %d with %d",
				s.Name, n, part.StopReason, part.EndLSN, part.RecordCount, whole.EndLSN, whole.RecordCount)
		}
		out, errs, code := run(append([]string{"log", "stats", s.Crashed, "--to-lsn", to}, where...)...)
		if code != ExitClean || !strings.Contains(out, "at --to-lsn "+to) || strings.Contains(out, "end of log") || strings.Contains(out, "limit:") {
			t.Errorf("%s: log stats --to-lsn %s: exit %d, want it to say it stopped at --to-lsn %s:\n%s%s", s.Name, to, code, to, out, errs)
		}
		// A scan cut short proves no FILE_CHECKPOINT missing: a 10.5 log's record for the
		// checkpoint may lie past --to-lsn (stop 38, loaded run: MISSING_FILE_CHECKPOINT, exit 1).
		// The first mini-transaction alone is the shortest cut.
		first := strconv.FormatUint(whole.CheckpointLSN+1, 10)
		out, errs, code = run(append([]string{"log", "stats", "--json", s.Crashed, "--to-lsn", first}, where...)...)
		if code != ExitClean || strings.Contains(out, "MISSING_FILE_CHECKPOINT") {
			t.Errorf("%s: log stats --to-lsn %s (the first mini-transaction): exit %d\n%s%s", s.Name, first, code, out, errs)
		}
		out, errs, code = run(append([]string{"log", "records", s.Crashed, "--to-lsn", to}, where...)...)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		want := fmt.Sprintf("stopped at --to-lsn %s: the scan ends at LSN %d", to, part.EndLSN)
		if last := lines[len(lines)-1]; code != ExitClean || !strings.HasPrefix(last, want) {
			t.Errorf("%s: log records --to-lsn %s: exit %d, last line %q, want it to start %q\n%s", s.Name, to, code, last, want, errs)
		}
	}
}

// TestLogHeader105Records: `log header` of a MariaDB 10.5 log said its blocks held "MLOG
// records" (10.5-10.7 write the physical records of 10.8 in 512-byte blocks) and gave the
// format identifier in decimal (1346918739) where the server's sources write it in hex
// (0x50485953, "PHYS"). JSON keeps the number.
func TestLogHeader105Records(t *testing.T) {
	s := lab.MariaDB105.Get(t, "dml105")
	out, errs, code := run("log", "header", s.Crashed)
	rows := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Split(l, "│"); len(f) == 4 {
			rows[strings.TrimSpace(f[1])] = strings.TrimSpace(f[2])
		}
	}
	if code != ExitClean || !strings.HasSuffix(rows["format"], "(0x50485953)") || strings.Contains(rows["records"], "MLOG") ||
		!strings.Contains(rows["records"], "physical records of MariaDB 10.8") {
		t.Errorf("log header of a 10.5 log: exit %d, format %q, records %q; want the id in hex and the physical records named\n%s%s",
			code, rows["format"], rows["records"], out, errs)
	}
	var j struct {
		FormatID uint32 `json:"format_id"`
	}
	runJSON(t, &j, "log", "header", "--json", s.Crashed)
	if j.FormatID != 0x50485953 {
		t.Errorf("log header --json: format_id %d, want %d", j.FormatID, 0x50485953)
	}
}
