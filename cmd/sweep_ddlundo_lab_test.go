package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"innoscope/finding"
	"innoscope/internal/lab"
)

// The crash-sweep seeds 1051, 1053, 1055 and 1146 were killed inside a DDL statement after its
// file operation and before its commit: TRUNCATE had renamed the table's file to #sql-ibN.ibd and
// created the new file under the table's name (1051: partition p0 of a partitioned table; 1053: a
// table; 1146: partition p1, with innodb_undo_tablespaces=3), RENAME TABLE across databases had
// renamed the file (1055). The server's crash recovery applies the log (the tablespaces are then
// open under their new names), and rolls the DDL transaction back: the new file is deleted and the
// old one renamed back. The server started on innoscope's copy runs no crash recovery and has
// none of them open: its rollback changes only the dictionary, so it found the new tablespace
// where the dictionary names the old one ("Refusing to load './db/t.ibd' (id=6 ...); dictionary
// contains id=5") or no file ("Cannot open datafile ... OS error 71"), and lost the table.
//
// The same cut, made deterministic: the real server runs the statement while strace holds the
// thread right after the system call (the open that creates the new file, or the rename) has
// returned; then SIGKILL. The judge is the server: its own crash recovery of a copy against the
// server started on innoscope's copy (no crash recovery, no [ERROR] of its own, the same CHECK
// TABLE and CHECKSUM TABLE).

// TestSweep1051TruncatePartitionCut: TRUNCATE of a partitioned table cut in its first partition.
func TestSweep1051TruncatePartitionCut(t *testing.T) {
	cutDDL(t, ddlCut{
		options: []string{"--innodb-log-file-size=8M", "--innodb-buffer-pool-size=8M"},
		setup: `CREATE DATABASE db1; CREATE TABLE db1.t (a INT PRIMARY KEY, b VARCHAR(100)) ENGINE=InnoDB
			PARTITION BY HASH(a) PARTITIONS 3; INSERT INTO db1.t SELECT seq, REPEAT('x', 50) FROM seq_1_to_3000;
			CREATE TABLE db1.keep (a INT PRIMARY KEY) ENGINE=InnoDB; INSERT INTO db1.keep SELECT seq FROM seq_1_to_100;`,
		stmt: "TRUNCATE TABLE db1.t", call: "openat", held: "./db1/t#P#p0.ibd",
	})
}

// TestSweep1053TruncateCut: TRUNCATE TABLE cut after the new file was created.
func TestSweep1053TruncateCut(t *testing.T) {
	cutDDL(t, ddlCut{
		options: []string{"--innodb-log-file-size=8M"},
		setup: `CREATE DATABASE db2; CREATE TABLE db2.t (a INT PRIMARY KEY, b VARCHAR(100), KEY (b)) ENGINE=InnoDB;
			INSERT INTO db2.t SELECT seq, REPEAT('y', 60) FROM seq_1_to_2000;`,
		stmt: "TRUNCATE TABLE db2.t", call: "openat", held: "./db2/t.ibd",
	})
}

// TestSweep1055RenameAcrossDatabasesCut: RENAME TABLE db2.t TO db1.t cut after the file rename.
func TestSweep1055RenameAcrossDatabasesCut(t *testing.T) {
	cutDDL(t, ddlCut{
		options: []string{"--innodb-log-file-size=48M", "--innodb-buffer-pool-size=8M"},
		setup: `CREATE DATABASE db1; CREATE DATABASE db2; CREATE TABLE db2.t (a INT PRIMARY KEY, b TEXT) ENGINE=InnoDB;
			INSERT INTO db2.t SELECT seq, REPEAT('z', 200) FROM seq_1_to_1000;`,
		stmt: "RENAME TABLE db2.t TO db1.t", call: "rename", held: "./db2/t.ibd",
	})
}

// TestSweep1146TruncateSecondPartitionUndoTablespaces: TRUNCATE of a partitioned table cut in its
// second partition (the first one's truncation committed), undo logs in undo tablespaces.
func TestSweep1146TruncateSecondPartitionUndoTablespaces(t *testing.T) {
	cutDDL(t, ddlCut{
		options: []string{"--innodb-log-file-size=8M", "--innodb-undo-tablespaces=3", "--innodb-undo-log-truncate=ON",
			"--innodb-max-undo-log-size=10M"},
		setup: `CREATE DATABASE db1; CREATE TABLE db1.t (a INT PRIMARY KEY, b VARCHAR(100)) ENGINE=InnoDB
			PARTITION BY RANGE (a) (PARTITION p0 VALUES LESS THAN (1000), PARTITION p1 VALUES LESS THAN (2000),
			PARTITION p2 VALUES LESS THAN MAXVALUE); INSERT INTO db1.t SELECT seq, REPEAT('w', 40) FROM seq_1_to_3000;`,
		stmt: "TRUNCATE TABLE db1.t", call: "openat", held: "./db1/t#P#p1.ibd",
	})
}

// TestDDLCutDataDirectoryTruncate: TRUNCATE of a DATA DIRECTORY table cut after the new file was
// created (seed 1146's table had such a partition). The server's rollback renames the file back
// within its directory; its own recovery keeps the table open from memory (it leaves the link of
// the #sql-ib name and writes none for the table), the copy's link names the renamed file.
func TestDDLCutDataDirectoryTruncate(t *testing.T) {
	cutDDL(t, ddlCut{
		options: []string{"--innodb-log-file-size=16M"},
		setup: `CREATE DATABASE db; CREATE TABLE db.r (a INT PRIMARY KEY, b VARCHAR(100)) ENGINE=InnoDB DATA DIRECTORY='@EXT@';
			INSERT INTO db.r SELECT seq, REPEAT('x', 50) FROM seq_1_to_1000;`,
		stmt: "TRUNCATE TABLE db.r", call: "openat", held: "@EXT@/db/r.ibd",
	})
}

// ddlCut is one statement cut by SIGKILL after the system call call on held (as the server
// spells the path) returned.
type ddlCut struct {
	options     []string
	setup, stmt string
	call, held  string
	// renameCut cuts the statement instead (crashAtRename; call and held unused) right
	// "before" or "after" ([0]) a rename whose old name holds [1] and whose new name holds [2].
	renameCut [3]string
}

// cutDDL makes the crash, recovers it with innoscope and judges the copy with the server.
func cutDDL(t *testing.T, c ddlCut) {
	lab.Require(t)
	if _, err := exec.LookPath("strace"); err != nil {
		t.Fatal("strace is not installed (scripts/mariadb-lab.sh install installs it): it holds the server inside the DDL statement")
	}
	base, err := os.MkdirTemp("", "ddlcut")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	var crashed string
	if c.renameCut[0] != "" {
		crashed = crashAtRename(t, base, c)
	} else {
		crashed = crashInside(t, base, c)
	}

	before := lab.HashTree(t, crashed)
	cp := filepath.Join(base, "copy")
	out, errs, code := run("recover", "--json", crashed, "--into", cp)
	if code != ExitClean {
		t.Fatalf("recover: exit %d\n%s\n%s", code, out, errs)
	}
	var j struct {
		Result struct {
			RolledBack []struct {
				Action, Table string
			} `json:"rolled_back_ddl"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	if len(j.Result.RolledBack) == 0 {
		t.Errorf("recover: no rolled_back_ddl for the statement the crash cut (%s)", c.stmt)
	}
	if !reflect.DeepEqual(before, lab.HashTree(t, crashed)) {
		t.Errorf("recover changed its source %s", crashed)
	}

	// diagnose (before the server's recovery of a copy, which writes into the DATA DIRECTORY the
	// log names) names the transaction the server rolls back, and reports an error only where
	// the server's own recovery failed.
	dout, derrs, _ := run("diagnose", "--json", "--fail-on", "none", crashed)
	var dj diagnoseJSON
	if err := json.Unmarshal([]byte(dout), &dj); err != nil {
		t.Fatalf("diagnose: %v\n%s", err, derrs)
	}

	s := &lab.Scenario{Options: c.options}
	a := filepath.Join(base, "A")
	lab.CopyDir(t, crashed, a)
	va := s.ServerVerdict(t, a)
	if !va.Started || !va.CrashRecovery || !logHas(t, va.ErrLog, "Rolled back recovered transaction") {
		t.Fatalf("the server's own recovery did not roll a transaction back (started=%v crash_recovery=%v): the cut missed\n%s",
			va.Started, va.CrashRecovery, serverLines(t, va.ErrLog))
	}
	named := 0
	for _, f := range dj.Findings {
		if f.Code == "UNCOMMITTED_DDL" {
			named++
		}
		if f.Severity == finding.Error && va.TablesOK {
			t.Errorf("diagnose: %s %s: %s (the server's own recovery passed every table)", f.Code, f.File, f.Message)
		}
	}
	if named != 1 {
		t.Errorf("diagnose: %d UNCOMMITTED_DDL findings, want 1: %+v", named, dj.Findings)
	}
	vb := s.ServerVerdict(t, cp)
	t.Logf("server on the copy: started=%v crash_recovery=%v tables_ok=%v\n%s", vb.Started, vb.CrashRecovery, vb.TablesOK, serverLines(t, vb.ErrLog))
	if !vb.Started || vb.CrashRecovery {
		t.Fatalf("the server on innoscope's copy: started=%v crash_recovery=%v", vb.Started, vb.CrashRecovery)
	}
	if extra := errorsOnlyIn(t, vb.ErrLog, va.ErrLog); len(extra) > 0 {
		t.Errorf("the server on the copy logged errors its own recovery did not:\n%s", strings.Join(extra, "\n"))
	}
	if vb.Checks != va.Checks {
		t.Errorf("CHECK TABLE on the copy:\n%s\nafter the server's own recovery:\n%s", vb.Checks, va.Checks)
	}
	if vb.Checksums != va.Checksums {
		t.Errorf("CHECKSUM TABLE on the copy:\n%s\nafter the server's own recovery:\n%s", vb.Checksums, va.Checksums)
	}
	// and the datafiles are those the server's own recovery leaves
	if fa, fb := ibdFiles(t, a), ibdFiles(t, cp); !reflect.DeepEqual(fa, fb) {
		t.Errorf("datafiles after the server started on the copy: %q; after its own recovery: %q", fb, fa)
	}
}

// ibdFiles are the .ibd files under dir, relative to it.
func ibdFiles(t *testing.T, dir string) []string {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".ibd") {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// crashInside starts a fresh server in base, runs the setup, then the statement under strace
// (the thread making call on held is delayed right after it returns), and SIGKILLs the server
// there. It returns the crashed data directory.
func crashInside(t *testing.T, base string, c ddlCut) string {
	d, sock := filepath.Join(base, "data"), filepath.Join(base, "lab.sock")
	// @EXT@ in the statements is a DATA DIRECTORY of the test's own (the log names it by its
	// absolute path: the server's recovery of a copy writes there, after recover has read it).
	ext := filepath.Join(base, "ext")
	if err := os.Mkdir(ext, 0o750); err != nil {
		t.Fatal(err)
	}
	c.setup, c.held = strings.ReplaceAll(c.setup, "@EXT@", ext), strings.ReplaceAll(c.held, "@EXT@", ext)
	pid := freshServer(t, base, nil, c.options...)
	killed := false
	defer func() {
		if !killed {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}()
	sql := func(q string) *exec.Cmd {
		return exec.Command("mariadb", "--no-defaults", "-S", sock, "-uroot", "-D", "mysql", "-e", q)
	}
	if b, err := sql(c.setup).CombinedOutput(); err != nil {
		t.Fatalf("setup: %v\n%s", err, b)
	}
	trace := filepath.Join(base, "strace.out")
	st := exec.Command("strace", "-f", "-qq", "-p", strconv.Itoa(pid), "-P", c.held, "-e", "trace="+c.call,
		"-e", "inject="+c.call+":delay_exit=120000000", "-o", trace)
	if err := st.Start(); err != nil {
		t.Fatal(err)
	}
	defer st.Wait()
	if !pollFor(func() bool { return traced(pid) }) {
		t.Fatal("strace did not attach to the server")
	}
	stmt := sql(c.stmt)
	if err := stmt.Start(); err != nil {
		t.Fatal(err)
	}
	defer stmt.Wait()
	if !pollFor(func() bool { b, _ := os.ReadFile(trace); return strings.Contains(string(b), "(DELAYED)") }) {
		b, _ := os.ReadFile(trace)
		t.Fatalf("the statement never made %s on %s:\n%s", c.call, c.held, b)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed = true
	if !pollFor(func() bool { return gone(pid) }) {
		t.Fatal("the server did not die")
	}
	st.Process.Kill() // strace would sit out the delay of a thread that is gone
	os.Remove(filepath.Join(d, "lab.pid"))
	b, _ := os.ReadFile(trace)
	t.Logf("cut at:\n%s", firstLines(string(b), 3))
	return d
}

// pollFor polls cond for up to 60 seconds.
func pollFor(cond func() bool) bool {
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}

// traced: every thread of pid has a tracer.
func traced(pid int) bool {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil || len(tasks) == 0 {
		return false
	}
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/status", pid, task.Name()))
		if err != nil || strings.Contains(string(b), "TracerPid:\t0\n") {
			return false
		}
	}
	return true
}

// gone: pid has exited (no process, or a zombie).
func gone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	f := strings.Fields(string(b)[strings.LastIndexByte(string(b), ')')+1:])
	return len(f) > 0 && (f[0] == "Z" || f[0] == "X")
}

func logHas(t *testing.T, path, s string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(b), s)
}

// errorsOnlyIn are the [ERROR] messages of log b (timestamps cut) that log a does not have.
func errorsOnlyIn(t *testing.T, b, a string) []string {
	msgs := func(p string) map[string]bool {
		out, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]bool{}
		for _, l := range strings.Split(string(out), "\n") {
			if i := strings.Index(l, "[ERROR] "); i >= 0 {
				m[l[i+len("[ERROR] "):]] = true
			}
		}
		return m
	}
	ma := msgs(a)
	var extra []string
	for m := range msgs(b) {
		if !ma[m] {
			extra = append(extra, m)
		}
	}
	sort.Strings(extra)
	return extra
}

func firstLines(s string, n int) string {
	l := strings.SplitN(s, "\n", n+1)
	if len(l) > n {
		l = l[:n]
	}
	return strings.Join(l, "\n")
}

// freshServer starts a fresh server of the lab script in base (data directory base/data,
// socket base/lab.sock) with the extra environment env and server options, and returns its pid.
func freshServer(t *testing.T, base string, env []string, options ...string) int {
	script := filepath.Join(lab.Root(), "scripts", "mariadb-lab.sh")
	cmd := exec.Command("bash", append([]string{"-c", `source "$0" functions; fresh_server "$@"`, script, base}, options...)...)
	cmd.Env = append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fresh server: %v\n%s", err, b)
	}
	pidb, err := os.ReadFile(filepath.Join(base, "data", "lab.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(pidb)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}
