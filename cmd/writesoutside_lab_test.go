package cmd

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"

	"innoscope/finding"
	"innoscope/internal/lab"
)

// TestCopyWritesOutside (issue 28 item 2): a `cp -a` copy of a crashed data directory with a
// DATA DIRECTORY table. The real server started on the copy writes into the original's external
// .ibd (its crash recovery opens the file by the absolute path the log names). diagnose of the
// copy said only info UNPROTECTED_LOCATION; now WRITES_OUTSIDE names each file outside the copy,
// an error there (the log writes the file, the original beside it links it, the copy is the
// later one) and a warning in the original (no error: its own files). The files the server
// changed outside the copy are exactly those named. recover --into makes a copy the server
// starts on without touching them.
func TestCopyWritesOutside(t *testing.T) {
	lab.Require(t)
	base, err := os.MkdirTemp("", "writesoutside")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	opts := []string{"--innodb-log-file-size=16M"}
	orig, ext := crashDataDirectory(t, base, opts)
	cp := filepath.Join(base, "data-copy")
	if b, err := exec.Command("cp", "-a", orig, cp).CombinedOutput(); err != nil {
		t.Fatalf("cp -a: %v\n%s", err, b)
	}

	outside := func(dir string) map[string]finding.Severity {
		out, errs, _ := run("diagnose", "--json", "--fail-on", "none", dir)
		var j diagnoseJSON
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatalf("diagnose %s: %v\n%s", dir, err, errs)
		}
		m := map[string]finding.Severity{}
		for _, f := range j.Findings {
			if f.Code == "WRITES_OUTSIDE" {
				m[f.File] = f.Severity
				if !strings.Contains(f.Message, "starting mariadbd on this directory writes "+f.File+", which is outside it") || !strings.Contains(f.Message, "recover --into") {
					t.Errorf("%s: %s", f.File, f.Message)
				}
			} else if f.Severity == finding.Error {
				t.Errorf("diagnose %s: %s %s: %s", dir, f.Code, f.File, f.Message)
			}
		}
		return m
	}
	remote := filepath.Join(ext, "db", "r.ibd")
	if got := outside(orig); !reflect.DeepEqual(got, map[string]finding.Severity{remote: finding.Warning}) {
		t.Errorf("diagnose of the original: WRITES_OUTSIDE %v, want a warning for %s", got, remote)
	}
	named := outside(cp)
	if !reflect.DeepEqual(named, map[string]finding.Severity{remote: finding.Error}) {
		t.Errorf("diagnose of the copy: WRITES_OUTSIDE %v, want an error for %s", named, remote)
	}
	if _, _, code := run("diagnose", cp); code != ExitFindings {
		t.Errorf("diagnose of the copy: exit %d, want %d", code, ExitFindings)
	}

	// recover's copy of the copy: the server starts on it and leaves the original's files alone.
	before := lab.HashTree(t, ext)
	s := &lab.Scenario{Options: opts}
	rc := filepath.Join(base, "recovered")
	if out, errs, code := run("recover", cp, "--into", rc); code != ExitClean {
		t.Fatalf("recover: exit %d\n%s%s", code, out, errs)
	}
	if v := s.ServerVerdict(t, rc); !v.Started || v.CrashRecovery || !v.TablesOK {
		t.Errorf("the server on recover's copy: started %v, crash recovery %v, tables OK %v", v.Started, v.CrashRecovery, v.TablesOK)
	}
	if !reflect.DeepEqual(before, lab.HashTree(t, ext)) {
		t.Errorf("the server on recover's copy changed %s", ext)
	}

	// The real server on the cp -a copy: the files it changed outside the copy are those named.
	v := s.ServerVerdict(t, cp)
	if !v.Started || !v.CrashRecovery {
		t.Fatalf("the server on the cp -a copy: started %v, crash recovery %v", v.Started, v.CrashRecovery)
	}
	after := lab.HashTree(t, ext)
	var changed, want []string
	for p, h := range after {
		if before[p] != h {
			changed = append(changed, p)
		}
	}
	for p := range named {
		want = append(want, p)
	}
	sort.Strings(changed)
	sort.Strings(want)
	t.Logf("the server on the cp -a copy changed %v", changed)
	if len(changed) == 0 || !reflect.DeepEqual(changed, want) {
		t.Errorf("the server on the cp -a copy changed %v outside it; diagnose named %v", changed, want)
	}
}

// crashDataDirectory starts a fresh server in base with a DATA DIRECTORY table db.r in base/ext
// and a table db.l, changes both after a checkpoint and kills the server: the crashed data
// directory (base/data) and the external directory.
func crashDataDirectory(t *testing.T, base string, opts []string) (string, string) {
	ext := filepath.Join(base, "ext")
	if err := os.MkdirAll(ext, 0o750); err != nil {
		t.Fatal(err)
	}
	pid := freshServer(t, base, nil, opts...)
	killed := false
	defer func() {
		if !killed {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}()
	sql := `CREATE DATABASE db; CREATE TABLE db.l (a INT PRIMARY KEY, b VARCHAR(100)) ENGINE=InnoDB;
		CREATE TABLE db.r (a INT PRIMARY KEY, b VARCHAR(100)) ENGINE=InnoDB DATA DIRECTORY='` + ext + `';
		INSERT INTO db.l SELECT seq, 'l' FROM seq_1_to_1000; INSERT INTO db.r SELECT seq, 'r' FROM seq_1_to_1000;
		SET GLOBAL innodb_log_checkpoint_now=1;
		INSERT INTO db.r SELECT seq, REPEAT('x', 90) FROM seq_1001_to_4000; UPDATE db.l SET b = 'changed' WHERE a < 500;`
	if b, err := exec.Command("mariadb", "--no-defaults", "-S", filepath.Join(base, "lab.sock"), "-uroot", "-D", "mysql", "-e", sql).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed = true
	if !pollFor(func() bool { return gone(pid) }) {
		t.Fatal("the server did not die")
	}
	orig := filepath.Join(base, "data")
	os.Remove(filepath.Join(orig, "lab.pid"))
	return orig, ext
}
