package lab

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// MariaDB 10.5 scenarios: scripts/mariadb105.sh fetches the Debian bullseye packages of
// MariaDB 10.5 through a private apt configuration (nothing system-wide), unpacks them under
// the lab cache and crashes that server with the workloads it lists.

func script105() string { return filepath.Join(Root(), "scripts", "mariadb105.sh") }

var version105 struct {
	once sync.Once
	out  []byte
	err  error
}

// Require105 skips a test when INNOSCOPE_NO_105=1, and otherwise installs the private MariaDB
// 10.5 server (once: cached under the lab cache), failing the test when that is impossible.
func Require105(t testing.TB) {
	t.Helper()
	if os.Getenv("INNOSCOPE_NO_105") == "1" {
		t.Skip("INNOSCOPE_NO_105=1: the MariaDB 10.5 tests are off")
	}
	Require(t) // the lab's client programs are the system's
	version105.once.Do(func() {
		version105.out, version105.err = exec.Command("bash", script105(), "version").CombinedOutput()
	})
	if version105.err != nil {
		t.Fatalf("MariaDB 10.5 for the lab (scripts/mariadb105.sh install; INNOSCOPE_NO_105=1 skips these tests): %v\n%s",
			version105.err, version105.out)
	}
}

// Get105 returns the MariaDB 10.5 scenario name (scripts/mariadb105.sh list), generating it
// if needed; its verdict is what 10.5 printed while recovering it, and ServerVerdict starts
// 10.5. Scenarios are cached beside the others, keyed by both lab scripts and the 10.5 version.
func Get105(t testing.TB, name string) *Scenario {
	t.Helper()
	Require105(t)
	h := sha256.New()
	for _, p := range []string{script105(), script()} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		h.Write(b)
	}
	h.Write(version105.out)
	base := os.Getenv("INNOSCOPE_LAB_DIR")
	if base == "" {
		base = filepath.Join(os.TempDir(), "innoscope-lab")
	}
	return generate(t, script105(), filepath.Join(base, "mariadb105-"+hex.EncodeToString(h.Sum(nil)[:6])), name)
}
