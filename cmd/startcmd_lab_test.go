package cmd

import (
	"bytes"
	"encoding/json"
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
// and without an [ERROR]. In "owned", the source belongs to mysql (as a packaged server's data
// directory does) and innoscope runs as root: the copy must belong to mysql too and the command
// run the server as mysql (the copy was root's, which a server running as mysql cannot open).
// In "long_path" COPY/mysqld.sock is longer than a socket path may be (the server refused it).
// "verify_keep": verify --keep prints the command for the copy it keeps (it printed none: a
// new-user trial). "json": `recover --json` gives the command as start_command (it gave none).
// "existing_empty": --into an existing empty directory (a mount point made for the copy) is
// used without --force (it was refused: "exists (empty); pass --force to use it").
func TestRecoverPrintsServerCommand(t *testing.T) {
	for _, name := range []string{"layout", "formats_4k", "owned", "long_path", "verify_keep", "json", "existing_empty"} {
		t.Run(name, func(t *testing.T) {
			scenario, owner := name, ""
			if name == "owned" {
				scenario, owner = "dml", "mysql"
			}
			if name == "long_path" || name == "json" || name == "existing_empty" {
				scenario = "dml"
			}
			if name == "verify_keep" { // verify --keep prints the command for its copy too
				scenario = "layout"
			}
			s := lab.Get(t, scenario)
			where, _ := splitOptions(s.Options)
			base := t.TempDir()
			src, copyDir := s.Crashed, filepath.Join(base, "copy")
			if name == "long_path" { // COPY/mysqld.sock would be too long for a socket
				copyDir = filepath.Join(base, strings.Repeat("d", 110), "copy")
			}
			if owner != "" {
				if os.Geteuid() != 0 {
					t.Skip("needs root to give the source to " + owner)
				}
				src = filepath.Join(base, "src")
				lab.CopyDir(t, s.Crashed, src)
				if b, err := exec.Command("chown", "-R", owner+":"+owner, src).CombinedOutput(); err != nil {
					t.Fatalf("chown: %v %s", err, b)
				}
				os.Chmod(base, 0o755) // the server, as mysql, must reach the copy
				os.Chmod(filepath.Dir(base), 0o755)
			}
			if name == "existing_empty" {
				if err := os.Mkdir(copyDir, 0o750); err != nil {
					t.Fatal(err)
				}
			}
			args, head := []string{"recover", src, "--into", copyDir}, "start the server on the copy:\n"
			if name == "verify_keep" {
				args, head = []string{"verify", src, "--keep", copyDir}, "start the server on the kept copy:\n"
			}
			if name == "json" {
				args = append(args, "--json")
			}
			out, errs, code := run(append(args, where...)...)
			if code != ExitClean {
				t.Fatalf("%s: exit %d\n%s\n%s", args[0], code, out, errs)
			}
			_, cmdline, ok := strings.Cut(out, head)
			if name == "json" {
				var j map[string]any
				if err := json.Unmarshal([]byte(out), &j); err != nil {
					t.Fatalf("recover --json: %v\n%s", err, out)
				}
				cmdline, ok = j["start_command"].(string)
			}
			if !ok {
				t.Fatalf("no server command in the output:\n%s", out)
			}
			cmdline = strings.TrimSpace(cmdline)
			t.Logf("%s", cmdline)
			errLog := filepath.Join(t.TempDir(), "server.err")
			if owner != "" {
				if !strings.Contains(cmdline, "--user="+owner) {
					t.Errorf("the command does not run the server as %s: %s", owner, cmdline)
				}
				want, _ := os.Stat(src)
				filepath.Walk(copyDir, func(p string, fi os.FileInfo, err error) error {
					if err == nil && fi.Sys().(*syscall.Stat_t).Uid != want.Sys().(*syscall.Stat_t).Uid {
						t.Errorf("%s is not %s's", p, owner)
					}
					return nil
				})
				errLog = filepath.Join(copyDir, "server.err")
			}
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
