package cmd

import (
	"os"
	"path/filepath"
	"testing"

	"innoscope/internal/lab"
)

// TestSweep13201StaleLinkOnly is crash-sweep seed 13201 (MariaDB 11.8): the crash left two .isl
// files whose DATA DIRECTORY files were gone (MariaDB leaves a link behind when a rename moves
// such a table to another database), and no other file in that external directory. The server's
// recovery ignores such links and every table passed CHECK TABLE; `recover` rewrote the links
// into the copy's external directory, which it never made as nothing was copied there, and the
// copy's diagnosis took the absent directory for an unreadable one: "tables will fail:
// UNREADABLE_DATAFILE", exit 1, a false alarm. Here a crash of the lab gets such a link (its
// directory exists, its file does not): the server's own recovery of the directory is the
// judge, and recover's copy must say what it says, and give the same CHECK TABLE.
func TestSweep13201StaleLinkOnly(t *testing.T) {
	s := lab.Get(t, "dml")
	src := copyScenario(t, s)
	ext := filepath.Join(t.TempDir(), "ext")
	if err := os.MkdirAll(filepath.Join(ext, "db"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "db", "gone.isl"), []byte(filepath.Join(ext, "db", "gone.ibd")+"\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	a := filepath.Join(t.TempDir(), "a")
	lab.CopyDir(t, src, a)
	va := s.ServerVerdict(t, a)
	if !va.Started {
		t.Skipf("the server refused this generation of the crash: %s", va.ErrLog)
	}
	b := filepath.Join(t.TempDir(), "b")
	out, errs, code := run("recover", src, "--into", b)
	switch {
	case va.TablesOK && code != ExitClean:
		t.Errorf("every table passes CHECK TABLE after the server's recovery; recover exits %d:\n%s\n%s", code, out, errs)
	case !va.TablesOK && code != ExitFindings:
		t.Errorf("a table fails CHECK TABLE after the server's recovery; recover exits %d:\n%s\n%s", code, out, errs)
	}
	if code == ExitError {
		return
	}
	vb := s.ServerVerdict(t, b)
	if !vb.Started || vb.CrashRecovery || vb.Checks != va.Checks {
		t.Errorf("the server on recover's copy: started=%v crash_recovery=%v; CHECK TABLE:\n%s\nthe server's own recovery:\n%s", vb.Started, vb.CrashRecovery, vb.Checks, va.Checks)
	}
}
