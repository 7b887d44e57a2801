package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/internal/lab"
)

// TestSweep1006ISLNamesOtherDatabaseFolder is crash-sweep seed 1006: after RENAME TABLE of a
// DATA DIRECTORY partition from db2 to db1, TRUNCATE, and RENAME back to db2 (long before the
// crash), MariaDB kept the file in the DATA DIRECTORY's db1 folder while db2/t#P#p0.isl named
// the db2 folder, where there is no file; db1/t#P#p0.isl named the real file. The server's crash
// recovery loads the tablespace by the name of the log's FILE_MODIFY record and opens the table
// from memory by its space id, so every table passed CHECK TABLE; innoscope's copy kept the
// links as they were, and the server on it (no crash recovery: it follows the .isl) lost the
// table: "A link file was found named './db2/s1t16#P#p0.isl' but the linked tablespace ... could
// not be opened read-only".
//
// The same state, made deterministic: data_directory's db.remote (changed after the checkpoint,
// so the log has a FILE_MODIFY naming EXT/db/remote.ibd) gets db/remote.isl naming
// EXT/old/remote.ibd, which does not exist, and old/remote.isl naming the real file (or, in a
// second case, no link naming it: only the log does). Only the
// .isl files differ from the crashed directory, and the server's crash recovery does not read
// them for a tablespace the log names (measured on seed 1006's directory), so the judge is the
// server's own recovery of the scenario: the server on innoscope's copy must start without crash
// recovery, pass CHECK TABLE on every table and give the same CHECKSUM TABLE. (The server is
// not started on the damaged directory itself: its crash recovery would write into the scenario's
// external directory, which the log names by its absolute path.)
func TestSweep1006ISLNamesOtherDatabaseFolder(t *testing.T) {
	s := lab.Get(t, "data_directory")
	var before []map[string]string
	for _, d := range sourceTrees(s) {
		before = append(before, lab.HashTree(t, d))
	}
	for _, c := range []struct {
		name             string
		otherLink, noISL bool
	}{
		{"old .isl names the file", true, false},
		{"only the log names the file", false, false},
		// crash-sweep seed 1065: db2/t.isl is not there at all (the link stayed in db1 after
		// RENAME TABLE across databases); the server without crash recovery looks for
		// ./db2/t.ibd and loses the table.
		{"no .isl for the table", true, true},
	} {
		t.Run(c.name, func(t *testing.T) { sweep1006(t, s, c.otherLink, c.noISL) })
	}
	for i, d := range sourceTrees(s) {
		if !reflect.DeepEqual(before[i], lab.HashTree(t, d)) {
			t.Errorf("%s changed", d)
		}
	}
}

// sweep1006 makes the damaged directory (with old/remote.isl naming the file when otherLink,
// without db/remote.isl when noISL), recovers it with innoscope and judges the copy with the
// server.
func sweep1006(t *testing.T, s *lab.Scenario, otherLink, noISL bool) {
	base := t.TempDir()
	src := filepath.Join(base, "data")
	lab.CopyDir(t, s.Crashed, src)
	isl := filepath.Join(src, "db", "remote.isl")
	b, err := os.ReadFile(isl)
	if err != nil {
		t.Fatal(err)
	}
	file := strings.TrimSpace(string(b))
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("the scenario's %s names %s: %v", isl, file, err)
	}
	stale := filepath.Join(filepath.Dir(filepath.Dir(file)), "old", "remote.ibd")
	if err := os.WriteFile(isl, []byte(stale+"\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if noISL {
		if err := os.Remove(isl); err != nil {
			t.Fatal(err)
		}
	}
	if otherLink {
		if err := os.MkdirAll(filepath.Join(src, "old"), 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, "old", "remote.isl"), []byte(file+"\n"), 0o640); err != nil {
			t.Fatal(err)
		}
	}

	// diagnose says the table is linked to no file, with the file the log names, and does not
	// call the link a leftover the server ignores.
	out, errs, code := run("diagnose", "--json", src)
	var j diagnoseJSON
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("diagnose: exit %d: %v\n%s", code, err, errs)
	}
	mislinked := 0
	for _, f := range j.Findings {
		switch {
		case f.Code == "MISLINKED_TABLE" && f.Severity == finding.Warning && f.File == isl && strings.Contains(f.Message, discovery.ResolvePath(file)):
			mislinked++
		case f.Code == "STALE_ISL" && f.File == isl:
			t.Errorf("diagnose calls %s a stale link the server ignores: %s", isl, f.Message)
		case f.Severity == finding.Error:
			t.Errorf("diagnose: %s %s: %s (the server's crash recovery opens every table)", f.Code, f.File, f.Message)
		}
	}
	if mislinked != 1 {
		t.Errorf("diagnose: %d MISLINKED_TABLE warnings for %s naming %s, want 1: %+v", mislinked, isl, file, j.Findings)
	}

	cp := filepath.Join(base, "copy")
	out, errs, code = run("recover", src, "--into", cp)
	if code != ExitClean {
		t.Fatalf("recover: exit %d\n%s\n%s", code, out, errs)
	}
	t.Logf("recover: %s", errs)
	v := s.ServerVerdict(t, cp)
	t.Logf("server on the copy: started=%v crash_recovery=%v tables_ok=%v\n%s", v.Started, v.CrashRecovery, v.TablesOK, serverLines(t, v.ErrLog))
	if !v.Started || v.CrashRecovery || !v.TablesOK {
		t.Errorf("the server on innoscope's copy: started=%v crash_recovery=%v tables_ok=%v; its own crash recovery passed every table:\n%s",
			v.Started, v.CrashRecovery, v.TablesOK, v.Checks)
	}
	if want := s.Checksums(t); v.Checksums != want {
		t.Errorf("CHECKSUM TABLE on the copy:\n%s\nafter the server's own recovery:\n%s", v.Checksums, want)
	}
}

// TestSweep1050CopyLinksStayInCopy is crash-sweep seed 1050: an .isl whose copy named a file
// inside the source's data directory by its absolute path (the redirect of a stale link to the
// file the log names there) was copied as it was, so the copy pointed back into the source. Every
// .isl of a copy must name a file of the copy: here data_directory's crashed directory with one
// more link, naming one of its own datafiles by absolute path.
func TestSweep1050CopyLinksStayInCopy(t *testing.T) {
	s := lab.Get(t, "data_directory")
	base := t.TempDir()
	src := filepath.Join(base, "data")
	lab.CopyDir(t, s.Crashed, src)
	if err := os.WriteFile(filepath.Join(src, "db", "alias.isl"), []byte(filepath.Join(src, "db", "local.ibd")+"\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(base, "copy")
	if out, errs, code := run("recover", src, "--into", cp); code != ExitClean {
		t.Fatalf("recover: exit %d\n%s\n%s", code, out, errs)
	}
	links := 0
	filepath.WalkDir(cp, func(p string, e os.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(p, ".isl") {
			return err
		}
		b, _ := os.ReadFile(p)
		target := strings.TrimSpace(string(b))
		links++
		if !strings.HasPrefix(target, cp+"/") && !strings.HasPrefix(target, cp+".external/") {
			t.Errorf("%s names %s, outside the copy", p, target)
		}
		return nil
	})
	if links < 2 {
		t.Errorf("%d .isl files in the copy, want the scenario's and the added one", links)
	}
}

// TestSweep1006NoMissingFrmInDataDirectoryFolder is the dictionary side of crash-sweep seed
// 1006: db2.r with DATA DIRECTORY renamed to db1.r keeps its file in the DATA DIRECTORY's db2
// folder, and the log (a change after the checkpoint) names EXT/db2/r.ibd. diagnose read the
// dictionary after recovery by the log's file folder, renamed db1/r to db2/r and warned
// MISSING_FRM for db2/r.frm (the .frm is db1/r.frm, and the server opens the table). Made by
// the real server (islWorkload); no MISSING_FRM for any table the server's own recovery opens.
func TestSweep1006NoMissingFrmInDataDirectoryFolder(t *testing.T) {
	w := islCrash(t)
	checks, err := os.ReadFile(filepath.Join(w, "A.checks"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(checks), "db1.r\tOK") {
		t.Fatalf("the server's own recovery did not open db1.r:\n%s", checks)
	}
	j := diagnoseFindings(t, filepath.Join(w, "crashed"))
	for _, f := range j.Findings {
		if f.Code == "MISSING_FRM" {
			t.Errorf("diagnose: %s %s: %s (the server's own recovery opens every table: %q)", f.Code, f.File, f.Message, checks)
		}
	}
}
