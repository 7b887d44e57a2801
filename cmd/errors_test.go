package cmd

import (
	"encoding/binary"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"innoscope/internal/clikit"
	"innoscope/internal/lab"
	"innoscope/logformat"
)

// peerFixture returns a file from ../shared/peer-fixtures (real files from MySQL servers;
// lab.PeerFixtures finds it from a linked worktree too).
func peerFixture(t *testing.T, rel string) string {
	p := filepath.Join(lab.PeerFixtures(), rel)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("peer fixture missing: %v", err)
		}
		t.Skipf("peer fixture missing: %v", err)
	}
	return p
}

// TestBadInputsExit2 checks that unusable input gives exit 2 and one stderr line that names the
// file and the offset, for every log command.
func TestBadInputsExit2(t *testing.T) {
	s := lab.Get(t, "dml")
	real, err := os.ReadFile(filepath.Join(s.Crashed, "ib_logfile0"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	garbage := make([]byte, 1<<20)
	rand.New(rand.NewSource(1)).Read(garbage)
	enc := append([]byte(nil), real...)
	enc[48] = 1 // key version: an encrypted log
	binary.BigEndian.PutUint32(enc[508:], logformat.CRC32C(enc[:508]))
	noLog := filepath.Join(dir, "nolog")
	os.Mkdir(noLog, 0o755)

	cases := map[string]struct {
		path string
		want []string
	}{
		"zero-length":        {write("zero", nil), []string{"zero", "offset 0", "empty"}},
		"truncated header":   {write("trunc300", real[:300]), []string{"trunc300", "offset 300", "truncated"}},
		"truncated log":      {write("trunc3000", real[:3000]), []string{"trunc3000", "offset 3000", "too small"}},
		"garbage":            {write("garbage", garbage), []string{"garbage", "offset 0", "not an InnoDB redo log"}},
		"bad header CRC":     {write("crc", append([]byte{real[0]}, append([]byte{real[1] ^ 1}, real[2:]...)...)), []string{"offset", "not an InnoDB redo log"}},
		"flipped header CRC": {write("hcrc", flipAt(real, 100)), []string{"hcrc", "offset 508", "checksum"}},
		"encrypted":          {write("enc", enc), []string{"enc", "offset", "encrypted"}},
		"no log":             {noLog, []string{"nolog", "no redo log"}},
	}
	for name, c := range cases {
		for _, sub := range []string{"header", "records", "stats"} {
			if name == "flipped header CRC" && sub == "header" {
				continue // log header shows such a header: TestLogHeaderDamagedHeaderBlock
			}
			out, errs, code := run("log", sub, c.path)
			lines := strings.Split(strings.TrimSpace(errs), "\n")
			if code != ExitError || out != "" || len(lines) != 1 {
				t.Errorf("%s, log %s: exit %d, stdout %q, stderr %q", name, sub, code, out, errs)
				continue
			}
			for _, w := range c.want {
				if !strings.Contains(errs, w) {
					t.Errorf("%s, log %s: %q lacks %q", name, sub, errs, w)
				}
			}
		}
	}
}

func flipAt(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0x55
	return c
}

func TestHoistFlags(t *testing.T) {
	app := App(nil, nil)
	got, _ := clikit.HoistFlags(app, []string{"innoscope", "log", "records", "/d", "--type", "FILE_*", "--json", "--space=5"})
	want := []string{"innoscope", "log", "records", "--type", "FILE_*", "--json", "--space=5", "--", "/d"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q", got)
	}
}

// TestFailOnAndDefaultsFile uses the crashed dml directory: its UNCLEAN_SHUTDOWN finding is
// info, so --fail-on info exits 1 and the default (error) exits 0; a my.cnf naming the data
// directory works like the DIR argument.
func TestFailOnAndDefaultsFile(t *testing.T) {
	s := lab.Get(t, "dml")
	if _, _, code := run("log", "stats", s.Crashed); code != ExitClean {
		t.Errorf("default --fail-on: exit %d", code)
	}
	if _, _, code := run("log", "stats", s.Crashed, "--fail-on", "info"); code != ExitFindings {
		t.Errorf("--fail-on info: exit %d", code)
	}
	cnf := filepath.Join(t.TempDir(), "my.cnf")
	os.WriteFile(cnf, []byte("[client]\nsocket=/x\n[mysqld]\ndatadir = "+s.Crashed+"\ninnodb-page-size=16k\n"), 0o644)
	var a, b statsJSON
	runJSON(t, &a, "log", "stats", "--json", "--defaults-file", cnf)
	runJSON(t, &b, "log", "stats", "--json", s.Crashed)
	if a.EndLSN != b.EndLSN || a.PageSizeSource != "flag" || a.EndLSN == 0 {
		t.Errorf("defaults-file: %+v vs %+v", a, b)
	}
}

// TestBadDatafilesExit2: unusable datafiles give exit 2 and one line naming the file and offset.
func TestBadDatafilesExit2(t *testing.T) {
	s := lab.Get(t, "formats_default")
	real, err := os.ReadFile(filepath.Join(s.Crashed, "db", "dyn.ibd"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	garbage := make([]byte, 64<<10)
	rand.New(rand.NewSource(2)).Read(garbage)
	garbage[54], garbage[55], garbage[56], garbage[57] = 0, 0, 0x03, 0xc0 // classic flags, page size code 15
	cases := map[string]struct {
		path string
		want []string
	}{
		"zero-length": {write("zero.ibd", nil), []string{"zero.ibd", "offset 0", "too short"}},
		"truncated":   {write("trunc.ibd", real[:10000]), []string{"trunc.ibd", "offset 10000", "shorter than one 16384-byte page"}},
		"garbage":     {write("garbage.ibd", garbage), []string{"garbage.ibd", "offset 54", "invalid page size"}},
		"directory":   {dir, []string{dir, "not a regular file"}},
	}
	for name, c := range cases {
		_, errs, code := run("pages", "--verify", c.path)
		if code != ExitError || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%s: exit %d, stderr %q", name, code, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%s: %q lacks %q", name, errs, w)
			}
		}
	}
	// In a data directory the same files are listed with their error, and make the scan fail.
	data := filepath.Join(dir, "data")
	lab.CopyDir(t, s.Crashed, data)
	os.WriteFile(filepath.Join(data, "db", "trunc.ibd"), real[:10000], 0o644)
	out, _, code := run("spaces", "--json", data)
	if code != ExitFindings || !strings.Contains(out, "UNREADABLE") && !strings.Contains(out, "shorter than one 16384-byte page") {
		t.Errorf("spaces with a truncated file: exit %d\n%s", code, out)
	}
}
