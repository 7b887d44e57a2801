package cmd

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"innoscope/discovery"
	"innoscope/internal/lab"
)

// hangLimit is how long a command may take on these small directories before the test calls
// it a hang (they take a second or two; the machine is shared).
const hangLimit = 60 * time.Second

// mkfifo replaces path (if it exists) by a FIFO.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	os.Remove(path)
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyScenario copies the scenario's crashed directory to a new directory and returns it.
func copyScenario(t *testing.T, s *lab.Scenario) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "d")
	lab.CopyDir(t, s.Crashed, dir)
	return dir
}

// TestFIFOs: a FIFO as ib_logfile0, as ibdata1, as the target of an .isl, as the pages
// argument and as an .isl file. Opening a FIFO for reading waits for a writer, so every command that opened one
// hung; now each returns at once with exit 2, or a finding, naming the file and saying "not a
// regular file (a FIFO)".
func TestFIFOs(t *testing.T) {
	const want = "not a regular file (a FIFO)"
	check := func(t *testing.T, dir, file string, mustNameIt bool, args ...string) {
		t.Helper()
		r := cliIn(t, dir, hangLimit, nil, args...)
		both := r.stdout + r.stderr
		switch {
		case r.code == ExitClean && mustNameIt:
			t.Errorf("innoscope %v: exit 0 with %s a FIFO\n%s", args, file, both)
		case mustNameIt && !strings.Contains(both, file+": "+want):
			t.Errorf("innoscope %v: exit %d, does not say %q\n%s", args, r.code, file+": "+want, both)
		}
	}
	dirCommands := [][]string{{"log", "header"}, {"log", "records"}, {"log", "stats"}, {"map"}, {"spaces"},
		{"diagnose", "--skip-pages"}, {"diagnose"}, {"verify"}, {"recover", "--into"}}
	dml := lab.Get(t, "dml")
	t.Run("ib_logfile0", func(t *testing.T) {
		dir := copyScenario(t, dml)
		log := filepath.Join(dir, "ib_logfile0")
		mkfifo(t, log)
		for _, c := range dirCommands {
			args := append(append([]string{}, c...), dir)
			if c[0] == "recover" {
				args = append([]string{"recover", dir, "--into"}, filepath.Join(t.TempDir(), "copy"))
			}
			check(t, dir, log, c[0] != "spaces", args...)
		}
		check(t, dir, log, true, "log", "header", log)
	})
	t.Run("ibdata1", func(t *testing.T) {
		dir := copyScenario(t, dml)
		sys := filepath.Join(dir, "ibdata1")
		mkfifo(t, sys)
		for _, c := range dirCommands {
			args := append(append([]string{}, c...), dir)
			if c[0] == "recover" {
				args = append([]string{"recover", dir, "--into"}, filepath.Join(t.TempDir(), "copy"))
			}
			check(t, dir, sys, c[0] != "log" && c[0] != "map", args...) // the log reads only its page size there
		}
		check(t, dir, sys, true, "pages", sys)
	})
	t.Run("isl-target", func(t *testing.T) {
		s := lab.Get(t, "data_directory")
		dir := copyScenario(t, s)
		// As DATA DIRECTORY lays it out: ROOT/db/remote.ibd (ROOT is a source location recover
		// keeps the copy out of).
		target := filepath.Join(t.TempDir(), "db", "remote.ibd")
		if err := os.Mkdir(filepath.Dir(target), 0o755); err != nil {
			t.Fatal(err)
		}
		mkfifo(t, target)
		if err := os.WriteFile(filepath.Join(dir, "db", "remote.isl"), []byte(target), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, c := range [][]string{{"spaces"}, {"diagnose"}, {"verify"}} {
			check(t, dir, target, true, append(c, dir)...)
		}
		check(t, dir, target, true, "recover", dir, "--into", filepath.Join(t.TempDir(), "copy"))
		check(t, dir, target, true, "pages", target)
	})
	t.Run("isl", func(t *testing.T) { // the .isl file itself
		s := lab.Get(t, "data_directory")
		dir := copyScenario(t, s)
		isl := filepath.Join(dir, "db", "remote.isl")
		mkfifo(t, isl)
		for _, c := range [][]string{{"spaces"}, {"diagnose"}, {"verify"}} {
			check(t, dir, isl, true, append(c, dir)...)
		}
	})
}

// TestScanSpecialEntries: the scan of a directory holding a cycle of directory links, a FIFO
// named like a datafile and a link to nothing ends, and lists each odd datafile with the
// reason it cannot be read (crafted: a server never leaves these, a user or a copy tool may).
func TestScanSpecialEntries(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "db")
	os.Mkdir(db, 0o755)
	os.Symlink("..", filepath.Join(db, "up"))
	os.Symlink(db, filepath.Join(db, "self"))
	mkfifo(t, filepath.Join(db, "fifo.ibd"))
	os.Symlink(filepath.Join(dir, "nothing.ibd"), filepath.Join(db, "dangling.ibd"))
	done := make(chan []discovery.Tablespace)
	go func() {
		ts, _ := discovery.Scan(discovery.Layout{Datadir: dir})
		done <- ts
	}()
	var ts []discovery.Tablespace
	select {
	case ts = <-done:
	case <-time.After(hangLimit):
		t.Fatal("Scan hangs")
	}
	errs := map[string]string{}
	for _, x := range ts {
		errs[x.Path] = x.Error
	}
	for p, want := range map[string]string{filepath.Join(db, "fifo.ibd"): "not a regular file (a FIFO)",
		filepath.Join(db, "dangling.ibd"): "no such file or directory"} {
		if !strings.Contains(errs[p], want) {
			t.Errorf("%s: error %q, want %q (all: %v)", p, errs[p], want, errs)
		}
	}
}

// asNobody returns the command line that runs a copy of the test binary as the unprivileged
// user nobody (the tests run as root, whom no permission stops), and makes base and its parent
// searchable. It skips the test without root or setpriv.
func asNobody(t *testing.T, base string) []string {
	t.Helper()
	sp, err := exec.LookPath("setpriv")
	if err != nil || os.Geteuid() != 0 {
		t.Skip("needs root and setpriv to run innoscope as nobody")
	}
	for _, d := range []string{filepath.Dir(base), base} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	bin := filepath.Join(base, "innoscope.test")
	out, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	out.Close()
	return []string{sp, "--reuid=65534", "--regid=65534", "--clear-groups", bin}
}

// TestUnreadableDirectory: a database directory innoscope may not read (EACCES; run as nobody).
// spaces omitted its files silently and diagnose reported them missing without naming the
// permission problem. Then an UNREADABLE_DATAFILE error named it, which blamed the server
// (running as mysql) for innoscope's own limit; now every command taking a data directory exits
// 2 naming the directory and the OS error (TestUnreadableDatafileAsNobody for a file).
// With the whole data directory unreadable, the log commands said "no redo log" instead of
// the OS error; and a loop of links as ib_logfile0 (ELOOP) likewise.
func TestUnreadableDirectory(t *testing.T) {
	s := lab.Get(t, "dml")
	base := t.TempDir()
	nobody := asNobody(t, base)
	dir := filepath.Join(base, "d")
	lab.CopyDir(t, s.Crashed, dir)
	db := filepath.Join(dir, "db")
	if err := os.Chmod(db, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(db, 0o755)
	for _, c := range [][]string{{"spaces"}, {"diagnose"}} {
		r := cliIn(t, base, hangLimit, nobody, append(c, dir)...)
		wantCouldNotRun(t, c[0], r, "open "+db+": permission denied")
	}
	// The whole data directory unreadable: the OS error, not "no redo log".
	if err := os.Chmod(dir, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	for _, c := range [][]string{{"log", "header"}, {"log", "stats"}, {"map"}, {"recover", "--dry-run"}, {"diagnose"}} {
		r := cliIn(t, base, hangLimit, nobody, append(c, dir)...)
		if want := filepath.Join(dir, "ib_logfile0") + ": permission denied"; r.code != ExitError || !strings.Contains(r.stderr, want) {
			t.Errorf("%v of an unreadable data directory: exit %d, want 2 and %q\n%s", c, r.code, want, r.stderr)
		}
	}
	os.Chmod(dir, 0o755)
	// A loop of links as ib_logfile0.
	loop := t.TempDir()
	lab.CopyDir(t, s.Crashed, filepath.Join(loop, "d"))
	log := filepath.Join(loop, "d", "ib_logfile0")
	os.Remove(log)
	os.Symlink(log, log)
	r := cliIn(t, loop, hangLimit, nil, "log", "header", "d")
	if want := log + ": too many levels of symbolic links"; r.code != ExitError || !strings.Contains(r.stderr, want) {
		t.Errorf("log header with ib_logfile0 a loop of links: exit %d, want 2 and %q\n%s", r.code, want, r.stderr)
	}
}

// findingJSON is a finding as printed (finding.Finding with its severity as text).
type findingJSON struct {
	Severity string `json:"severity"`
	Code     string `json:"code"`
	File     string `json:"file"`
	Message  string `json:"message"`
}
