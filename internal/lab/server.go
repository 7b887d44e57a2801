package lab

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Server is a MariaDB server version the lab runs: the machine's own 10.11, or a version that
// scripts/mariadb-server.sh fetches from Debian through a private apt configuration (nothing
// system-wide) and runs through wrappers under the lab cache.
type Server struct {
	// Version is the server's release series: "10.11", "10.5", "11.8".
	Version string
	// scenarios is the lab script that makes this server's scenarios (scripts/mariadb-lab.sh
	// for 10.11 and 11.8: the same scenarios; scripts/mariadb105.sh's for 10.5, whose release
	// build has no innodb_log_checkpoint_now).
	scenarios string
	// prefix names this server's scenario sets in the lab cache ("" for 10.11).
	prefix string
	// system: the machine's own server (apt-get installs it; tests skip without it locally).
	system bool

	once    sync.Once
	bin     string // the directory of its wrappers ("" for the system's server)
	version []byte // `mariadbd --version` of this server
	err     error
}

// The lab's servers.
var (
	// MariaDB1011 is the machine's own MariaDB 10.11 (Debian bookworm's mariadb-server).
	MariaDB1011 = &Server{Version: "10.11", scenarios: "mariadb-lab.sh", system: true}
	// MariaDB105 is Debian bullseye's MariaDB 10.5, with its own scenarios (scripts/mariadb105.sh).
	MariaDB105 = &Server{Version: "10.5", scenarios: "mariadb105.sh", prefix: "mariadb105-"}
	// MariaDB118 is Debian trixie's MariaDB 11.8 (the current LTS), with mariadb-lab.sh's scenarios.
	MariaDB118 = &Server{Version: "11.8", scenarios: "mariadb-lab.sh", prefix: "mariadb118-"}
)

// Servers are the lab's servers, the machine's own first.
var Servers = []*Server{MariaDB1011, MariaDB105, MariaDB118}

// String is the server's name in test names and messages: "MariaDB 11.8".
func (v *Server) String() string { return "MariaDB " + v.Version }

func (v *Server) script() string { return filepath.Join(Root(), "scripts", v.scenarios) }

func serverScript() string { return filepath.Join(Root(), "scripts", "mariadb-server.sh") }

// offVar is the environment variable that turns this server's tests off: INNOSCOPE_NO_118=1.
func (v *Server) offVar() string {
	return "INNOSCOPE_NO_" + strings.ReplaceAll(v.Version, ".", "")
}

// Require skips (locally) or fails (in CI) a test when the machine's own server is not
// installed; for a fetched server it skips when INNOSCOPE_NO_<VERSION>=1 (INNOSCOPE_NO_118=1)
// and otherwise installs that server once (cached under the lab cache), failing the test when
// that is impossible.
func (v *Server) Require(t testing.TB) {
	t.Helper()
	if !v.system && os.Getenv(v.offVar()) == "1" {
		t.Skipf("%s=1: the %s tests are off", v.offVar(), v)
	}
	Require(t) // the system's client programs (mariadb-admin) serve every server
	v.once.Do(func() {
		if !v.system {
			var out []byte
			if out, v.err = exec.Command("bash", serverScript(), "install", v.Version).Output(); v.err != nil {
				if e, ok := v.err.(*exec.ExitError); ok {
					v.version = e.Stderr
				}
				return
			}
			v.bin = strings.TrimSpace(string(out))
		}
		v.version, v.err = v.Command("mariadbd", "--no-defaults", "--version").CombinedOutput()
	})
	if v.err != nil {
		t.Fatalf("%s for the lab (scripts/mariadb-server.sh install %s; %s=1 skips these tests): %v\n%s",
			v, v.Version, v.offVar(), v.err, v.version)
	}
}

// Env is the environment of the lab scripts and programs run for this server: LAB_SERVER (which
// `source scripts/mariadb-lab.sh functions` follows), and its wrappers first in PATH. Call
// Require first.
func (v *Server) Env() []string {
	env := append(os.Environ(), "LAB_SERVER="+v.Version)
	if v.bin != "" {
		env = append(env, "PATH="+v.bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	return env
}

// Command runs one of this server's programs (mariadbd, mariadb-install-db, mariadb; its
// wrapper where it has one, else the system's) with args. Call Require first.
func (v *Server) Command(name string, args ...string) *exec.Cmd {
	path := name
	if v.bin != "" {
		if p := filepath.Join(v.bin, name); fileExists(p) {
			path = p
		}
	}
	cmd := exec.Command(path, args...)
	cmd.Env = v.Env()
	return cmd
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// cacheDir is where this server's scenarios of the current lab scripts live: keyed by the
// scripts that make them and the server's version.
func (v *Server) cacheDir(t testing.TB) string {
	h := sha256.New()
	for _, p := range []string{v.script(), script(), serverScript()} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		h.Write(b)
	}
	h.Write(v.version)
	base := os.Getenv("INNOSCOPE_LAB_DIR")
	if base == "" {
		base = filepath.Join(os.TempDir(), "innoscope-lab")
	}
	return filepath.Join(base, v.prefix+hex.EncodeToString(h.Sum(nil)[:6]))
}

// Get returns this server's scenario name (`LAB_SERVER=VERSION scripts/mariadb-lab.sh list`,
// `scripts/mariadb105.sh list` for 10.5), generating it if needed: a crash this server made,
// its verdict what this server printed while recovering it; ServerVerdict starts this server.
func (v *Server) Get(t testing.TB, name string) *Scenario {
	t.Helper()
	v.Require(t)
	return generate(t, v, v.cacheDir(t), name)
}

// VerdictOn starts this server on dir (a disposable copy: recovery writes to it) with the
// options opts and returns what it said: a crash of one version started by another.
func (v *Server) VerdictOn(t testing.TB, dir string, opts []string) Verdict {
	t.Helper()
	v.Require(t)
	return (&Scenario{Options: opts, Server: v}).ServerVerdict(t, dir)
}
