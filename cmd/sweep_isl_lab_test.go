package cmd

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"innoscope/internal/lab"
)

// islWorkload makes, with the real server, the .isl states of crash-sweep seeds 1050, 1071,
// 1077, 1096, 1115, 1123, 1125 and 1006 in one crash (@EXT@ is the DATA DIRECTORY):
//
//   - db1.w: a DATA DIRECTORY table db2.z renamed to db1.w and dropped leaves db1/w.isl naming
//     EXT/db2/w.ibd, which is gone (the drop deletes the link of the tablespace's name, taken from
//     the file's folder: db2/w.isl); db1.w is created again without DATA DIRECTORY, all before
//     the checkpoint. The server's own recovery opens db1.w through the stale link as any
//     start does, and logs the same errors (seeds 1050, 1077, 1096, 1115).
//   - db1.y: the same leftover db1/y.isl, but db1.y is created again after the checkpoint: the
//     server's recovery opens ./db1/y.ibd by the log's name and never reads the link; a server
//     started without recovery reads it first and logs four [ERROR] lines (seeds 1071, 1123,
//     1125).
//   - db1.a, db1.b: a DATA DIRECTORY table and a plain one swap names by RENAME after the
//     checkpoint: SYS_TABLES on disk still calls the DATA DIRECTORY one db1/a, which after
//     recovery is the plain one (seed 1096).
//   - db1.r: a DATA DIRECTORY table renamed from db2, changed after the checkpoint: the log names
//     its file in the DATA DIRECTORY's db2 folder (seed 1006).
const islWorkload = `CREATE DATABASE db1; CREATE DATABASE db2;
CREATE TABLE db2.z (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB DATA DIRECTORY='@EXT@';
RENAME TABLE db2.z TO db1.w;
DROP TABLE db1.w;
CREATE TABLE db1.w (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
INSERT INTO db1.w SELECT seq, 'w' FROM seq_1_to_100;
CREATE TABLE db2.x (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB DATA DIRECTORY='@EXT@';
INSERT INTO db2.x SELECT seq, 'x' FROM seq_1_to_100;
RENAME TABLE db2.x TO db1.y;
DROP TABLE db1.y;
CREATE TABLE db2.r (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB DATA DIRECTORY='@EXT@';
INSERT INTO db2.r SELECT seq, 'r' FROM seq_1_to_100;
RENAME TABLE db2.r TO db1.r;
CREATE TABLE db1.a (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB DATA DIRECTORY='@EXT@';
CREATE TABLE db1.b (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
INSERT INTO db1.a SELECT seq, 'a' FROM seq_1_to_100;
INSERT INTO db1.b SELECT seq, 'b' FROM seq_1_to_200;
SET GLOBAL innodb_log_checkpoint_now=1;
CREATE TABLE db1.y (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
INSERT INTO db1.y SELECT seq, 'y' FROM seq_1_to_300;
INSERT INTO db1.r SELECT seq, 'more' FROM seq_101_to_400;
RENAME TABLE db1.a TO db1.tmp, db1.b TO db1.a, db1.tmp TO db1.b;
INSERT INTO db1.a SELECT seq, 'x' FROM seq_1001_to_1100;
`

// islCrashScript makes the crash as scripts/crash-sweep.sh lays one out in W: crashed/ and
// ext-crashed/ as SIGKILL left them, A (the server's own recovery of a copy, with W/ext leading
// to a copy of the external directory while it runs: the log and the .isl files name W/ext) and
// its verdict files A.err, A.checks, A.checksums.
const islCrashScript = `set -euo pipefail
w=$1 lab=$2; shift 2
source "$lab" functions
opts=("$@")
# A step that fails leaves no server of ours running (its pid file names it).
trap 'for p in "$w/data/lab.pid" "$w/A/lab.pid"; do [ -f "$p" ] && kill -9 "$(cat "$p")" 2>/dev/null; done; true' ERR
fresh_server "$w" "${opts[@]}"
sql "$w/lab.sock" "$(cat "$w/workload.sql")"
crash "$w/data"
mv "$w/data" "$w/crashed"; mv "$w/ext" "$w/ext-crashed"
cp -a "$w/crashed" "$w/A"; cp -a "$w/ext-crashed" "$w/ext-A"; ln -s ext-A "$w/ext"
verdict_of "$w/A" "$w/A" "${opts[@]}"
rm "$w/ext"; ln -s ext-crashed "$w/ext"
`

// islOptions keep the dictionary pages of the statements after the checkpoint out of the
// crashed files (no adaptive flushing, dirty pages allowed up to 99%).
var islOptions = []string{"--innodb-log-file-size=64M", "--innodb-adaptive-flushing=OFF", "--innodb-max-dirty-pages-pct=99"}

var (
	islOnce  sync.Once
	islDir   string
	islError string
)

// removeISLCrash removes the crash of islWorkload after the tests (TestMain): the tests share it.
func removeISLCrash() {
	if islDir != "" {
		os.RemoveAll(filepath.Dir(islDir))
	}
}

// islCrash returns the crash directory W of islWorkload (made once per test process).
func islCrash(t *testing.T) string {
	t.Helper()
	lab.Require(t)
	islOnce.Do(func() {
		base, err := os.MkdirTemp("", "innoscope-isl-")
		if err != nil {
			islError = err.Error()
			return
		}
		w := filepath.Join(base, "seed")
		islDir = w // removed by TestMain, made or not
		if err := os.MkdirAll(filepath.Join(w, "ext"), 0o755); err != nil {
			islError = err.Error()
			return
		}
		sql := strings.ReplaceAll(islWorkload, "@EXT@", filepath.Join(w, "ext"))
		if err := os.WriteFile(filepath.Join(w, "workload.sql"), []byte(sql), 0o644); err != nil {
			islError = err.Error()
			return
		}
		args := append([]string{"-c", islCrashScript, "isl", w, filepath.Join(lab.Root(), "scripts", "mariadb-lab.sh")}, islOptions...)
		if b, err := exec.Command("bash", args...).CombinedOutput(); err != nil {
			islError = err.Error() + "\n" + string(b)
		}
	})
	if islError != "" {
		t.Fatalf("making the crash: %s", islError)
	}
	return islDir
}

var (
	islCopyOnce  sync.Once
	islCopyError string
)

// islCopy recovers W/crashed into W/B with innoscope (once per test process: the tests judge one
// copy), checks that the source did not change, and starts the server on the copy (B.err,
// B.checks, B.checksums beside A's).
func islCopy(t *testing.T) string {
	t.Helper()
	w := islCrash(t)
	islCopyOnce.Do(func() {
		if islCopyError = recoverSweepCopy(t, w); islCopyError != "" {
			return
		}
		script := `set -euo pipefail; source "$2" functions; shift 2; verdict_of "$W/B" "$W/B" "$@"`
		cmd := exec.Command("bash", append([]string{"-c", script, "isl", "", filepath.Join(lab.Root(), "scripts", "mariadb-lab.sh")}, islOptions...)...)
		cmd.Env = append(os.Environ(), "W="+w)
		if b, err := cmd.CombinedOutput(); err != nil {
			islCopyError = "the server on the copy: " + err.Error() + "\n" + string(b)
		}
	})
	if islCopyError != "" {
		t.Fatal(islCopyError)
	}
	return w
}

// sweepErrorsOnlyInB is the crash sweep's own judgement (errors_only_in of
// scripts/crash-sweep.sh, run as the script defines it): the [ERROR] messages the server logged
// on innoscope's copy that it did not log while recovering the crash itself.
func sweepErrorsOnlyInB(t *testing.T, w string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(lab.Root(), "scripts", "crash-sweep.sh"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	i := strings.Index(src, "\nerrors_only_in() {")
	j := strings.Index(src[i+1:], "\n}\n")
	if i < 0 || j < 0 {
		t.Fatal("scripts/crash-sweep.sh defines no errors_only_in")
	}
	fn := src[i+1 : i+1+j+2]
	out, err := exec.Command("bash", "-c", fn+"\nerrors_only_in \"$1/B.err\" \"$1/A.err\"", "sweep", w).Output()
	if err != nil {
		t.Fatalf("errors_only_in: %v", err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// islJudge fails when the server on innoscope's copy ran crash recovery, logged an [ERROR] its
// own recovery did not (as the sweep judges it) that names one of the about strings, or gave
// other CHECK TABLE or CHECKSUM TABLE results.
func islJudge(t *testing.T, w string, about ...string) {
	t.Helper()
	read := func(n string) string {
		b, err := os.ReadFile(filepath.Join(w, n))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if v := read("B.txt"); !strings.Contains(v, "started=1") || !strings.Contains(v, "crash_recovery=0") {
		t.Fatalf("the server on the copy:\n%s", v)
	}
	for _, l := range sweepErrorsOnlyInB(t, w) {
		for _, a := range about {
			if strings.Contains(l, a) {
				t.Errorf("the server on innoscope's copy logged, and on its own recovery did not: %s", l)
				break
			}
		}
	}
	if a, b := read("A.checks"), read("B.checks"); a != b {
		t.Errorf("CHECK TABLE on the copy:\n%s\nafter the server's own recovery:\n%s", b, a)
	}
	if a, b := read("A.checksums"), read("B.checksums"); a != b {
		t.Errorf("CHECKSUM TABLE on the copy:\n%s\nafter the server's own recovery:\n%s", b, a)
	}
}

// islTarget is what the copy's .isl for db/t names ("" when there is none).
func islTarget(t *testing.T, w, table string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w, "B", filepath.FromSlash(table)+".isl"))
	if os.IsNotExist(err) {
		return ""
	} else if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// TestSweep1125StaleISLBesideOwnFile is crash-sweep seeds 1071, 1123 and 1125: a stale .isl
// (db1/y.isl naming a dropped DATA DIRECTORY file) beside a table created again without DATA
// DIRECTORY after the checkpoint. The server's recovery opens ./db1/y.ibd by the log's name and
// logs nothing; innoscope's copy kept the link, and the server on it (no crash recovery) read
// it and logged "A link file was found named './db1/y.isl' but the linked tablespace ... could
// not be opened read-only" with three more [ERROR] lines. The copy has no link there (the
// server deletes a link naming the table's own file itself).
func TestSweep1125StaleISLBesideOwnFile(t *testing.T) {
	w := islCopy(t)
	if _, err := os.Stat(filepath.Join(w, "crashed", "db1", "y.isl")); err != nil {
		t.Fatalf("the crash has no stale db1/y.isl: %v", err)
	}
	if got := islTarget(t, w, "db1/y"); got != "" {
		t.Errorf("the copy's db1/y.isl names %s; the server's recovery opens ./db1/y.ibd and reads no link", got)
	}
	islJudge(t, w, "db1/y", "y.ibd")
}

// TestSweep1096NoLinkForSwappedName is crash-sweep seed 1096: RENAME TABLE db1.a TO db1.tmp,
// db1.b TO db1.a, db1.tmp TO db1.b after the checkpoint, db1.a with DATA DIRECTORY and db1.b
// without. SYS_TABLES on disk still says db1/a is the DATA DIRECTORY table, whose link the
// rename moved to db1/b.isl; innoscope wrote db1/a.isl naming that file (a DATA DIRECTORY table
// "without its link"), and the server on the copy opened the wrong file for db1.a: "A
// tablespace has been found in multiple places" and "Refusing to load". After recovery db1.a
// is the plain table: the copy gets no db1/a.isl.
func TestSweep1096NoLinkForSwappedName(t *testing.T) {
	w := islCopy(t)
	if got := islTarget(t, w, "db1/a"); got != "" {
		t.Errorf("the copy has db1/a.isl naming %s; after recovery db1.a is the table without DATA DIRECTORY", got)
	}
	if got := islTarget(t, w, "db1/b"); !strings.HasSuffix(got, "/db1/b.ibd") {
		t.Errorf("the copy's db1/b.isl names %q, want the copy of EXT/db1/b.ibd", got)
	}
	islJudge(t, w, "db1/a", "db1/b", "multiple places", "Refusing")
}

// TestSweep1077StaleISLNoStartupError is crash-sweep seeds 1050, 1077, 1096 and 1115: a stale
// .isl (db1/w.isl) beside a table the log does not touch after the checkpoint. The server's own
// recovery opens the table through the link as any start does and logs "A link file was found
// named './db1/w.isl' ..."; so does the server on innoscope's copy, whose link names the copy's
// external directory instead of the crash's. The sweep compared the two messages as text and
// counted a wrong copy; it now reads B's external directory as A's. Every [ERROR] of B must be
// one A logged too.
func TestSweep1077StaleISLNoStartupError(t *testing.T) {
	w := islCopy(t)
	a, err := os.ReadFile(filepath.Join(w, "A.err"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(a), "./db1/w.isl") {
		t.Fatalf("the server's own recovery did not read the stale db1/w.isl; the case is not made:\n%s", serverLines(t, filepath.Join(w, "A.err")))
	}
	islJudge(t, w, "db1/w", "w.ibd")
}

// diagnoseFindings runs diagnose --json on dir.
func diagnoseFindings(t *testing.T, dir string) diagnoseJSON {
	t.Helper()
	out, errs, code := run("diagnose", "--json", dir)
	var j diagnoseJSON
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("diagnose: exit %d: %v\n%s", code, err, errs)
	}
	return j
}
