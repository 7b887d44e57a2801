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

	"innoscope/internal/lab"
	"innoscope/logformat"
	"innoscope/replay"
	"innoscope/report"
)

// launchServer starts mariadbd on dir as scripts/mariadb-lab.sh does (own socket, no network)
// and returns it, its socket and error log, and a channel that gets its exit.
func launchServer(t *testing.T, dir string, opts ...string) (*exec.Cmd, string, string, chan error) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "s.sock")
	errLog := filepath.Join(t.TempDir(), "server.err")
	args := append([]string{"--no-defaults", "--datadir=" + dir, "--user=root", "--socket=" + sock,
		"--skip-networking", "--log-error=" + errLog}, opts...)
	srv := exec.Command("mariadbd", args...)
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
func findingCodes(t *testing.T, args ...string) (map[string]report.Finding, int) {
	t.Helper()
	out, errs, code := run(args...)
	var j struct {
		Findings []report.Finding `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("%v: exit %d, %v\n%s\n%s", args, code, err, out, errs)
	}
	m := map[string]report.Finding{}
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
			if ok != live || live && (code != ExitFindings || f.Severity != report.Error || !strings.Contains(f.Message, "pid "+pid)) {
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
	if f, ok := fs["LIVE_SOURCE"]; code == ExitError || !ok || f.Severity != report.Warning || !strings.Contains(f.Message, "pid "+pid) {
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

// TestRecoverKilledCopyUnstartable kills recover (SIGKILL) at several points of a recovery of
// the DATA DIRECTORY scenario: as soon as the copy is marked, when the copy's .isl appears,
// when the external datafile appears, and halfway and three quarters through an uninterrupted
// run. The server started on each half-made copy refuses it (the copy's redo log is not valid
// until the end) and never touches the source or its external directory; before, the copy's
// .isl pointed into the source until the end and the server's recovery wrote there.
func TestRecoverKilledCopyUnstartable(t *testing.T) {
	s := lab.Get(t, "data_directory")
	_, onCopy := splitOptions(s.Options)
	var before []map[string]string
	for _, d := range sourceTrees(s) {
		before = append(before, lab.HashTree(t, d))
	}
	base := t.TempDir()
	start := time.Now()
	runJSON(t, &recoverJSON{}, "recover", "--json", s.Crashed, "--into", filepath.Join(base, "whole"))
	full := time.Since(start)
	isl, _ := filepath.Glob(filepath.Join(s.Crashed, "db", "*.isl"))
	if len(isl) == 0 {
		t.Fatal("the scenario has no .isl file")
	}
	rel, _ := filepath.Rel(s.Crashed, isl[0])
	ext := strings.TrimSuffix(rel, ".isl") + ".ibd"
	points := []struct {
		name  string
		ready func(copyDir string) bool
		after time.Duration
	}{
		{"marked", func(string) bool { return true }, 0},
		{".isl written", func(d string) bool { _, err := os.Stat(filepath.Join(d, rel)); return err == nil }, 0},
		{"external file", func(d string) bool {
			_, err := os.Stat(filepath.Join(d+".external", "1", ext))
			return err == nil
		}, 0},
		{"half", func(string) bool { return true }, full / 2},
		{"three quarters", func(string) bool { return true }, full * 3 / 4},
	}
	killed := 0
	for i, p := range points {
		copyDir := filepath.Join(base, fmt.Sprint("killed", i))
		marker := filepath.Join(copyDir, replay.IncompleteMarker)
		c := startCLI(t, "recover", s.Crashed, "--into", copyDir)
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			if _, err := os.Stat(marker); err == nil && p.ready(copyDir) {
				break
			}
		}
		time.Sleep(p.after)
		c.Process.Kill()
		err := c.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != -1 {
			t.Logf("kill at %q came too late: the run had ended (%v)", p.name, err)
			continue
		}
		killed++
		if b, err := os.ReadFile(filepath.Join(copyDir, rel)); err == nil && strings.Contains(string(b), s.Dir) {
			t.Errorf("killed at %q: the copy's %s points into the source: %s", p.name, rel, b)
		}
		started, errLog := tryServer(t, copyDir, onCopy...)
		if started {
			t.Errorf("killed at %q: the server started on the half-made copy", p.name)
		}
		t.Logf("killed at %q: server started %v; %s", p.name, started, lastLines(errLog, "ERROR", 2))
		for i, d := range sourceTrees(s) {
			if !mapsEqual(before[i], lab.HashTree(t, d)) {
				t.Fatalf("killed at %q: the server on the half-made copy changed the source %s", p.name, d)
			}
		}
	}
	if killed < 3 {
		t.Errorf("only %d of %d runs were killed before they ended (an uninterrupted run takes %v)", killed, len(points), full)
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
