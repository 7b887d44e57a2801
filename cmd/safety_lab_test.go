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
	"innoscope/report"
)

// startServer starts mariadbd on dir (as scripts/mariadb-lab.sh start does) and waits until it
// answers on its socket; it returns the running process.
func startServer(t *testing.T, dir string, opts ...string) *exec.Cmd {
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
	for i := 0; i < 600; i++ {
		if exec.Command("mariadb", "--no-defaults", "-S", sock, "-uroot", "-e", "select 1").Run() == nil {
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
// ibdata1), recover and verify refuse (exit 2) and create nothing. After the server is killed
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
	for _, args := range [][]string{{"recover", dir, "--into", out}, {"recover", dir, "--dry-run"}, {"verify", dir, "--keep", out}} {
		_, errs, code := run(args...)
		if code != ExitError || !strings.Contains(errs, "SERVER_RUNNING") || !strings.Contains(errs, "pid "+pid) {
			t.Errorf("%v on a running server: exit %d, %q", args, code, errs)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v created %s", args, out)
		}
	}
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
