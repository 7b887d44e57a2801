package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// datadirCommands are the commands that take a data directory, with the arguments each needs
// besides it (report writes into out, outside the data directory).
func datadirCommands(out string) [][]string {
	return [][]string{{"diagnose"}, {"verify"}, {"recover", "--dry-run"}, {"report", "--out", filepath.Join(out, "r.html")}, {"spaces"}}
}

// wantCouldNotRun fails the test unless r is exit 2 with one line on stderr holding each of want.
func wantCouldNotRun(t *testing.T, what string, r cliResult, want ...string) {
	t.Helper()
	ok := r.code == ExitError && strings.Count(strings.TrimSpace(r.stderr), "\n") == 0
	for _, w := range want {
		ok = ok && strings.Contains(r.stderr, w)
	}
	if !ok {
		t.Errorf("%s: exit %d, want 2 and one line with %q\n%s%s", what, r.code, want, r.stdout, r.stderr)
	}
}

// TestUnreadableDatadirAsNobody: a data directory innoscope may not read (mode 700, owned by
// root, innoscope run as nobody) made diagnose and verify say "mariadbd will refuse to start:
// LOG_UNREADABLE" (exit 1), blaming the server for innoscope's own limit. Every command taking a
// data directory now exits 2 with the OS error naming the file and what to do.
func TestUnreadableDatadirAsNobody(t *testing.T) {
	s := lab.Get(t, "dml")
	base := t.TempDir()
	nobody := asNobody(t, base)
	dir := filepath.Join(base, "d")
	lab.CopyDir(t, s.Crashed, dir)
	// The control: readable, nobody's diagnosis is root's.
	root := cliIn(t, base, hangLimit, nil, "diagnose", dir)
	r := cliIn(t, base, hangLimit, nobody, "diagnose", dir)
	if r.code != root.code || r.stdout != root.stdout || root.code == ExitError {
		t.Fatalf("readable copy: nobody's diagnose (exit %d) differs from root's (exit %d)\n%s%s\n%s", r.code, root.code, r.stdout, r.stderr, root.stdout)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	for _, c := range datadirCommands(t.TempDir()) {
		r := cliIn(t, base, hangLimit, nobody, append(c, dir)...)
		wantCouldNotRun(t, strings.Join(c, " "), r, filepath.Join(dir, "ib_logfile0")+": permission denied", "root or mysql")
	}
}

// TestUnreadableDatafileAsNobody: one .ibd innoscope may not read (mode 000, run as nobody)
// made diagnose say "mariadbd will start, but tables will fail: UNREADABLE_DATAFILE", though
// the server, running as mysql, may well read it. Now exit 2 naming the file. (Files unreadable
// for other reasons keep UNREADABLE_DATAFILE: TestSpecialFiles.)
func TestUnreadableDatafileAsNobody(t *testing.T) {
	s := lab.Get(t, "dml")
	base := t.TempDir()
	nobody := asNobody(t, base)
	dir := filepath.Join(base, "d")
	lab.CopyDir(t, s.Crashed, dir)
	ibd := filepath.Join(dir, "db", "t1.ibd")
	if err := os.Chmod(ibd, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(ibd, 0o644)
	for _, c := range datadirCommands(t.TempDir()) {
		r := cliIn(t, base, hangLimit, nobody, append(c, dir)...)
		wantCouldNotRun(t, strings.Join(c, " "), r, ibd+": permission denied", "root or mysql")
	}
	// The control: root reads it, and the diagnosis is not an error.
	if r := cliIn(t, base, hangLimit, nil, "diagnose", dir); r.code == ExitError {
		t.Errorf("diagnose as root: exit 2\n%s", r.stderr)
	}
}

// TestNotADataDirectoryPaths: an empty directory, or the parent of data directories given by
// mistake, was diagnosed as a data directory the server would refuse (LOG_UNREADABLE, or every
// subdirectory scanned: exit 1). Now exit 2: "not a data directory", naming the data
// directories a parent holds. A data directory whose system tablespace and log are elsewhere
// (innodb_data_home_dir, innodb_log_group_home_dir) and whose mysql directory is gone is still
// one.
func TestNotADataDirectoryPaths(t *testing.T) {
	s := lab.Get(t, "dml")
	base := t.TempDir()
	dir := filepath.Join(base, "d")
	lab.CopyDir(t, s.Crashed, dir)
	empty := filepath.Join(base, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	// A parent that also holds a link to a database directory of one of them is no data
	// directory either (it was read as one, with every sibling's files; new-user trial).
	if err := os.Symlink(filepath.Join(dir, "db"), filepath.Join(base, "inlink")); err != nil {
		t.Fatal(err)
	}
	for _, c := range datadirCommands(t.TempDir()) {
		r := cliIn(t, base, hangLimit, nil, append(c, empty)...)
		wantCouldNotRun(t, strings.Join(c, " ")+" EMPTY", r, empty+": not a data directory", "no ibdata1", "no ib_logfile0")
		r = cliIn(t, base, hangLimit, nil, append(c, base)...)
		wantCouldNotRun(t, strings.Join(c, " ")+" PARENT", r, base+": not a data directory", "holds data directories: "+dir)
	}
	// log still takes a directory holding ib_logfile0 alone.
	logOnly := filepath.Join(base, "logonly")
	lab.CopyDir(t, filepath.Join(dir, "db"), logOnly) // any directory; then the log
	b, err := os.ReadFile(filepath.Join(dir, "ib_logfile0"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(logOnly, "ib_logfile0"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := cliIn(t, base, hangLimit, nil, "log", "stats", logOnly); r.code == ExitError {
		t.Errorf("log stats of a directory with ib_logfile0: exit 2\n%s", r.stderr)
	}
	// The system tablespace and the log elsewhere, no mysql directory: still a data directory.
	want := cliIn(t, base, hangLimit, nil, "diagnose", dir)
	sys, logs := filepath.Join(base, "sys"), filepath.Join(base, "logs")
	for _, m := range [][2]string{{filepath.Join(dir, "ibdata1"), filepath.Join(sys, "ibdata1")}, {filepath.Join(dir, "ib_logfile0"), filepath.Join(logs, "ib_logfile0")}} {
		os.MkdirAll(filepath.Dir(m[1]), 0o755)
		if err := os.Rename(m[0], m[1]); err != nil {
			t.Fatal(err)
		}
	}
	flags := []string{"--innodb-data-home-dir", sys, "--innodb-log-group-home-dir", logs}
	if r := cliIn(t, base, hangLimit, nil, append(append([]string{"diagnose"}, flags...), dir)...); r.code != want.code {
		t.Errorf("diagnose with the system tablespace and log elsewhere: exit %d, want %d as in place\n%s%s", r.code, want.code, r.stdout, r.stderr)
	}
	if err := os.RemoveAll(filepath.Join(dir, "mysql")); err != nil {
		t.Fatal(err)
	}
	if r := cliIn(t, base, hangLimit, nil, append(append([]string{"diagnose"}, flags...), dir)...); r.code == ExitError {
		t.Errorf("diagnose with the system tablespace and log elsewhere and no mysql directory: exit 2\n%s", r.stderr)
	}
	// Without the flags it holds only a database directory of datafiles: still diagnosed (as
	// TestUnusableLogAgainstServer's copied_datafiles_only), the missing files as findings.
	if r := cliIn(t, base, hangLimit, nil, "diagnose", dir); r.code != ExitFindings || !strings.Contains(r.stdout, "LOG_UNREADABLE") {
		t.Errorf("diagnose without the layout flags: exit %d, want 1 and LOG_UNREADABLE\n%s%s", r.code, r.stdout, r.stderr)
	}
}
