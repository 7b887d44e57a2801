// Package lab gives tests real crashed data directories made by the real mariadbd through
// scripts/mariadb-lab.sh, with the server's own verdict on each.
//
// Scenarios are generated on first use and cached under $INNOSCOPE_LAB_DIR (default: the
// system temporary directory), keyed by the script's content and the server version, so a
// changed script or server regenerates them. Without mariadbd, tests skip locally and fail
// under CI (CI=true), where scripts/test.sh installs it.
package lab

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Scenario is one generated crash scenario.
type Scenario struct {
	Name    string
	Dir     string // the scenario directory (see scripts/mariadb-lab.sh)
	Crashed string // the data directory as SIGKILL left it
	Verdict Verdict
	Options []string // extra mariadbd options of the scenario
	// Server made the crash and is the one ServerVerdict starts (nil: MariaDB1011).
	Server *Server
}

// Verdict is what the server said while recovering a copy.
type Verdict struct {
	Started        bool // the server came up (false: it refused)
	CrashRecovery  bool // it printed "Starting crash recovery from checkpoint LSN="
	CheckpointLSN  uint64
	EndLSN         uint64 // "End of log at LSN="
	ToRecoverPages int    // "To recover: N pages", -1 when not printed
	ErrLog         string // path of its error log
	// From ServerVerdict only: whether CHECK TABLE passed on every user table, how many it
	// checked, and how many [ERROR] lines the server logged.
	TablesOK      bool
	TablesChecked int
	Errors        int
	Checks        string // the CHECK TABLE results, one table per line
	Checksums     string // CHECKSUM TABLE of every user table (table<TAB>checksum lines)
	SysTables     string // the tables of its InnoDB dictionary, "db/t" lines (INNODB_SYS_TABLES)
}

// Root is the repository root (the directory holding go.mod).
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

func script() string { return filepath.Join(Root(), "scripts", "mariadb-lab.sh") }

// Require skips (locally) or fails (in CI) a test when the server is not installed.
func Require(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("mariadbd"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("mariadbd is not installed; scripts/test.sh installs it (scripts/mariadb-lab.sh install)")
		}
		t.Skip("mariadbd not installed: run scripts/mariadb-lab.sh install")
	}
}

// Get returns scenario name of the machine's own server (MariaDB1011.Get), generating it if
// needed. Test processes that need the same scenario wait for one another (a lock file per
// scenario); different scenarios are made at the same time.
func Get(t testing.TB, name string) *Scenario {
	t.Helper()
	return MariaDB1011.Get(t, name)
}

// generate returns scenario name of server v, cached under dir.
func generate(t testing.TB, v *Server, dir, name string) *Scenario {
	t.Helper()
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		for _, d := range prune(dir) {
			t.Logf("removed the scenario set %s (unused for %v)", d, PruneAfter)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	markUsed(dir)
	out := filepath.Join(dir, name)
	if _, err := os.Stat(filepath.Join(out, "verdict.txt")); err != nil {
		// A shared lock on the set keeps prune away while scenarios are made; the exclusive
		// lock is per scenario, so test processes make different scenarios at the same time.
		defer lockFile(t, filepath.Join(dir, ".lock"), syscall.LOCK_SH).Close()
		defer lockFile(t, filepath.Join(dir, ".lock-"+name), syscall.LOCK_EX).Close()
		if _, err := os.Stat(filepath.Join(out, "verdict.txt")); err != nil {
			tmp := out + ".tmp"
			// One retry: a throw-away server can fail to install or start for reasons outside
			// the scenario (the first failure is kept in the test log).
			for try := 1; ; try++ {
				os.RemoveAll(tmp)
				cmd := exec.Command("bash", v.script(), "scenario", name, tmp)
				cmd.Env = v.Env()
				b, err := cmd.CombinedOutput()
				if err == nil {
					break
				}
				if try == 2 {
					t.Fatalf("lab scenario %s: %v\n%s", name, err, b)
				}
				t.Logf("lab scenario %s failed, retrying once: %v\n%s", name, err, b)
			}
			// Paths inside the scenario (DATA DIRECTORY, .isl) name the .tmp directory, so it
			// stays where it was made; the final name is a link to it.
			if err := os.Symlink(filepath.Base(tmp), out); err != nil {
				t.Fatal(err)
			}
		}
	}
	s := &Scenario{Name: name, Dir: out, Crashed: filepath.Join(out, "crashed"), Server: v}
	var err error
	if s.Verdict, err = ReadVerdict(filepath.Join(out, "verdict.txt")); err != nil {
		t.Fatal(err)
	}
	s.Verdict.Started = true
	s.Verdict.ErrLog = filepath.Join(out, "server.err")
	if b, err := os.ReadFile(filepath.Join(out, "options.txt")); err == nil {
		s.Options = strings.Fields(string(b))
	}
	return s
}

// lockFile takes a flock of kind how on path (created if needed); closing the file releases it.
func lockFile(t testing.TB, path string, how int) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		t.Fatalf("lock %s: %v", path, err)
	}
	return f
}

// ReadVerdict parses the key=value file the lab script writes.
func ReadVerdict(path string) (Verdict, error) {
	f, err := os.Open(path)
	if err != nil {
		return Verdict{}, err
	}
	defer f.Close()
	v := Verdict{ToRecoverPages: -1}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, val, _ := strings.Cut(sc.Text(), "=")
		if val == "" {
			continue
		}
		n, err := strconv.ParseUint(val, 10, 64)
		if err != nil {
			return v, fmt.Errorf("%s: %s=%q: %v", path, k, val, err)
		}
		switch k {
		case "started":
			v.Started = n == 1
		case "crash_recovery":
			v.CrashRecovery = n == 1
		case "checkpoint_lsn":
			v.CheckpointLSN = n
		case "end_lsn":
			v.EndLSN = n
		case "to_recover_pages":
			v.ToRecoverPages = int(n)
		case "tables_ok":
			v.TablesOK = n == 1
		case "tables_checked":
			v.TablesChecked = int(n)
		case "errors":
			v.Errors = int(n)
		}
	}
	return v, sc.Err()
}

// ServerVerdict starts the scenario's server on dir (a disposable copy: recovery writes to it)
// with the scenario's options and returns what it said.
func (s *Scenario) ServerVerdict(t testing.TB, dir string) Verdict {
	t.Helper()
	out := filepath.Join(t.TempDir(), "verdict")
	srv := s.Server
	if srv == nil {
		srv = MariaDB1011
	}
	cmd := exec.Command("bash", append([]string{srv.script(), "verdict", dir, out}, s.Options...)...)
	cmd.Env = srv.Env()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("lab verdict on %s: %v\n%s", dir, err, b)
	}
	v, err := ReadVerdict(out + ".txt")
	if err != nil {
		t.Fatal(err)
	}
	v.ErrLog = out + ".err"
	if b, err := os.ReadFile(out + ".checks"); err == nil {
		v.Checks = string(b)
	}
	if b, err := os.ReadFile(out + ".checksums"); err == nil {
		v.Checksums = string(b)
	}
	if b, err := os.ReadFile(out + ".systables"); err == nil {
		v.SysTables = string(b)
	}
	return v
}

// Checksums is CHECKSUM TABLE of every user table after the server's own crash recovery of the
// scenario (the lab's checksums.tsv).
func (s *Scenario) Checksums(t testing.TB) string { return s.read(t, "checksums.tsv") }

// Checks is CHECK TABLE of every user table after the server's own crash recovery of the
// scenario (the lab's checks.tsv), in the form of Verdict.Checks.
func (s *Scenario) Checks(t testing.TB) string { return s.read(t, "checks.tsv") }

func (s *Scenario) read(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.Dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// CopyDir copies the regular files and directories of src into dst (which must not exist).
func CopyDir(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// HashTree returns path → sha256 of every regular file under dir, to prove it unchanged.
func HashTree(t testing.TB, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		h := sha256.Sum256(b)
		info, _ := d.Info()
		m[p] = hex.EncodeToString(h[:]) + " " + info.ModTime().String()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// PeerFixtures is the directory of the real MySQL files shared beside the repository
// (../shared/peer-fixtures). In a linked git worktree, whose directory is not beside the main
// repository, it is the one beside the main worktree (the parent of the common .git
// directory). "" when neither exists.
func PeerFixtures() string {
	dirs := []string{filepath.Join(Root(), "..", "shared", "peer-fixtures")}
	if out, err := exec.Command("git", "-C", Root(), "rev-parse", "--path-format=absolute", "--git-common-dir").Output(); err == nil {
		common := strings.TrimSpace(string(out))
		dirs = append(dirs, filepath.Join(filepath.Dir(common), "..", "shared", "peer-fixtures"))
	}
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return filepath.Clean(d)
		}
	}
	return ""
}
