package cmd

import (
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"innoscope/discovery"
	"innoscope/internal/lab"

	"golang.org/x/sys/unix"
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

// specialKinds are the file types innoscope must refuse where it reads a file, with the words
// it names them in, and how the test makes one at a path.
var specialKinds = []struct {
	kind string
	make func(t *testing.T, path string)
}{
	{"a FIFO", mkfifo},
	{"a socket", func(t *testing.T, path string) {
		os.Remove(path)
		l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
		if err != nil {
			t.Fatal(err)
		}
		l.SetUnlinkOnClose(false)
		l.Close()
	}},
	{"a character device", func(t *testing.T, path string) { mknod(t, path, syscall.S_IFCHR, 1, 5) }}, // /dev/zero: reads never end
	{"a block device", func(t *testing.T, path string) { mknod(t, path, syscall.S_IFBLK, 7, 0) }},     // loop0
	{"a directory", func(t *testing.T, path string) {
		os.Remove(path)
		if err := os.Mkdir(path, 0o755); err != nil {
			t.Fatal(err)
		}
	}},
}

// mknod replaces path by a device node (root only: the test skips without it).
func mknod(t *testing.T, path string, typ uint32, major, minor int) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("device nodes need root")
	}
	os.Remove(path)
	if err := syscall.Mknod(path, typ|0o644, int(unix.Mkdev(uint32(major), uint32(minor)))); err != nil {
		t.Fatal(err)
	}
}

// TestSpecialFiles: every file innoscope opens, made each special file type in turn (a FIFO,
// a socket, /dev/zero's device, a block device, a directory), stops no command: each returns
// at once without a panic, and where the file is needed names it and what it is ("not a
// regular file (a FIFO)"); a directory given to !include is skipped, as the server skips it.
// Before, --defaults-file, !include and !includedir of a FIFO, a FIFO .frm and report --out
// onto a FIFO hung (mariadbd --print-defaults hangs on the same my.cnf: its own files are its
// problem, innoscope names them), a character device as a .frm was read for ever, and recover
// --into, --external-dir and verify --keep naming a FIFO hung.
func TestSpecialFiles(t *testing.T) {
	type use struct {
		name     string
		scenario string
		file     string // relative to the copy's data directory, or to a scratch directory when cnf
		cnf      string // the my.cnf written into the scratch directory ("": none); FILE is file's path
		args     []string
		mustName bool
		// warns: the file is named in a warning finding (exit 0 allowed); dirOK: a directory
		// there is passed over (the scan lists only files); dir: a directory innoscope makes
		// or writes into ("not a directory (a FIFO)"; a directory there is no special file).
		warns, dirOK, dir bool
	}
	uses := []use{
		{name: "ib_logfile0", scenario: "dml", file: "ib_logfile0", args: []string{"log", "header", "DIR"}, mustName: true},
		{name: "ibdata1", scenario: "dml", file: "ibdata1", args: []string{"diagnose", "DIR"}, mustName: true},
		{name: "ibd", scenario: "dml", file: "db/t1.ibd", args: []string{"spaces", "DIR"}, mustName: true, dirOK: true},
		{name: "frm", scenario: "clean", file: "db/t.frm", args: []string{"rows", "DIR", "db.t"}, mustName: true},
		{name: "frm-diagnose", scenario: "clean", file: "db/t.frm", args: []string{"diagnose", "DIR"}},
		{name: "par", scenario: "tmp_partition", file: "db/ph.par", args: []string{"rows", "--allow-live", "DIR", "db.ph"}},
		{name: "ddl_recovery.log", scenario: "dml", file: "ddl_recovery.log", args: []string{"diagnose", "DIR"}, mustName: true, warns: true},
		{name: "defaults-file", scenario: "clean", file: "my.cnf", args: []string{"spaces", "--defaults-file", "FILE"}, mustName: true},
		{name: "include", scenario: "clean", file: "inc.cnf", cnf: "[mysqld]\ndatadir=DIR\n!include FILE\n", args: []string{"spaces", "--defaults-file", "CNF"}, mustName: true},
		{name: "includedir", scenario: "clean", file: "conf.d/x.cnf", cnf: "[mysqld]\ndatadir=DIR\n!includedir SCRATCH/conf.d\n", args: []string{"spaces", "--defaults-file", "CNF"}, mustName: true},
		{name: "report-out", scenario: "clean", file: "r.html", args: []string{"report", "DIR", "--out", "FILE"}, mustName: true},
		{name: "into", scenario: "clean", file: "copy", args: []string{"recover", "DIR", "--into", "FILE"}, mustName: true, dir: true},
		{name: "into-dry-run", scenario: "clean", file: "copy", args: []string{"recover", "DIR", "--dry-run", "--into", "FILE"}, mustName: true, dir: true},
		{name: "external-dir", scenario: "clean", file: "ext", args: []string{"recover", "DIR", "--into", "SCRATCH/copy", "--external-dir", "FILE"}, mustName: true, dir: true},
		{name: "keep", scenario: "clean", file: "keep", args: []string{"verify", "DIR", "--keep", "FILE"}, mustName: true, dir: true},
	}
	for _, u := range uses {
		t.Run(u.name, func(t *testing.T) {
			s := lab.Get(t, u.scenario)
			for _, k := range specialKinds {
				t.Run(strings.ReplaceAll(k.kind, " ", "_"), func(t *testing.T) {
					dir := copyScenario(t, s)
					scratch := t.TempDir()
					path := filepath.Join(dir, u.file)
					if u.file == "my.cnf" || u.cnf != "" || u.name == "report-out" || u.dir {
						path = filepath.Join(scratch, u.file)
					}
					os.MkdirAll(filepath.Dir(path), 0o755)
					cnf := filepath.Join(scratch, "main.cnf")
					repl := strings.NewReplacer("DIR", dir, "FILE", path, "SCRATCH", scratch, "CNF", cnf)
					if u.cnf != "" {
						if err := os.WriteFile(cnf, []byte(repl.Replace(u.cnf)), 0o644); err != nil {
							t.Fatal(err)
						}
					}
					k.make(t, path)
					var args []string
					for _, a := range u.args {
						args = append(args, repl.Replace(a))
					}
					r := cliIn(t, scratch, hangLimit, nil, args...)
					both := r.stdout + r.stderr
					if strings.Contains(both, "panic:") || strings.Contains(both, "goroutine ") {
						t.Fatalf("innoscope %v with %s %s: exit %d\n%s", args, u.file, k.kind, r.code, both)
					}
					skipped := k.kind == "a directory" && (u.name == "include" || u.name == "includedir" || u.dirOK)
					want := path + ": not a regular file (" + k.kind + ")"
					if u.dir {
						if k.kind == "a directory" {
							return // a directory is what belongs there
						}
						want = path + ": not a directory (" + k.kind + ")"
					}
					switch {
					case skipped && r.code == ExitError:
						t.Errorf("innoscope %v with %s a directory (mariadbd skips it): exit 2\n%s", args, u.file, both)
					case !skipped && u.mustName && (r.code == ExitClean && !u.warns || !strings.Contains(both, want)):
						t.Errorf("innoscope %v with %s %s: exit %d, does not say %q\n%s", args, u.file, k.kind, r.code, want, both)
					}
				})
			}
		})
	}
}
