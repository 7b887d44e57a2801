package discovery

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestRunningServerPidFile: a pid file alone is not evidence of a running server when it names
// a dead process or a live process that is not a server working in the directory (what a
// crash leaves behind, once the pid is reused); a fcntl write lock on ibdata1 held by another
// process is, with that process's pid. (The real server: cmd's TestServerRunning.)
func TestRunningServerPidFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ibdata1"), make([]byte, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Layout{Datadir: dir}
	for _, pid := range []int{os.Getpid(), 1 << 22} { // alive but not a server; no such process
		os.WriteFile(filepath.Join(dir, "host.pid"), []byte(fmt.Sprintln(pid)), 0o644)
		if l := RunningServer(s); l != nil {
			t.Errorf("pid file naming %d: %v", pid, l)
		}
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 (to hold a lock from another process) is not installed")
	}
	holder := exec.Command("python3", "-c", `import fcntl,sys,time
f=open(sys.argv[1],"r+b"); fcntl.lockf(f, fcntl.LOCK_EX); print("locked", flush=True); time.sleep(30)`, filepath.Join(dir, "ibdata1"))
	out, _ := holder.StdoutPipe()
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { holder.Process.Kill(); holder.Wait() }()
	buf := make([]byte, 7)
	if _, err := out.Read(buf); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "host.pid"), []byte(fmt.Sprintln(holder.Process.Pid)), 0o644)
	deadline := time.Now().Add(5 * time.Second)
	var l *Live
	for l == nil && time.Now().Before(deadline) {
		l = RunningServer(s)
	}
	if l == nil || l.PID != holder.Process.Pid || l.File != filepath.Join(dir, "ibdata1") || l.PidFile == "" {
		t.Errorf("lock held by pid %d: %+v", holder.Process.Pid, l)
	}
}
