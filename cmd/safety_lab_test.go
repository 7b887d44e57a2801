package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"innoscope/finding"
	"innoscope/internal/lab"
	"innoscope/logformat"
	"innoscope/replay"
)

// launchServer starts mariadbd on dir as scripts/mariadb-lab.sh does (own socket, no network)
// and returns it, its socket and error log, and a channel that gets its exit.
func launchServer(t *testing.T, dir string, opts ...string) (*exec.Cmd, string, string, chan error) {
	t.Helper()
	return launchServerOn(t, lab.MariaDB1011, dir, opts...)
}

// launchServerOn is launchServer with the lab server v (Require called).
func launchServerOn(t *testing.T, v *lab.Server, dir string, opts ...string) (*exec.Cmd, string, string, chan error) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "s.sock")
	errLog := filepath.Join(t.TempDir(), "server.err")
	args := append([]string{"--no-defaults", "--datadir=" + dir, "--user=root", "--socket=" + sock,
		"--skip-networking", "--log-error=" + errLog}, opts...)
	srv := v.Command("mariadbd", args...)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Wait() }()
	return srv, sock, errLog, done
}

// answers reports whether a server answers on sock.
func answers(sock string) bool {
	return exec.Command("mariadb", "--no-defaults", "-S", sock, "-uroot", "-e", "select 1").Run() == nil
}

// startServer starts mariadbd on dir (as scripts/mariadb-lab.sh start does) and waits until it
// answers on its socket; it returns the running process.
func startServer(t *testing.T, dir string, opts ...string) *exec.Cmd {
	t.Helper()
	srv, sock, errLog, done := launchServer(t, dir, opts...)
	for i := 0; i < 600; i++ {
		if answers(sock) {
			t.Cleanup(func() {
				srv.Process.Kill()
				<-done
			})
			return srv
		}
		select {
		case err := <-done:
			b, _ := os.ReadFile(errLog)
			t.Fatalf("mariadbd on %s exited: %v\n%s", dir, err, b)
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatalf("mariadbd on %s did not answer", dir)
	return nil
}

// findingCodes runs a --json command and returns its findings by code.
func findingCodes(t *testing.T, args ...string) (map[string]finding.Finding, int) {
	t.Helper()
	out, errs, code := run(args...)
	var j struct {
		Findings []finding.Finding `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("%v: exit %d, %v\n%s\n%s", args, code, err, out, errs)
	}
	m := map[string]finding.Finding{}
	for _, f := range j.Findings {
		m[f.Code] = f
	}
	return m, code
}

// TestServerRunning starts the real server on a copy of a crashed lab directory: diagnose and
// the log commands report SERVER_RUNNING with its pid (from the fcntl lock InnoDB holds on
// ibdata1), recover, verify and rows refuse (exit 2) and create nothing; recover --allow-live
// makes the copy with a LIVE_SOURCE warning naming the server (before, it said nothing of it). After the server is killed
// (its pid file stays behind, naming a dead process), nothing reports a running server.
func TestServerRunning(t *testing.T) {
	s := lab.Get(t, "dml")
	dir := filepath.Join(t.TempDir(), "live")
	lab.CopyDir(t, s.Crashed, dir)
	srv := startServer(t, dir, s.Options...)
	pid := fmt.Sprint(srv.Process.Pid)
	check := func(live bool) {
		for _, args := range [][]string{{"diagnose", "--skip-pages"}, {"log", "stats"}, {"log", "header"}} {
			fs, code := findingCodes(t, append(args, "--json", dir)...)
			f, ok := fs["SERVER_RUNNING"]
			if ok != live || live && (code != ExitFindings || f.Severity != finding.Error || !strings.Contains(f.Message, "pid "+pid)) {
				t.Errorf("%v (server running: %v): exit %d, SERVER_RUNNING %v %+v", args, live, code, ok, f)
			}
		}
	}
	check(true)
	out := filepath.Join(t.TempDir(), "copy")
	for _, args := range [][]string{{"recover", dir, "--into", out}, {"recover", dir, "--dry-run"}, {"verify", dir, "--keep", out}, {"rows", dir, "db.t"}} {
		_, errs, code := run(args...)
		if code != ExitError || !strings.Contains(errs, "SERVER_RUNNING") || !strings.Contains(errs, "pid "+pid) {
			t.Errorf("%v on a running server: exit %d, %q", args, code, errs)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v created %s", args, out)
		}
	}
	// With --allow-live the copy is made, and said to come from a running server.
	fs, code := findingCodes(t, "recover", dir, "--into", out, "--allow-live", "--json")
	if f, ok := fs["LIVE_SOURCE"]; code == ExitError || !ok || f.Severity != finding.Warning || !strings.Contains(f.Message, "pid "+pid) {
		t.Errorf("recover --allow-live of a running server's directory: exit %d, LIVE_SOURCE %v %+v", code, ok, f)
	}
	os.RemoveAll(out)
	srv.Process.Signal(syscall.SIGKILL)
	time.Sleep(500 * time.Millisecond)
	if pids, _ := filepath.Glob(filepath.Join(dir, "*.pid")); len(pids) == 0 {
		t.Log("no pid file was left behind")
	}
	check(false)
	if _, errs, code := run("recover", dir, "--into", out); code != ExitClean {
		t.Errorf("recover after the server was killed: exit %d, %s", code, errs)
	}
}

// tryServer starts mariadbd on dir and reports whether it came up (then it is killed) or
// exited, with its error log.
func tryServer(t *testing.T, dir string, opts ...string) (bool, string) {
	t.Helper()
	srv, sock, errLog, done := launchServer(t, dir, opts...)
	read := func() string { b, _ := os.ReadFile(errLog); return string(b) }
	for i := 0; i < 600; i++ {
		if answers(sock) {
			srv.Process.Kill()
			<-done
			return true, read()
		}
		select {
		case <-done:
			return false, read()
		case <-time.After(100 * time.Millisecond):
		}
	}
	srv.Process.Kill()
	<-done
	return false, read()
}

// TestRecoverKilledCopyUnstartable kills recover (SIGKILL, delivered by strace as the process
// enters a named file operation on its copy, so where it dies does not depend on timing) at
// points of a recovery of the DATA DIRECTORY scenario: right after the copy is marked (before its
// placeholder log exists), when the copy's ibdata1 is first opened, when the external datafile is
// first opened, after the whole replay just before the recovered log is written (the commit
// point), and after the commit point as the marker is removed. Before the commit point the server
// started on the half-made copy refuses it (the copy's redo log is not valid until the end), and
// nothing ever touches the source or its external directory (before, the copy's .isl pointed into
// the source until the end and the server's recovery wrote there). After it, the copy is whole:
// the server starts on it without crash recovery and gives its own recovery's CHECKSUM TABLE,
// while the marker left behind still makes a second run refuse the copy.
func TestRecoverKilledCopyUnstartable(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace is not installed (scripts/mariadb-lab.sh install installs it)")
	}
	s := lab.Get(t, "data_directory")
	_, onCopy := splitOptions(s.Options)
	var before []map[string]string
	for _, d := range sourceTrees(s) {
		before = append(before, lab.HashTree(t, d))
	}
	isl, _ := filepath.Glob(filepath.Join(s.Crashed, "db", "*.isl"))
	if len(isl) == 0 {
		t.Fatal("the scenario has no .isl file")
	}
	rel, _ := filepath.Rel(s.Crashed, isl[0])
	ext := strings.TrimSuffix(rel, ".isl") + ".ibd"
	base := t.TempDir()
	for _, p := range []struct {
		name     string
		path     func(copyDir string) string // the file whose first operation ...
		syscalls string                      // ... of these kills the run
		whole    bool                        // the kill comes after the commit point
	}{
		{"marked", func(d string) string { return filepath.Join(d, "ib_logfile0") }, "all", false},
		{"ibdata1 opened", func(d string) string { return filepath.Join(d, "ibdata1") }, "all", false},
		{"external file opened", func(d string) string { return filepath.Join(d+".external", "1", ext) }, "all", false},
		// The recovered log is written to a temporary file renamed over the placeholder (the
		// commit point): the rename is killed before it runs.
		{"before the commit point", func(d string) string { return filepath.Join(d, "ib_logfile0") }, "rename,renameat,renameat2", false},
		{"after the commit point", func(d string) string { return filepath.Join(d, replay.IncompleteMarker) }, "unlink,unlinkat", true},
	} {
		t.Run(strings.ReplaceAll(p.name, " ", "_"), func(t *testing.T) {
			copyDir := filepath.Join(base, strings.ReplaceAll(p.name, " ", "_"))
			c := exec.Command("strace", "-f", "-qq", "-o", "/dev/null", "-P", p.path(copyDir),
				"-e", "inject="+p.syscalls+":signal=KILL:when=1",
				os.Args[0], "--", "recover", s.Crashed, "--into", copyDir)
			c.Env = append(os.Environ(), "INNOSCOPE_AS_CLI=1")
			out, err := c.CombinedOutput()
			// strace ends itself with the signal that ended the command.
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != -1 || !strings.Contains(ee.Error(), "killed") {
				t.Fatalf("recover under strace was not killed at %q: %v\n%s", p.name, err, out)
			}
			if _, err := os.Stat(filepath.Join(copyDir, replay.IncompleteMarker)); err != nil {
				t.Fatalf("killed at %q: the copy is not marked incomplete: %v", p.name, err)
			}
			if b, err := os.ReadFile(filepath.Join(copyDir, rel)); err == nil && strings.Contains(string(b), s.Dir) {
				t.Errorf("killed at %q: the copy's %s points into the source: %s", p.name, rel, b)
			}
			_, errs, code := run("recover", s.Crashed, "--into", copyDir)
			if code != ExitError || !strings.Contains(errs, "interrupted recovery") {
				t.Errorf("killed at %q: a second run on the copy: exit %d, %s", p.name, code, errs)
			}
			if p.whole {
				v := s.ServerVerdict(t, copyDir)
				if !v.Started || v.CrashRecovery || !v.TablesOK || v.Checksums != s.Checksums(t) {
					t.Errorf("killed at %q: the server on the finished copy: started=%v crash_recovery=%v tables_ok=%v\n%s\n%s",
						p.name, v.Started, v.CrashRecovery, v.TablesOK, v.Checksums, serverLines(t, v.ErrLog))
				}
			} else {
				started, errLog := tryServer(t, copyDir, onCopy...)
				if started {
					t.Errorf("killed at %q: the server started on the half-made copy", p.name)
				}
				t.Logf("killed at %q: server started %v; %s", p.name, started, lastLines(errLog, "ERROR", 2))
			}
			for i, d := range sourceTrees(s) {
				if !mapsEqual(before[i], lab.HashTree(t, d)) {
					t.Fatalf("killed at %q: the server on the copy changed the source %s", p.name, d)
				}
			}
		})
	}
}

// lastLines returns up to n lines of log that contain word, joined.
func lastLines(log, word string, n int) string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, word) {
			out = append(out, l)
		}
	}
	if len(out) > n {
		out = out[:n]
	}
	return strings.Join(out, " | ")
}

// TestRecoverRefusesTargetInExternalDir: a copy or an external directory inside the source's
// DATA DIRECTORY location (which recover reads) is refused before anything is written.
func TestRecoverRefusesTargetInExternalDir(t *testing.T) {
	s := lab.Get(t, "data_directory")
	isl, _ := filepath.Glob(filepath.Join(s.Crashed, "db", "*.isl"))
	if len(isl) == 0 {
		t.Fatal("the scenario has no .isl file")
	}
	b, err := os.ReadFile(isl[0])
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(filepath.Dir(strings.TrimSpace(string(b))))
	before := lab.HashTree(t, root)
	t.Cleanup(func() { // a regression must not leave copies in the shared lab directory
		for _, p := range []string{"copy", "copy.external", "db/copy", "db/copy.external", "x"} {
			os.RemoveAll(filepath.Join(root, p))
		}
	})
	for _, args := range [][]string{
		{"--into", filepath.Join(root, "copy")},
		{"--into", filepath.Join(root, "db", "copy")},
		{"--into", filepath.Join(t.TempDir(), "c"), "--external-dir", filepath.Join(root, "x")},
	} {
		_, errs, code := run(append([]string{"recover", s.Crashed}, args...)...)
		if code != ExitError || !strings.Contains(errs, "overlaps the source location") {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
	if !mapsEqual(before, lab.HashTree(t, root)) {
		t.Error("the external directory changed")
	}
	for _, p := range []string{filepath.Join(root, "copy"), filepath.Join(root, "db", "copy"), filepath.Join(root, "x")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("a refused run created %s", p)
		}
	}
}

// waitFor polls until the file matching glob exists (30 s at most) and returns it.
func waitFor(t *testing.T, glob string) string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		if m, _ := filepath.Glob(glob); len(m) > 0 {
			return m[0]
		}
	}
	t.Fatalf("%s did not appear", glob)
	return ""
}

// stopped runs a CLI child until glob appears, then stops it (SIGSTOP) so that it holds its
// state; the returned function continues it and returns its exit code and stderr.
func stopped(t *testing.T, glob string, args ...string) (*exec.Cmd, func() (int, string)) {
	t.Helper()
	var errb strings.Builder
	c := exec.Command(os.Args[0], append([]string{"--"}, args...)...)
	c.Env = append(os.Environ(), "INNOSCOPE_AS_CLI=1")
	c.Stderr = &errb
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, glob)
	c.Process.Signal(syscall.SIGSTOP)
	return c, func() (int, string) {
		c.Process.Signal(syscall.SIGCONT)
		c.Wait()
		return c.ProcessState.ExitCode(), errb.String()
	}
}

// TestRecoverSignals: SIGINT stops recover with one line naming the copy it leaves incomplete
// (exit 130, the marker kept); SIGTERM stops verify, which removes its temporary copy (exit
// 143). Before, recover died without a word and verify left its copy behind.
func TestRecoverSignals(t *testing.T) {
	s := lab.Get(t, "dml")
	copyDir := filepath.Join(t.TempDir(), "copy")
	c, cont := stopped(t, filepath.Join(copyDir, replay.IncompleteMarker), "recover", s.Crashed, "--into", copyDir)
	c.Process.Signal(syscall.SIGINT)
	code, errs := cont()
	if code != 130 || !strings.Contains(errs, "interrupted") || !strings.Contains(errs, copyDir+" is left incomplete") {
		t.Errorf("recover after SIGINT: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(copyDir, replay.IncompleteMarker)); err != nil {
		t.Errorf("the interrupted copy is not marked: %v", err)
	}
	tmp := t.TempDir()
	c, cont = stopped(t, filepath.Join(tmp, "innoscope-verify-*", "copy", replay.IncompleteMarker), "verify", s.Crashed, "--tmpdir", tmp)
	c.Process.Signal(syscall.SIGTERM)
	code, errs = cont()
	if code != 143 || !strings.Contains(errs, "was removed") {
		t.Errorf("verify after SIGTERM: exit %d, %q", code, errs)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("verify left %s in its temporary directory", ents[0].Name())
	}
}

// TestRecoverConcurrentRuns: while one recover writes into a copy, a second run into the same
// directory is refused, even with --force (which would have emptied the first run's copy), and
// the first one completes.
func TestRecoverConcurrentRuns(t *testing.T) {
	s := lab.Get(t, "dml")
	copyDir := filepath.Join(t.TempDir(), "copy")
	_, cont := stopped(t, filepath.Join(copyDir, replay.IncompleteMarker), "recover", s.Crashed, "--into", copyDir)
	for _, force := range []bool{false, true} {
		args := []string{"recover", s.Crashed, "--into", copyDir}
		if force {
			args = append(args, "--force")
		}
		_, errs, code := run(args...)
		if code != ExitError || !strings.Contains(errs, "another innoscope run") {
			t.Errorf("%v during another run: exit %d, %q", args, code, errs)
		}
	}
	if code, errs := cont(); code != 0 {
		t.Errorf("the first run: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(copyDir, replay.IncompleteMarker)); err == nil {
		t.Error("the first run's copy is still marked incomplete")
	}
}

// TestRecoverForceOnlyOwnCopies: --force on an interrupted copy empties only directories marked
// by innoscope: an --external-dir that holds unrelated files is refused and left as it was,
// and so is an unmarked non-empty --into.
func TestRecoverForceOnlyOwnCopies(t *testing.T) {
	s := lab.Get(t, "data_directory")
	base := t.TempDir()
	copyDir, ext := filepath.Join(base, "copy"), filepath.Join(base, "mine")
	os.MkdirAll(copyDir, 0o755)
	os.WriteFile(filepath.Join(copyDir, replay.IncompleteMarker), nil, 0o644)
	os.WriteFile(filepath.Join(copyDir, "left"), []byte("x"), 0o644)
	os.MkdirAll(ext, 0o755)
	os.WriteFile(filepath.Join(ext, "precious"), []byte("x"), 0o644)
	_, errs, code := run("recover", s.Crashed, "--into", copyDir, "--external-dir", ext, "--force")
	if code != ExitError || !strings.Contains(errs, "not an interrupted innoscope copy") {
		t.Errorf("--force with an unrelated --external-dir: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(ext, "precious")); err != nil {
		t.Errorf("--force removed a file it did not write: %v", err)
	}
	unmarked := filepath.Join(base, "unmarked")
	os.MkdirAll(unmarked, 0o755)
	os.WriteFile(filepath.Join(unmarked, "precious"), []byte("x"), 0o644)
	if _, errs, code := run("recover", s.Crashed, "--into", unmarked, "--force"); code != ExitError || !strings.Contains(errs, "not empty") {
		t.Errorf("--force on an unmarked directory: exit %d, %q", code, errs)
	}
	// The interrupted copy itself, with the default external directory, is restarted.
	runJSON(t, &recoverJSON{}, "recover", "--json", s.Crashed, "--into", copyDir, "--force")
	if _, err := os.Stat(filepath.Join(copyDir, "left")); err == nil {
		t.Error("--force kept a file of the interrupted copy")
	}
	if m, _ := filepath.Glob(filepath.Join(copyDir+replay.ExternalSuffix, replay.IncompleteMarker)); len(m) > 0 {
		t.Error("the finished copy's external directory is still marked")
	}
}

// TestVerifyDirsRefused: verify --tmpdir or --keep inside the source (or its external
// directory) is a usage error (exit 2) before anything is created; before, the temporary copy
// was created inside the source and the refusal came as a REPLAY_FAILED finding (exit 1).
func TestVerifyDirsRefused(t *testing.T) {
	s := lab.Get(t, "data_directory")
	before := lab.HashTree(t, s.Crashed)
	for _, args := range [][]string{
		{"--tmpdir", filepath.Join(s.Crashed, "db")},
		{"--tmpdir", s.Crashed},
		{"--keep", filepath.Join(s.Crashed, "k")},
	} {
		_, errs, code := run(append([]string{"verify", s.Crashed}, args...)...)
		if code != ExitError || !strings.Contains(errs, "source") {
			t.Errorf("verify %v: exit %d, %q", args, code, errs)
		}
	}
	if !mapsEqual(before, lab.HashTree(t, s.Crashed)) {
		t.Error("the source changed")
	}
	if m, _ := filepath.Glob(filepath.Join(s.Crashed, "*", "innoscope-verify-*")); len(m) > 0 {
		t.Errorf("left behind: %v", m)
	}
}

// TestVerifyFullTmpdir: a temporary directory with no space left (a 1 MiB tmpfs) makes verify
// exit 2 (it could not run), not 1 with a REPLAY_FAILED finding about the data; the temporary
// copy is removed. It needs mount(2) (root); elsewhere it is skipped.
func TestVerifyFullTmpdir(t *testing.T) {
	s := lab.Get(t, "dml")
	mnt := filepath.Join(t.TempDir(), "mnt")
	os.MkdirAll(mnt, 0o755)
	if b, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1M", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs here (needs root): %v %s", err, b)
	}
	defer exec.Command("umount", mnt).Run()
	out, errs, code := run("verify", s.Crashed, "--tmpdir", mnt)
	if code != ExitError || !strings.Contains(errs, "no space left") {
		t.Errorf("verify into a full directory: exit %d\n%s\n%s", code, out, errs)
	}
	if ents, _ := os.ReadDir(mnt); len(ents) != 0 {
		t.Errorf("verify left %s in the full directory", ents[0].Name())
	}
}

// TestRecordsAndMapMissingFileCheckpoint: on a log whose FILE_CHECKPOINT for the checkpoint is
// damaged (the server refuses it: TestCorruptFileCheckpointAgainstServer), `log records` and
// `map` exit 1 with MISSING_FILE_CHECKPOINT, as `log stats` does: in the table, or on stderr
// with --json. Before, both exited 0.
func TestRecordsAndMapMissingFileCheckpoint(t *testing.T) {
	s := lab.Get(t, "dml")
	dir, _ := flipInLog(t, s, func(l *logformat.Log, cp uint64) uint64 { return fileCheckpointLSNByte(t, l, cp) })
	for _, args := range [][]string{{"log", "records"}, {"log", "records", "--json"}, {"map"}, {"map", "--json"}} {
		out, errs, code := run(append(args, dir)...)
		if code != ExitFindings || !strings.Contains(out+errs, "MISSING_FILE_CHECKPOINT") {
			t.Errorf("%v: exit %d\n%s", args, code, lastLines(out+errs, "FILE_CHECKPOINT", 3))
		}
	}
	// The same commands on the undamaged directory exit 0.
	for _, args := range [][]string{{"log", "records"}, {"map"}} {
		if _, errs, code := run(append(args, s.Crashed)...); code != ExitClean {
			t.Errorf("%v on the crashed directory: exit %d %s", args, code, errs)
		}
	}
}

// TestVerifyHangupAndLeftovers: SIGHUP (the terminal closed) stops verify as SIGTERM does: its
// temporary copy removed, exit 129. A verify killed outright (SIGKILL: no clean-up runs) leaves
// its temporary directory; the next verify with the same --tmpdir removes it and says so, and
// leaves alone a directory of the same name pattern it did not make. Before, SIGHUP killed
// verify without its clean-up, and leftovers stayed for ever.
func TestVerifyHangupAndLeftovers(t *testing.T) {
	s := lab.Get(t, "dml")
	tmp := t.TempDir()
	glob := filepath.Join(tmp, "innoscope-verify-*", "copy", replay.IncompleteMarker)
	c, cont := stopped(t, glob, "verify", s.Crashed, "--tmpdir", tmp)
	c.Process.Signal(syscall.SIGHUP)
	code, errs := cont()
	if code != 129 || !strings.Contains(errs, "interrupted by SIGHUP") || !strings.Contains(errs, "was removed") {
		t.Errorf("verify after SIGHUP: exit %d, %q", code, errs)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("verify left %s after SIGHUP", ents[0].Name())
	}
	c, cont = stopped(t, glob, "verify", s.Crashed, "--tmpdir", tmp)
	c.Process.Signal(syscall.SIGKILL)
	cont()
	left, _ := filepath.Glob(filepath.Join(tmp, "innoscope-verify-*"))
	if len(left) != 1 {
		t.Fatalf("after SIGKILL: %v, want the killed run's directory", left)
	}
	foreign := filepath.Join(tmp, "innoscope-verify-notmine")
	os.Mkdir(foreign, 0o755)
	_, errs, code = run("verify", s.Crashed, "--tmpdir", tmp)
	if code == ExitError || !strings.Contains(errs, "removed "+left[0]+", the temporary copy of an earlier verify that was killed") {
		t.Errorf("verify after a killed one: exit %d, %q", code, errs)
	}
	if after, _ := filepath.Glob(filepath.Join(tmp, "*")); len(after) != 1 || after[0] != foreign {
		t.Errorf("left in --tmpdir: %v, want only %s", after, foreign)
	}
}
