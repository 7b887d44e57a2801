package cmd

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/internal/lab"
	"innoscope/logformat"
	"innoscope/logformat/logformattest"
)

// TestVerifyUnreplayedLogFormat: verify on a data directory whose log innoscope reads but does
// not replay (MySQL, MariaDB 10.2-10.4: MLOG records) or cannot read (an encrypted log) stops
// with exit 2, nothing on stdout, and says this is innoscope's limit, not the server's; it
// printed "mariadbd will refuse to start: REPLAY_FAILED" (exit 1). rows on such a directory
// that needs crash recovery no longer advises `innoscope recover` (which refuses the log, exit
// 2) but the recovery of the server that wrote the log. Directories: real MySQL datafiles
// (innodb_ruby's sakila, 8.0 and 5.7) beside the real MySQL 8.0.33 redo file with its checkpoint
// moved back (crash recovery needed) and beside MySQL 5.7 and MariaDB 10.4 rings built byte by
// byte; and a real 10.11 crash whose log header is marked encrypted.
func TestVerifyUnreplayedLogFormat(t *testing.T) {
	type dir struct{ name, path, creator string }
	var dirs []dir
	sakila := func(t *testing.T, version, d string) {
		if err := os.CopyFS(filepath.Join(d, "sakila"), os.DirFS(peerFixture(t, "innodb_ruby/sakila/"+version+"/sakila"))); err != nil {
			t.Fatal(err)
		}
	}
	{ // the real MySQL 8.0.33 file, its checkpoint blocks moved to a mini-transaction in its middle
		real := peerFixture(t, "mysql-8.0.33-docker-sample/#ib_redo10")
		rs, _, _ := records105(t, "--from-lsn", "1", real)
		raw, err := os.ReadFile(real)
		if err != nil {
			t.Fatal(err)
		}
		for _, off := range []int{512, 1536} { // LSN at 8, CRC-32C at 508
			binary.BigEndian.PutUint64(raw[off+8:], rs[len(rs)/2].MTRLSN)
			binary.BigEndian.PutUint32(raw[off+508:], logformat.CRC32C(raw[off:off+508]))
		}
		d := filepath.Join(t.TempDir(), "mysql80")
		os.MkdirAll(filepath.Join(d, "#innodb_redo"), 0o755)
		if err := os.WriteFile(filepath.Join(d, "#innodb_redo", "#ib_redo10"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		sakila(t, "8.0", d)
		dirs = append(dirs, dir{"MySQL 8.0.33", d, "MySQL 8.0.33"})
	}
	for _, c := range []struct {
		format  uint32
		creator string
	}{{logformat.FormatMySQL57, "MySQL 5.7.44"}, {logformat.FormatMariaDB104, "MariaDB 10.4.34"}} {
		b, err := logformattest.NewMLogBuilder(512*6000, c.creator)
		if err != nil {
			t.Fatal(err)
		}
		cp := b.AddMTR(logformattest.MLogFileRecord(logformat.MLogFileName, 1, "./sakila/actor.ibd", ""))
		b.AddMTR(logformattest.MLogCheckpointRecord(cp))
		b.AddMTR(logformattest.MLogPageRecord(logformat.MLog2Bytes, 1, 3, []byte{0, 24, 0x81, 0x02}))
		d := filepath.Join(t.TempDir(), "ring")
		os.Mkdir(d, 0o755)
		for k, img := range b.Ring(c.format, 2, 2048+6*512, 512, cp, 7) {
			if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("ib_logfile%d", k)), img, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		sakila(t, "5.7", d)
		dirs = append(dirs, dir{c.creator, d, c.creator})
	}
	check := func(t *testing.T, d dir) {
		before := lab.HashTree(t, d.path)
		out, errs, code := run("verify", d.path)
		if code != ExitError || out != "" || !strings.Contains(errs, "cannot verify") || !strings.Contains(errs, "limit of innoscope, not a refusal by the server") {
			t.Errorf("verify: exit %d\nstdout %.400q\nstderr %q", code, out, errs)
		}
		if _, errs, code := run("recover", d.path, "--into", filepath.Join(t.TempDir(), "copy")); code != ExitError {
			t.Errorf("recover: exit %d: %s", code, errs)
		}
		if d.creator != "" { // rows: the advice is the server's recovery, never the refused `innoscope recover`
			var st statsJSON
			runJSON(t, &st, "log", "stats", "--json", d.path)
			_, errs, code := run("rows", d.path, "sakila.actor")
			if !st.CrashRecovery || code != ExitError || strings.Contains(errs, "innoscope recover DIR") ||
				!strings.Contains(errs, "start the server that wrote it ("+d.creator+") on a copy") {
				t.Errorf("rows (crash recovery %v): exit %d: %s", st.CrashRecovery, code, errs)
			}
		}
		if !mapsEqual(before, lab.HashTree(t, d.path)) {
			t.Error("the source changed")
		}
	}
	for _, d := range dirs {
		t.Run(d.name, func(t *testing.T) { check(t, d) })
	}
	t.Run("encrypted 10.11", func(t *testing.T) {
		s := lab.Get(t, "dml")
		d := filepath.Join(t.TempDir(), "encrypted")
		lab.CopyDir(t, s.Crashed, d)
		p := filepath.Join(d, "ib_logfile0")
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		raw[48] = 1 // key version: an encrypted log
		binary.BigEndian.PutUint32(raw[508:], logformat.CRC32C(raw[:508]))
		if err := os.WriteFile(p, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		check(t, dir{"encrypted 10.11", d, ""})
	})
}
