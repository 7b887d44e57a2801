package cmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// exchangeWorkload makes, with the real server, the state of crash-sweep seed 1249 (@EXT@ is the
// DATA DIRECTORY), twice:
//
//   - db2.x: partition p0 of db1.p lives in the DATA DIRECTORY; after the checkpoint EXCHANGE
//     PARTITION p0 with db1.x (no DATA DIRECTORY) renames the partition's file to EXT/db1/x.ibd
//     and writes db1/x.isl, and RENAME TABLE db1.x TO db2.x keeps the file where it is (its
//     folder stays db1, its name x): the server renames no file and writes no db2/x.isl (seed
//     1249).
//   - db2.q: partition p0 of db1.q is exchanged with db1.y, which has DATA DIRECTORY: the
//     partition's file becomes EXT/db1/q#P#p0.ibd (db1/q#P#p0.isl), and RENAME TABLE db1.q TO
//     db2.q leaves it there without a db2/q#P#p0.isl.
//
// Then both tables change, and the server is killed.
const exchangeWorkload = `CREATE DATABASE db1; CREATE DATABASE db2;
CREATE TABLE db1.p (id INT PRIMARY KEY, a INT, v VARCHAR(200), KEY(a)) ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=4
  PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN (1000) DATA DIRECTORY='@EXT@', PARTITION p1 VALUES LESS THAN (1000000));
INSERT INTO db1.p SELECT seq, seq % 19, REPEAT(CHAR(97 + seq % 26), 150) FROM seq_1_to_2000;
CREATE TABLE db1.q (id INT PRIMARY KEY, a INT, v VARCHAR(200), KEY(a)) ENGINE=InnoDB
  PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN (1000), PARTITION p1 VALUES LESS THAN (1000000));
INSERT INTO db1.q SELECT seq, seq % 19, 'q' FROM seq_1_to_2000;
CREATE TABLE db1.y (id INT PRIMARY KEY, a INT, v VARCHAR(200), KEY(a)) ENGINE=InnoDB DATA DIRECTORY='@EXT@';
INSERT INTO db1.y SELECT seq, seq, 'y' FROM seq_1_to_100;
SET GLOBAL innodb_log_checkpoint_now=1;
CREATE TABLE db1.x LIKE db1.p;
ALTER TABLE db1.x REMOVE PARTITIONING;
INSERT INTO db1.x SELECT seq, seq, 'x' FROM seq_1_to_175;
ALTER TABLE db1.p EXCHANGE PARTITION p0 WITH TABLE db1.x;
RENAME TABLE db1.x TO db2.x;
INSERT INTO db2.x SELECT seq, seq, 'more' FROM seq_2001_to_2300;
UPDATE db1.p SET a = a + 1 WHERE id BETWEEN 1 AND 500;
ALTER TABLE db1.q EXCHANGE PARTITION p0 WITH TABLE db1.y;
RENAME TABLE db1.q TO db2.q;
INSERT INTO db2.q SELECT seq, seq, 'q2' FROM seq_3001_to_3100;
UPDATE db1.y SET a = a + 1;
`

// sweepCrash makes, with the lab server srv, the crash of workload (@EXT@ is the DATA DIRECTORY)
// laid out as the crash sweep lays one out (islCrashScript: crashed/, ext-crashed/, the
// server's own recovery A and its verdict) in a new directory W, which it returns.
func sweepCrash(t *testing.T, srv *lab.Server, workload string) string {
	t.Helper()
	srv.Require(t)
	base, err := os.MkdirTemp("", "innoscope-sweep-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	w := filepath.Join(base, "seed")
	if err := os.MkdirAll(filepath.Join(w, "ext"), 0o755); err != nil {
		t.Fatal(err)
	}
	sql := strings.ReplaceAll(workload, "@EXT@", filepath.Join(w, "ext"))
	if err := os.WriteFile(filepath.Join(w, "workload.sql"), []byte(sql), 0o644); err != nil {
		t.Fatal(err)
	}
	labScript := filepath.Join(lab.Root(), "scripts", "mariadb-lab.sh")
	cmd := exec.Command("bash", append([]string{"-c", islCrashScript, "sweep", w, labScript}, islOptions...)...)
	cmd.Env = srv.Env()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("making the crash with %s: %v\n%s", srv, err, b)
	}
	return w
}

// sweepCopy runs `recover W/crashed --into W/B`, which must exit 0 and leave the source
// (crashed/, ext-crashed/) unchanged.
func sweepCopy(t *testing.T, w string) {
	t.Helper()
	if msg := recoverSweepCopy(t, w); msg != "" {
		t.Fatal(msg)
	}
}

// recoverSweepCopy is sweepCopy's work: what went wrong, "" when nothing did.
func recoverSweepCopy(t *testing.T, w string) string {
	t.Helper()
	src := []string{filepath.Join(w, "crashed"), filepath.Join(w, "ext-crashed")}
	var before []map[string]string
	for _, d := range src {
		before = append(before, lab.HashTree(t, d))
	}
	out, errs, code := run("recover", filepath.Join(w, "crashed"), "--into", filepath.Join(w, "B"))
	if code != ExitClean {
		return fmt.Sprintf("recover: exit %d\n%s\n%s", code, out, errs)
	}
	t.Logf("recover: %s", errs)
	for i, d := range src {
		if !reflect.DeepEqual(before[i], lab.HashTree(t, d)) {
			return d + " changed"
		}
	}
	return ""
}

// sweepServerOnCopy starts srv on innoscope's copy W/B (B.err, B.txt, B.checks, B.checksums
// beside A's, for islJudge).
func sweepServerOnCopy(t *testing.T, srv *lab.Server, w string) {
	t.Helper()
	script := `set -euo pipefail; source "$2" functions; shift 2; verdict_of "$W/B" "$W/B" "$@"`
	cmd := exec.Command("bash", append([]string{"-c", script, "sweep", "", filepath.Join(lab.Root(), "scripts", "mariadb-lab.sh")}, islOptions...)...)
	cmd.Env = append(srv.Env(), "W="+w)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s on the copy: %v\n%s", srv, err, b)
	}
}

// TestSweep1249ExchangedPartitionRenamedAcrossDatabases is crash-sweep seed 1249: a DATA
// DIRECTORY file that EXCHANGE PARTITION gave to a table (or partition) that RENAME TABLE then
// moved to another database (exchangeWorkload). The file keeps its path, so the server writes no
// link for the new name: the crashed directory has db1/x.isl and no db2/x.isl (db1/q#P#p0.isl
// and no db2/q#P#p0.isl), and SYS_TABLES on disk may still hold the names from before the
// checkpoint. The server's own recovery opens the tablespace by the log's name and the table
// by its space id, never reading a link. innoscope's copy had no db2/x.isl, and the server on it
// (no crash recovery) looked for ./db2/x.ibd: "Cannot open datafile for read-only:
// './db2/x.ibd'", "Could not find a valid tablespace file for db2/x", CHECK TABLE db2.x: Corrupt
// (and the same for db2/q#P#p0). The copy's links must name the copies of EXT/db1/x.ibd and
// EXT/db1/q#P#p0.ibd, and the server on the copy must do what its own recovery did.
func TestSweep1249ExchangedPartitionRenamedAcrossDatabases(t *testing.T) {
	w := sweepCrash(t, lab.MariaDB1011, exchangeWorkload)
	a, err := os.ReadFile(filepath.Join(w, "A.checks"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range []string{"x", "q#P#p0"} {
		if _, err := os.Stat(filepath.Join(w, "crashed", "db2", tb+".isl")); err == nil {
			t.Fatalf("the crash has db2/%s.isl: the server wrote the link, the case is not made", tb)
		}
		if _, err := os.Stat(filepath.Join(w, "ext-crashed", "db1", tb+".ibd")); err != nil {
			t.Fatalf("the crash has no EXT/db1/%s.ibd, the case is not made: %v", tb, err)
		}
	}
	for _, tb := range []string{"db2.x", "db2.q"} {
		if !strings.Contains(string(a), tb+"\tOK") {
			t.Fatalf("the server's own recovery does not pass CHECK TABLE %s:\n%s", tb, a)
		}
	}
	sweepCopy(t, w)
	for _, tb := range []string{"x", "q#P#p0"} {
		if got := islTarget(t, w, "db2/"+tb); !strings.HasSuffix(got, "/db1/"+tb+".ibd") || !strings.HasPrefix(got, filepath.Join(w, "B.external")) {
			t.Errorf("the copy's db2/%s.isl names %q, want the copy of EXT/db1/%s.ibd", tb, got, tb)
		}
	}
	sweepServerOnCopy(t, lab.MariaDB1011, w)
	islJudge(t, w, "db2/x", "x.ibd", "db2/q", "q#P#p0", "multiple places", "Refusing")
}
