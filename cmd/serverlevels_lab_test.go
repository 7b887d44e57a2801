package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// findingSet is "SEVERITY CODE" of each finding, sorted: what a diagnosis says, without its
// paths.
func findingSet(j diagnoseJSON) string {
	var s []string
	for _, f := range j.Findings {
		s = append(s, f.Severity.String()+" "+f.Code)
	}
	sort.Strings(s)
	return strings.Join(s, ", ")
}

// oddEntries puts into the data directory d what the server never reads: an old copy of a data
// directory (the dml crash's later/, whose datafiles are newer than d's log), a link to /, a
// link to nothing and a stale socket link in a database directory.
func oddEntries(t *testing.T, s *lab.Scenario, d string) {
	lab.CopyDir(t, filepath.Join(s.Dir, "later"), filepath.Join(d, "backup"))
	for link, target := range map[string]string{"rootlink": "/", "x": "/nonexistent",
		"db/mysqld.sock": filepath.Join(t.TempDir(), "gone", "mysqld.sock")} {
		if err := os.Symlink(target, filepath.Join(d, link)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestServerLevelsOnly (issue 29, items 9 and 10): a data directory holding an old copy of a data
// directory, a link to / and links to nothing. The server reads its files at the top and in its
// database directories only, and never opens those: it recovers the crash as it recovers the
// unmutated one. diagnose says what it says of the unmutated crash (before: FILE_AHEAD_OF_LOG
// and DUPLICATE_SPACE_ID errors from the old copy's files, and every command walked the whole
// file system through the link to /); recover and verify succeed, leaving those out of the copy
// (before: recover failed after it had begun copying, on the link to nothing, and verify said
// FAILED), and the server starts on the copy without crash recovery with the CHECKSUM TABLE of
// its own recovery.
func TestServerLevelsOnly(t *testing.T) {
	s := lab.Get(t, "dml")
	d := filepath.Join(t.TempDir(), "data")
	lab.CopyDir(t, s.Crashed, d)
	ref := findingSet(diagnoseJSONOf(t, d))
	oddEntries(t, s, d)
	before := lab.HashTree(t, d)

	j := diagnoseJSONOf(t, d)
	if got := findingSet(j); got != ref {
		t.Errorf("diagnose: %s; of the unmutated crash: %s", got, ref)
	}
	out, errs, code := run("spaces", "--json", d)
	if code != ExitClean || strings.Contains(out, "backup") || strings.Contains(out, "rootlink") {
		t.Errorf("spaces: exit %d, lists files the server never reads: %s %s", code, out, errs)
	}
	// The server on a copy of the same directory (the links made again there).
	srv := filepath.Join(t.TempDir(), "srv")
	lab.CopyDir(t, d, srv)
	for _, l := range []string{"rootlink", "x", "db/mysqld.sock"} {
		target, _ := os.Readlink(filepath.Join(d, l))
		os.Symlink(target, filepath.Join(srv, l))
	}
	v := s.ServerVerdict(t, srv)
	log, _ := os.ReadFile(v.ErrLog)
	if !v.Started || !v.CrashRecovery || !v.TablesOK || v.Errors != 0 {
		t.Fatalf("the server on the mutated crash: started %v, crash recovery %v, tables ok %v, %d errors\n%s", v.Started, v.CrashRecovery, v.TablesOK, v.Errors, log)
	}
	if j.Summary["error"] != 0 {
		t.Errorf("diagnose reports %d errors; the server recovered the directory without one", j.Summary["error"])
	}

	copyDir := filepath.Join(t.TempDir(), "copy")
	out, errs, code = run("recover", "--json", d, "--into", copyDir)
	if code != ExitClean {
		t.Fatalf("recover: exit %d\n%s", code, errs)
	}
	var rj struct {
		Copy struct{ Skipped int } `json:"copy"`
	}
	json.Unmarshal([]byte(out), &rj)
	if rj.Copy.Skipped < 3 {
		t.Errorf("recover skipped %d entries; the links to nothing and to / are not the server's", rj.Copy.Skipped)
	}
	for _, l := range []string{"rootlink", "x", "db/mysqld.sock", "backup/db"} {
		if _, err := os.Lstat(filepath.Join(copyDir, l)); err == nil {
			t.Errorf("the copy holds %s", l)
		}
	}
	cv := s.ServerVerdict(t, copyDir)
	if !cv.Started || cv.CrashRecovery || cv.Checksums != s.Checksums(t) {
		t.Errorf("the server on recover's copy: started %v, crash recovery %v, checksums equal to its own recovery's: %v",
			cv.Started, cv.CrashRecovery, cv.Checksums == s.Checksums(t))
	}
	if out, errs, code := run("verify", d); code != ExitClean || !strings.Contains(out, "OK") {
		t.Errorf("verify: exit %d\n%s%s", code, out, errs)
	}
	if !mapsEqual(before, lab.HashTree(t, d)) {
		t.Error("the source changed")
	}
}
