package cmd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"innoscope/internal/lab"
)

// TestRecoverPrintsServerCommand runs `recover` (table output) on lab crashes with a
// non-default layout (two system files, undo tablespaces, 4 KiB pages), takes the command line
// it prints last, and runs it: the real server must start on the copy without crash recovery
// and without an [ERROR].
func TestRecoverPrintsServerCommand(t *testing.T) {
	for _, name := range []string{"layout", "formats_4k"} {
		t.Run(name, func(t *testing.T) {
			s := lab.Get(t, name)
			where, _ := splitOptions(s.Options)
			copyDir := filepath.Join(t.TempDir(), "copy")
			out, errs, code := run(append([]string{"recover", s.Crashed, "--into", copyDir}, where...)...)
			if code != ExitClean {
				t.Fatalf("recover: exit %d\n%s\n%s", code, out, errs)
			}
			_, cmdline, ok := strings.Cut(out, "start the server on the copy:\n")
			if !ok {
				t.Fatalf("no server command in the output:\n%s", out)
			}
			cmdline = strings.TrimSpace(cmdline)
			t.Logf("%s", cmdline)
			errLog := filepath.Join(t.TempDir(), "server.err")
			c := exec.Command("bash", "-c", "exec "+cmdline+" --log-error="+errLog+" --pid-file="+filepath.Join(copyDir, "t.pid"))
			c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			var so bytes.Buffer
			c.Stdout, c.Stderr = &so, &so
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- c.Wait() }()
			defer func() {
				c.Process.Signal(syscall.SIGTERM)
				select {
				case <-done:
				case <-time.After(60 * time.Second):
					c.Process.Kill()
				}
			}()
			deadline := time.Now().Add(90 * time.Second)
			for {
				b, _ := os.ReadFile(errLog)
				if bytes.Contains(b, []byte("ready for connections")) {
					if bytes.Contains(b, []byte("[ERROR]")) || bytes.Contains(b, []byte("crash recovery")) {
						t.Errorf("the server started on the copy with errors or crash recovery:\n%s", b)
					}
					return
				}
				select {
				case err := <-done:
					t.Fatalf("the server exited (%v):\n%s\n%s", err, b, so.String())
				case <-time.After(200 * time.Millisecond):
				}
				if time.Now().After(deadline) {
					t.Fatalf("the server did not start:\n%s", b)
				}
			}
		})
	}
}
