package cmd

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/finding"
	"innoscope/internal/lab"
)

// TestSweep1315FilesTheLogCreates: crash-sweep seed 1315 was killed between the redo log's
// FILE_CREATE of ./db1/s2t2#P#p0#TMP#.ibd (with the records that build its page 0) and the
// file's creation; diagnose said MISSING_FILE (error: "the server refuses to start"), while the
// server's recovery creates such a file from the log. Made here from compressed_new (tables
// created after the checkpoint, ROW_FORMAT=COMPRESSED of every KEY_BLOCK_SIZE among them) by
// removing every file the log creates: the server's own recovery rebuilds them all. diagnose
// reports no error or warning, and the server on recover's copy agrees with its own recovery.
func TestSweep1315FilesTheLogCreates(t *testing.T) {
	s := lab.Get(t, "compressed_new")
	d := filepath.Join(t.TempDir(), "crashed")
	lab.CopyDir(t, s.Crashed, d)
	out, errs, code := run("log", "records", "--type", "FILE_CREATE", "--json", d)
	if code != ExitClean {
		t.Fatalf("log records: exit %d\n%s", code, errs)
	}
	removed := 0
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var r struct{ Name string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("log records: %v: %s", err, sc.Text())
		}
		if err := os.Remove(filepath.Join(d, r.Name)); err == nil {
			removed++
		}
	}
	if removed == 0 {
		t.Fatal("the log creates no file that is on disk; the case is not made")
	}
	j := diagnoseFindings(t, d)

	a := filepath.Join(t.TempDir(), "A")
	lab.CopyDir(t, d, a)
	va := s.ServerVerdict(t, a)
	if !va.Started || !va.CrashRecovery || !va.TablesOK {
		t.Fatalf("the server's own recovery without the %d files: started=%v crash_recovery=%v tables_ok=%v; the case is not made\n%s",
			removed, va.Started, va.CrashRecovery, va.TablesOK, serverLines(t, va.ErrLog))
	}
	for _, x := range j.Findings {
		if x.Severity >= finding.Warning {
			t.Errorf("diagnose: %s %s %s: %s (the server recovers and every table passes CHECK TABLE)", x.Severity, x.Code, x.File, x.Message)
		}
	}

	cp := filepath.Join(t.TempDir(), "copy")
	if out, errs, code := run("recover", d, "--into", cp); code != ExitClean {
		t.Fatalf("recover: exit %d\n%s\n%s", code, out, errs)
	}
	vb := s.ServerVerdict(t, cp)
	if !vb.Started || vb.CrashRecovery || vb.Checks != va.Checks || vb.Checksums != va.Checksums {
		t.Errorf("the server on the copy: started=%v crash_recovery=%v\nCHECK %s / %s\nCHECKSUM %s / %s",
			vb.Started, vb.CrashRecovery, vb.Checks, va.Checks, vb.Checksums, va.Checksums)
	}
	if extra := errorsOnlyIn(t, vb.ErrLog, va.ErrLog); len(extra) > 0 {
		t.Errorf("the server on the copy logged errors its own recovery did not: %q", extra)
	}
}
