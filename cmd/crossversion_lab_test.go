package cmd

import (
	"encoding/json"

	"path/filepath"
	"strings"
	"testing"

	"innoscope/analysis"
	"innoscope/internal/lab"
)

// serversOf is `diagnose --json`'s servers entry whose versions are versions.
func serversOf(t *testing.T, dir, versions string) analysis.ServerSupport {
	t.Helper()
	out, errs, code := run("diagnose", "--json", dir)
	var j struct {
		Servers []analysis.ServerSupport `json:"servers"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("diagnose: exit %d: %v\n%s", code, err, errs)
	}
	for _, s := range j.Servers {
		if s.Versions == versions {
			return s
		}
	}
	t.Fatalf("diagnose names no %s among the servers: %+v", versions, j.Servers)
	return analysis.ServerSupport{}
}

// TestCrossVersionVerdicts: a crash of one lab server started by another, against what
// `diagnose` says of the versions that recover the directory's log. Measured: 11.8 recovers a
// 10.11 crash (CHECK TABLE and CHECKSUM TABLE as 10.11's own recovery); 10.11 recovers an 11.8
// crash, logging that the change buffer was removed (tables as 11.8's own recovery); 10.5
// refuses both ("Unsupported redo log format"); 11.8 refuses a 10.5 crash ("Upgrade after a crash
// is not supported") and starts on innoscope's crash-upgrade copy of it with the tables of
// 10.5's own recovery. The crashed directories are not changed.
func TestCrossVersionVerdicts(t *testing.T) {
	for _, c := range []struct {
		crash   *lab.Server
		name    string
		on      *lab.Server
		entry   string // diagnose's servers entry for the server that starts it
		upgrade bool   // the crash-upgrade copy is started too
	}{
		{lab.MariaDB1011, "dml", lab.MariaDB118, "11.x", false},
		{lab.MariaDB118, "dml", lab.MariaDB1011, "10.8-10.11", false},
		{lab.MariaDB118, "dml", lab.MariaDB105, "10.5-10.7", false},
		{lab.MariaDB1011, "dml", lab.MariaDB105, "10.5-10.7", false},
		{lab.MariaDB105, "dml105", lab.MariaDB118, "11.x", true},
	} {
		t.Run(c.crash.Version+"_"+c.name+"_on_"+c.on.Version, func(t *testing.T) {
			s := c.crash.Get(t, c.name)
			before := lab.HashTree(t, s.Crashed)
			said := serversOf(t, s.Crashed, c.entry)
			dir := filepath.Join(t.TempDir(), "data")
			lab.CopyDir(t, s.Crashed, dir)
			v := c.on.VerdictOn(t, dir, s.Options)
			t.Logf("%s on a %s crash: started=%v crash_recovery=%v tables_ok=%v; diagnose: %+v\n%s",
				c.on, c.crash, v.Started, v.CrashRecovery, v.TablesOK, said, serverLines(t, v.ErrLog))
			if said.Recovers != v.Started {
				t.Errorf("diagnose says %s recovers=%v; %s started=%v", c.entry, said.Recovers, c.on, v.Started)
			}
			if v.Started {
				if !v.CrashRecovery || !v.TablesOK || v.Checksums != s.Checksums(t) {
					t.Errorf("%s on the crash: crash recovery %v, tables ok %v, CHECKSUM TABLE\n%s%s's own recovery:\n%s",
						c.on, v.CrashRecovery, v.TablesOK, v.Checksums, c.crash, s.Checksums(t))
				}
				errs := serverErrors(t, v.ErrLog)
				changeBuffer := len(errs) > 0 && strings.Contains(strings.Join(errs, "\n"), "change buffer")
				if changeBuffer != strings.Contains(said.Note, "change buffer") {
					t.Errorf("%s logged %q; diagnose's note: %q", c.on, errs, said.Note)
				}
			}
			if c.upgrade {
				copyDir := filepath.Join(t.TempDir(), "copy")
				if out, errs, code := run("recover", s.Crashed, "--into", copyDir); code != ExitClean {
					t.Fatalf("recover: exit %d\n%s\n%s", code, out, errs)
				}
				u := c.on.VerdictOn(t, copyDir, s.Options)
				t.Logf("%s on the crash-upgrade copy: %s", c.on, strings.ReplaceAll(serverLines(t, u.ErrLog), "\n", " | "))
				if !u.Started || u.CrashRecovery || !u.TablesOK || u.Checksums != s.Checksums(t) {
					t.Errorf("%s on the copy: started %v, crash recovery %v, tables ok %v, CHECKSUM TABLE\n%s10.5's own recovery:\n%s",
						c.on, u.Started, u.CrashRecovery, u.TablesOK, u.Checksums, s.Checksums(t))
				}
			}
			if !mapsEqual(before, lab.HashTree(t, s.Crashed)) {
				t.Error("the crashed directory changed")
			}
		})
	}
}
