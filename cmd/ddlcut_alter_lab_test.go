package cmd

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"innoscope/finding"
	"innoscope/internal/lab"
)

// Issue 28 item 7: a crash inside ALTER TABLE ... FORCE (or ENGINE=InnoDB) of a DATA DIRECTORY
// table, after the link db/#sql-ibN.isl was written and before the table's file was renamed to
// that name (the rebuild renames t.ibd to #sql-ibN.ibd, then #sql-alter-*.ibd to t.ibd, then
// drops #sql-ibN), leaves the link naming a file that does not exist. The server logs an
// [ERROR] about the link, recovers, and its rollback and DDL recovery revert the ALTER;
// innoscope said MISSING_FILE (error) and recover exited 1, "tables will fail: db.#sql-ibN".
// Cut later, the server's recovery deletes an orphan #sql-ib*.ibd, which innoscope's copy kept.
// The cut is deterministic: an LD_PRELOAD library of the test kills the server with SIGKILL
// right before (or right after) a rename of the rebuild. The judge is cutDDL's: the server's
// own recovery of a copy against the server on innoscope's copy (the same CHECK TABLE, CHECKSUM
// TABLE and datafiles; no [ERROR] of its own), and diagnose reports no error where the
// server's own recovery passed every table.

// TestDDLCutDataDirectoryAlter: ALTER TABLE ... FORCE of a DATA DIRECTORY table killed before
// the rename of its file to #sql-ibN.ibd (the link #sql-ibN.isl already written).
func TestDDLCutDataDirectoryAlter(t *testing.T) {
	cutDDL(t, ddlCut{
		options: []string{"--innodb-log-file-size=16M"},
		setup: `CREATE DATABASE db; CREATE TABLE db.r (a INT PRIMARY KEY, b VARCHAR(100)) ENGINE=InnoDB DATA DIRECTORY='@EXT@';
			INSERT INTO db.r SELECT seq, REPEAT('x', 50) FROM seq_1_to_1000;
			CREATE TABLE db.k (a INT PRIMARY KEY) ENGINE=InnoDB; INSERT INTO db.k SELECT seq FROM seq_1_to_100;`,
		stmt: "ALTER TABLE db.r FORCE", renameCut: [3]string{"before", "/r.ibd", "#sql-ib"},
	})
}

// TestDDLCutDataDirectoryAlterEngine: the same with ALTER TABLE ... ENGINE=InnoDB.
func TestDDLCutDataDirectoryAlterEngine(t *testing.T) {
	cutDDL(t, ddlCut{
		options: []string{"--innodb-log-file-size=16M"},
		setup: `CREATE DATABASE db; CREATE TABLE db.r (a INT PRIMARY KEY, b VARCHAR(100)) ENGINE=InnoDB DATA DIRECTORY='@EXT@';
			INSERT INTO db.r SELECT seq, REPEAT('x', 50) FROM seq_1_to_1000;`,
		stmt: "ALTER TABLE db.r ENGINE=InnoDB", renameCut: [3]string{"before", "/r.ibd", "#sql-ib"},
	})
}

// TestDDLCutAlterOldTableLeft: ALTER TABLE ... FORCE killed right after one of the rebuild's
// renames, of a table in the data directory and of a DATA DIRECTORY table: after the table's
// file became #sql-ibN.ibd, or after the rebuilt file took the table's name (the old one left as
// #sql-ibN.ibd, which the server's recovery deletes: the copy must not keep it).
func TestDDLCutAlterOldTableLeft(t *testing.T) {
	for _, c := range []struct {
		name, table, dd string
		cut             [3]string
	}{
		{"old renamed", "t", "", [3]string{"after", "/t.ibd", "#sql-ib"}},
		{"new renamed", "t", "", [3]string{"after", "#sql-alter", "/t.ibd"}},
		{"data directory old renamed", "r", " DATA DIRECTORY='@EXT@'", [3]string{"after", "/r.ibd", "#sql-ib"}},
		{"data directory new renamed", "r", " DATA DIRECTORY='@EXT@'", [3]string{"after", "#sql-alter", "/r.ibd"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cutDDL(t, ddlCut{
				options: []string{"--innodb-log-file-size=16M"},
				setup: `CREATE DATABASE db; CREATE TABLE db.` + c.table + ` (a INT PRIMARY KEY, b VARCHAR(100)) ENGINE=InnoDB` + c.dd + `;
					INSERT INTO db.` + c.table + ` SELECT seq, REPEAT('y', 50) FROM seq_1_to_1000;`,
				stmt: "ALTER TABLE db." + c.table + " FORCE", renameCut: c.cut,
			})
		})
	}
}

// cutRenameSource is the LD_PRELOAD library: SIGKILL right before (CUT_WHEN=before) or right
// after (after) a rename whose old name holds $CUT_FROM and whose new name holds $CUT_TO.
const cutRenameSource = `#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static int match(const char *from, const char *to) {
  const char *f = getenv("CUT_FROM"), *t = getenv("CUT_TO");
  return f && t && strstr(from, f) && strstr(to, t);
}
int rename(const char *from, const char *to) {
  static int (*next)(const char *, const char *);
  if (!next) next = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
  const char *w = getenv("CUT_WHEN");
  int m = w && match(from, to);
  if (m && !strcmp(w, "before")) kill(getpid(), SIGKILL);
  int r = next(from, to);
  if (m && r == 0 && !strcmp(w, "after")) kill(getpid(), SIGKILL);
  return r;
}
`

// crashAtRename starts a fresh server in base under the cut library, runs the setup, then the
// statement, which the library kills at the rename c.renameCut names. It returns the crashed
// data directory.
func crashAtRename(t *testing.T, base string, c ddlCut) string {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Fatal("cc is not installed (scripts/mariadb-lab.sh installs gcc): it builds the library that cuts the statement")
	}
	src, so := filepath.Join(base, "cutrename.c"), filepath.Join(base, "cutrename.so")
	if err := os.WriteFile(src, []byte(cutRenameSource), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("cc", "-shared", "-fPIC", "-o", so, src, "-ldl").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, b)
	}
	d, sock := filepath.Join(base, "data"), filepath.Join(base, "lab.sock")
	ext := filepath.Join(base, "ext")
	if err := os.Mkdir(ext, 0o750); err != nil {
		t.Fatal(err)
	}
	c.setup = strings.ReplaceAll(c.setup, "@EXT@", ext)
	pid := freshServer(t, base, []string{"LD_PRELOAD=" + so, "CUT_WHEN=" + c.renameCut[0], "CUT_FROM=" + c.renameCut[1], "CUT_TO=" + c.renameCut[2]}, c.options...)
	defer func() {
		if !gone(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}()
	sql := func(q string) *exec.Cmd {
		return exec.Command("mariadb", "--no-defaults", "-S", sock, "-uroot", "-D", "mysql", "-e", q)
	}
	if b, err := sql(c.setup).CombinedOutput(); err != nil {
		t.Fatalf("setup: %v\n%s", err, b)
	}
	if b, err := sql(c.stmt).CombinedOutput(); err == nil {
		t.Fatalf("%s: the statement finished: the cut library did not kill the server\n%s", c.stmt, b)
	}
	if !pollFor(func() bool { return gone(pid) }) {
		t.Fatal("the server did not die")
	}
	os.Remove(filepath.Join(d, "lab.pid"))
	isls, _ := filepath.Glob(filepath.Join(d, "*", "#sql-ib*"))
	ibds, _ := filepath.Glob(filepath.Join(ext, "*", "#sql-ib*"))
	local, _ := filepath.Glob(filepath.Join(d, "*", "#sql-ib*.ibd"))
	t.Logf("cut %v: %v %v %v", c.renameCut, isls, ibds, local)
	return d
}

// TestDDLCutPartitionedRenameAtFrm: RENAME TABLE of a partitioned table killed right before the
// rename of its .frm, after its partitions and its .par had taken the new name (crash-sweep
// --ddl-kill seeds 7109, 7208). The server's DDL recovery renames nothing back, and the table
// fails CHECK TABLE ("Failed to read from the .par file", Corrupt); diagnose said 0 errors. Now
// DDL_RECOVERY_FAILS (error), and recover's copy, on which the server gives the same CHECK
// TABLE, exits 1.
func TestDDLCutPartitionedRenameAtFrm(t *testing.T) {
	lab.Require(t)
	base := t.TempDir()
	c := ddlCut{
		options: []string{"--innodb-log-file-size=16M"},
		setup: `CREATE DATABASE db; CREATE TABLE db.p (a INT PRIMARY KEY, b VARCHAR(100)) ENGINE=InnoDB PARTITION BY HASH(a) PARTITIONS 3;
			INSERT INTO db.p SELECT seq, REPEAT('p', 40) FROM seq_1_to_900;
			CREATE TABLE db.k (a INT PRIMARY KEY) ENGINE=InnoDB; INSERT INTO db.k SELECT seq FROM seq_1_to_100;`,
		stmt: "RENAME TABLE db.p TO db.q", renameCut: [3]string{"before", "/p.frm", "/q.frm"},
	}
	crashed := crashAtRename(t, base, c)
	out, errs, code := run("diagnose", "--json", crashed)
	var j diagnoseJSON
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("diagnose: exit %d: %v\n%s", code, err, errs)
	}
	s := &lab.Scenario{Options: c.options}
	a := filepath.Join(base, "A")
	lab.CopyDir(t, crashed, a)
	va := s.ServerVerdict(t, a)
	t.Logf("the server's own recovery: started=%v tables_ok=%v\n%s", va.Started, va.TablesOK, va.Checks)
	if !va.Started || va.TablesOK || !strings.Contains(va.Checks, "db.p\t") {
		t.Fatalf("the server's own recovery: started=%v tables_ok=%v; want a start with db.p failing CHECK TABLE (the cut missed?)", va.Started, va.TablesOK)
	}
	fails := findings(j, "DDL_RECOVERY_FAILS")
	if code != ExitFindings || len(fails) != 1 || fails[0].Severity != finding.Error || !strings.Contains(fails[0].Message, "RENAME TABLE db.p TO db.q") {
		t.Errorf("diagnose: exit %d, DDL_RECOVERY_FAILS %+v; want one error for RENAME TABLE db.p TO db.q", code, fails)
	}
	cp := filepath.Join(base, "copy")
	if out, errs, code := run("recover", crashed, "--into", cp); code != ExitFindings {
		t.Errorf("recover: exit %d, want %d\n%s%s", code, ExitFindings, out, errs)
	}
	vb := s.ServerVerdict(t, cp)
	if !vb.Started || vb.CrashRecovery || vb.Checks != va.Checks || vb.Checksums != va.Checksums {
		t.Errorf("the server on the copy: started=%v crash_recovery=%v, CHECK TABLE\n%s\nwant as its own recovery's\n%s", vb.Started, vb.CrashRecovery, vb.Checks, va.Checks)
	}
}
