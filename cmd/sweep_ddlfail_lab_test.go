package cmd

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"innoscope/finding"
	"innoscope/internal/lab"
)

// TestSweep1451PartitionReplaceBlocked is crash-sweep seeds 1242, 1312, 1451 and 1480: the crash
// cut ALTER TABLE ... ADD PARTITION of a HASH table while ha_partition replaced the old
// partitions by the new ones (t#P#pN#TMP#): the drop of the old t#P#p0 had committed and its
// file t#P#p0.ibd was not removed yet. ddl_recovery.log holds "partitioning replace" actions in
// phase 0 for every partition. The server's DDL recovery drops t#P#p0 through InnoDB (which
// finds no such table in its dictionary and removes nothing), then renames t#P#p0#TMP# to
// t#P#p0, which InnoDB refuses ("Cannot rename './db/t#P#p0#TMP#.ibd' to './db/t#P#p0.ibd'
// because the target file exists."): the partition keeps its #TMP# name and the table loses it
// ("Failed to open table db/t#P#p0.", CHECK TABLE fails). diagnose reported only ORPHAN_FILE
// (info, "the server's DDL recovery removes or renames it") and DDL_RECOVERY (info).
//
// The same crash, made deterministic: the real server runs the workload with an LD_PRELOAD
// library that kills it at the unlink() of the old partition's file (a name ending in
// #P#p0.ibd without #TMP#), for a table in the data directory and for one whose partitions live
// in a DATA DIRECTORY. The judge is the server's own crash recovery of a copy: diagnose reports
// DDL_RECOVERY_FAILS (error) exactly when the server loses a table, naming the file in the way,
// and the [ERROR] messages it quotes are those the server logged. The lab's tmp_partition
// crashes (the same statement cut after a partition's rename or creation, which the server's
// rollback undoes before its DDL recovery completes the statement: every table passes CHECK
// TABLE) get no such finding.
func TestSweep1451PartitionReplaceBlocked(t *testing.T) {
	for _, c := range []struct{ name, table string }{
		{"datadir", "CREATE TABLE db.t (id INT PRIMARY KEY, a INT, v VARCHAR(200), KEY(a)) ENGINE=InnoDB PARTITION BY HASH (id) PARTITIONS 3"},
		{"data directory", "CREATE TABLE db.t (id INT PRIMARY KEY, a INT, v VARCHAR(200), KEY(a)) ENGINE=InnoDB DATA DIRECTORY='@EXT@' PARTITION BY HASH (id) PARTITIONS 3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			setup := "CREATE DATABASE db; " + c.table + `; INSERT INTO db.t SELECT seq, seq % 40, REPEAT('x', 100) FROM seq_1_to_3000;
				CREATE TABLE db.keep (a INT PRIMARY KEY) ENGINE=InnoDB; INSERT INTO db.keep SELECT seq FROM seq_1_to_100;`
			base, crashed := killAt(t, setup, "ALTER TABLE db.t ADD PARTITION PARTITIONS 1", "LAB_KILL_AT_UNLINK=#P#p0.ibd")
			judgeDDLRecovery(t, base, crashed, &lab.Scenario{Options: ddlFailOptions}, true)
		})
	}
	for _, name := range []string{"tmp_partition", "tmp_partition_create", "tmp_partition_dd"} {
		t.Run(name, func(t *testing.T) {
			s := lab.Get(t, name)
			for _, l := range strings.Split(strings.TrimSpace(s.Checks(t)), "\n") {
				if !strings.HasSuffix(l, "\tOK") {
					t.Fatalf("the server's own recovery of %s: CHECK TABLE %s", name, l)
				}
			}
			before := lab.HashTree(t, s.Crashed)
			j := diagnoseJSONOf(t, s.Crashed)
			for _, f := range j.Findings {
				if f.Code == "DDL_RECOVERY_FAILS" {
					t.Errorf("diagnose: %s %s: %s (the server's own recovery:\n%s)", f.Code, f.File, f.Message, s.Checks(t))
				}
			}
			if !reflect.DeepEqual(before, lab.HashTree(t, s.Crashed)) {
				t.Errorf("diagnose changed %s", s.Crashed)
			}
		})
	}
}

// TestSweep1312RenamePartitionedTableCut is crash-sweep seeds 1312 and 1480: the crash cut RENAME
// TABLE of a partitioned table after it had renamed (and committed) some partitions and before
// it renamed the .par and .frm files. The server's DDL recovery reverts the rename through the
// partition engine, which renames the partitions the .par file of the new name lists: there is
// no such file, so it renames nothing, and the table (its .frm and .par still under the old
// name) loses the renamed partitions ("Failed to open table db1/s2t8#P#p0."). diagnose reported
// MISSING_FRM (warning) for the renamed partitions and DDL_RECOVERY (info), no error.
//
// The same crash, made deterministic: the server kills itself right after it renamed the file
// of the second partition to its new name (that rename's transaction is rolled back; the first
// partition's was committed), in the data directory and across databases. The judge is the
// server's own recovery of a copy, as in TestSweep1451PartitionReplaceBlocked.
func TestSweep1312RenamePartitionedTableCut(t *testing.T) {
	for _, c := range []struct{ name, stmt, at string }{
		{"same database", "RENAME TABLE db.t TO db.t2", "LAB_KILL_AFTER_RENAME=/db/t2#P#p1.ibd"},
		{"across databases", "RENAME TABLE db.t TO db2.t", "LAB_KILL_AFTER_RENAME=/db2/t#P#p1.ibd"},
	} {
		t.Run(c.name, func(t *testing.T) {
			setup := `CREATE DATABASE db; CREATE DATABASE db2;
				CREATE TABLE db.t (id INT PRIMARY KEY, a INT, v VARCHAR(200), KEY(a)) ENGINE=InnoDB PARTITION BY HASH (id) PARTITIONS 3;
				INSERT INTO db.t SELECT seq, seq % 40, REPEAT('x', 100) FROM seq_1_to_3000;
				CREATE TABLE db.keep (a INT PRIMARY KEY) ENGINE=InnoDB; INSERT INTO db.keep SELECT seq FROM seq_1_to_100;`
			base, crashed := killAt(t, setup, c.stmt, c.at)
			judgeDDLRecovery(t, base, crashed, &lab.Scenario{Options: ddlFailOptions}, true)
		})
	}
}

var ddlFailOptions = []string{"--innodb-log-file-size=16M"}

// killAtC is an LD_PRELOAD library that kills the process with SIGKILL when it is about to
// unlink a file whose name ends with $LAB_KILL_AT_UNLINK and has no "#TMP#" in it, or right after
// it renamed a file to a name ending with $LAB_KILL_AFTER_RENAME.
const killAtC = `#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static int ends(const char *p, const char *env) {
  const char *w = getenv(env);
  size_t n = w ? strlen(w) : 0, m = strlen(p);
  return n && m >= n && !strcmp(p + m - n, w) && !strstr(p, "#TMP#");
}
int unlink(const char *p) {
  static int (*next)(const char *);
  if (!next) next = (int (*)(const char *))dlsym(RTLD_NEXT, "unlink");
  if (ends(p, "LAB_KILL_AT_UNLINK")) kill(getpid(), SIGKILL);
  return next(p);
}
int unlinkat(int dir, const char *p, int flags) {
  static int (*next)(int, const char *, int);
  if (!next) next = (int (*)(int, const char *, int))dlsym(RTLD_NEXT, "unlinkat");
  if (ends(p, "LAB_KILL_AT_UNLINK")) kill(getpid(), SIGKILL);
  return next(dir, p, flags);
}
int rename(const char *from, const char *to) {
  static int (*next)(const char *, const char *);
  if (!next) next = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
  int r = next(from, to);
  if (r == 0 && ends(to, "LAB_KILL_AFTER_RENAME")) kill(getpid(), SIGKILL);
  return r;
}
`

// killAt starts a fresh server with the kill library (killAtC) set by at (LAB_KILL_...=suffix),
// runs setup (@EXT@: a DATA DIRECTORY of the test's own), then stmt, during which the server
// kills itself. It returns the test's directory and the crashed data directory.
func killAt(t *testing.T, setup, stmt, at string) (string, string) {
	t.Helper()
	base, so := preloadLib(t, "ddlfail", killAtC)
	ext := filepath.Join(base, "ext")
	if err := os.Mkdir(ext, 0o750); err != nil {
		t.Fatal(err)
	}
	d := killedBy(t, base, []string{"LD_PRELOAD=" + so, at}, strings.ReplaceAll(setup, "@EXT@", ext), nil, stmt, at)
	return base, d
}

// killedBy starts a fresh server in base with env (its kill library's), runs setup, then arm (if
// set), then stmt, during which the server must kill itself at the point what names; it returns
// the crashed data directory.
func killedBy(t *testing.T, base string, env []string, setup string, arm func(), stmt, what string) string {
	t.Helper()
	d, sock := filepath.Join(base, "data"), filepath.Join(base, "lab.sock")
	pid := freshServer(t, base, env, ddlFailOptions...)
	defer syscall.Kill(pid, syscall.SIGKILL) // when the statement did not kill it
	sql := func(q string) ([]byte, error) {
		return exec.Command("mariadb", "--no-defaults", "-S", sock, "-uroot", "-D", "mysql", "-e", q).CombinedOutput()
	}
	if b, err := sql(setup); err != nil {
		t.Fatalf("setup: %v\n%s", err, b)
	}
	if arm != nil {
		arm()
	}
	if b, err := sql(stmt); err == nil {
		t.Fatalf("%s completed: the server never reached %s\n%s", stmt, what, b)
	}
	if !pollFor(func() bool { return gone(pid) }) {
		t.Fatal("the server did not die")
	}
	os.Remove(filepath.Join(d, "lab.pid"))
	return d
}

// diagnoseJSONOf is diagnose --json of dir.
func diagnoseJSONOf(t *testing.T, dir string) diagnoseJSON {
	t.Helper()
	out, errs, _ := run("diagnose", "--json", "--fail-on", "none", dir)
	var j diagnoseJSON
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("diagnose: %v\n%s", err, errs)
	}
	return j
}

// judgeDDLRecovery diagnoses crashed (before any server runs on a copy: its crash recovery
// writes into the DATA DIRECTORY the log names), then starts the real server on a copy and
// compares: DDL_RECOVERY_FAILS exactly when the server loses a table, naming a file the server's
// messages name, quoting [ERROR] messages the server logged; no ORPHAN_FILE saying the DDL
// recovery removes that file. wantLoss: the crash was made for the server to lose a table.
func judgeDDLRecovery(t *testing.T, base, crashed string, s *lab.Scenario, wantLoss bool) {
	t.Helper()
	j, v := diagnoseThenServer(t, base, crashed, s)
	if !v.Started || !v.CrashRecovery {
		t.Fatalf("the server's own recovery: started=%v crash_recovery=%v", v.Started, v.CrashRecovery)
	}
	if lost := !v.TablesOK; lost != wantLoss {
		t.Fatalf("the server's own recovery lost a table: %v, the crash was made for %v", lost, wantLoss)
	}
	serverErrs := errorMessages(t, v.ErrLog)
	var fails []finding.Finding
	for _, f := range j.Findings {
		if f.Code == "DDL_RECOVERY_FAILS" {
			fails = append(fails, f)
		}
		if f.Severity == finding.Error && f.Code != "DDL_RECOVERY_FAILS" {
			t.Errorf("diagnose: %s %s: %s", f.Code, f.File, f.Message)
		}
	}
	if (len(fails) > 0) != !v.TablesOK {
		t.Fatalf("diagnose: %d DDL_RECOVERY_FAILS findings; the server's own recovery: tables ok=%v\nfindings: %+v", len(fails), v.TablesOK, j.Findings)
	}
	quoted := regexp.MustCompile(`"\[ERROR\] ([^"]*)"`)
	for _, f := range fails {
		if f.Severity != finding.Error {
			t.Errorf("DDL_RECOVERY_FAILS is %s, want error", f.Severity)
		}
		q := quoted.FindAllStringSubmatch(f.Message, -1)
		if len(q) == 0 || !strings.Contains(q[len(q)-1][1], "Failed to open table") {
			t.Errorf("DDL_RECOVERY_FAILS quotes no \"Failed to open table\" of the server: %s", f.Message)
		}
		for _, m := range q {
			if !serverErrs[m[1]] {
				t.Errorf("DDL_RECOVERY_FAILS quotes %q; the server logged no such [ERROR]:\n%s", m[1], serverLines(t, v.ErrLog))
			}
		}
		if _, err := os.Stat(f.File); err != nil {
			t.Errorf("DDL_RECOVERY_FAILS names %s, which is not in the crashed directory: %v", f.File, err)
		}
		for _, o := range j.Findings {
			if o.Code == "ORPHAN_FILE" && o.File == f.File && strings.Contains(o.Message, "removes or renames it") {
				t.Errorf("ORPHAN_FILE %s: %s (the DDL recovery fails on that file)", o.File, o.Message)
			}
		}
	}
}

// preloadLib makes a test directory (removed after the test) named after prefix and builds the
// C source src there as an LD_PRELOAD library; it returns the directory and the library's path.
func preloadLib(t *testing.T, prefix, src string) (base, so string) {
	t.Helper()
	lab.Require(t)
	base, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	c := filepath.Join(base, prefix+".c")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	so = filepath.Join(base, prefix+".so")
	if b, err := exec.Command("cc", "-shared", "-fPIC", "-o", so, c, "-ldl").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, b)
	}
	return base, so
}

// diagnoseThenServer diagnoses crashed (checking it is left unchanged), then has the real server
// recover a copy of it in base/A with s's options; it returns both.
func diagnoseThenServer(t *testing.T, base, crashed string, s *lab.Scenario) (diagnoseJSON, lab.Verdict) {
	t.Helper()
	before := lab.HashTree(t, crashed)
	j := diagnoseJSONOf(t, crashed)
	if !reflect.DeepEqual(before, lab.HashTree(t, crashed)) {
		t.Errorf("diagnose changed %s", crashed)
	}
	a := filepath.Join(base, "A")
	lab.CopyDir(t, crashed, a)
	v := s.ServerVerdict(t, a)
	t.Logf("the server's own recovery: started=%v crash_recovery=%v tables_ok=%v\n%s\n%s", v.Started, v.CrashRecovery, v.TablesOK, v.Checks, serverLines(t, v.ErrLog))
	return j, v
}
