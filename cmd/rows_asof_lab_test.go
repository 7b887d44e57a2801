package cmd

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// snapshotConn is a client connection held open (mariadb --unbuffered reading statements from
// a pipe), in which a consistent snapshot lives while other connections change the table.
type snapshotConn struct {
	in  io.WriteCloser
	out *bufio.Reader
}

// openSnapshotConn starts the client on s.
func openSnapshotConn(t *testing.T, s *rowsServer) *snapshotConn {
	t.Helper()
	cmd := s.srv.Command("mariadb", "--no-defaults", "-S", s.sock, "-uroot", "--default-character-set=utf8mb4",
		"--batch", "--skip-column-names", "--unbuffered")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	return &snapshotConn{in: in, out: bufio.NewReaderSize(out, 1<<20)}
}

// query runs stmts in the connection and returns what they printed, up to a marker.
func (c *snapshotConn) query(t *testing.T, stmts string) string {
	t.Helper()
	const marker = "--innoscope-done--"
	if _, err := fmt.Fprintf(c.in, "%s\nSELECT '%s';\n", stmts, marker); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for {
		l, err := c.out.ReadString('\n')
		if err != nil {
			t.Fatalf("snapshot connection: %v (after %q)", err, b.String())
		}
		if l == marker+"\n" {
			return b.String()
		}
		b.WriteString(l)
	}
}

var lsnLine = regexp.MustCompile(`Log sequence number\s+(\d+)`)

// TestRowsAsOf (issue 32 item 2): a consistent snapshot is opened in one connection, its LSN
// taken, its SELECT run; another connection deletes 10% and updates 10% of the rows (with
// off-page TEXT values) and commits; the server is killed with the snapshot still open, so
// the undo history survives. On the recovered copy, `rows --as-of LSN` and `--as-of-trx`
// (the deleting transaction) print exactly what the snapshot's SELECT returned; `--versions`
// lists the versions the history keeps; points older than the history or the redo log are
// refused and print nothing.
// On MariaDB 10.5, whose redo log does not place commits, --as-of LSN is refused.
func TestRowsAsOf(t *testing.T) {
	for _, srv := range lab.Servers {
		t.Run(srv.String(), func(t *testing.T) { rowsAsOfKilled(t, srv) })
	}
}

func rowsAsOfKilled(t *testing.T, srv *lab.Server) {
	base := t.TempDir()
	s := newRowsServerOn(t, srv, base)
	s.sql(t, `CREATE DATABASE db;
CREATE TABLE db.t (id INT PRIMARY KEY, a VARCHAR(64), b INT, c TEXT, d DATETIME(3), KEY (c(20))) ENGINE=InnoDB STATS_PERSISTENT=0;`)
	// (STATS_PERSISTENT=0: no background statistics transaction commits, and is purged, after
	// the snapshot's LSN, which would make that LSN older than the history.)
	// An LSN before the rows were inserted: the insert's undo log is purged below, so the
	// history no longer reaches back to it (the redo log does).
	m0 := lsnLine.FindStringSubmatch(string(s.sql(t, "SHOW ENGINE INNODB STATUS")))
	if m0 == nil {
		t.Fatal("SHOW ENGINE INNODB STATUS: no Log sequence number")
	}
	s.sql(t, `INSERT INTO db.t SELECT seq, CONCAT('a', seq), IF(seq % 9 = 0, NULL, seq * 7), IF(seq % 50 = 0, REPEAT(CONCAT('x', seq), 2000), CONCAT('c', seq)),
  '2024-01-01 00:00:00.125' + INTERVAL seq MINUTE FROM seq_1_to_1000;
SET GLOBAL innodb_max_purge_lag_wait = 0;`)
	snap := openSnapshotConn(t, s)
	snap.query(t, "START TRANSACTION WITH CONSISTENT SNAPSHOT;")
	m := lsnLine.FindStringSubmatch(string(s.sql(t, "SHOW ENGINE INNODB STATUS")))
	if m == nil {
		t.Fatal("SHOW ENGINE INNODB STATUS: no Log sequence number")
	}
	lsn := m[1]
	want := snap.query(t, "SELECT * FROM db.t ORDER BY id;")
	out := s.sql(t, `BEGIN;
DELETE FROM db.t WHERE id % 10 = 3;
UPDATE db.t SET a = CONCAT(a, '-u'), b = b + 1, c = IF(id % 50 = 0, REPEAT('y', 30000), CONCAT(c, '-u')), d = NULL WHERE id % 10 = 5 OR id % 50 = 0;
UPDATE db.t SET b = NULL WHERE id % 100 = 0;
SELECT trx_id FROM information_schema.innodb_trx WHERE trx_mysql_thread_id = CONNECTION_ID();
COMMIT;`)
	w := strings.TrimSpace(string(out))
	if _, err := strconv.ParseUint(w, 10, 64); err != nil {
		t.Fatalf("the writing transaction's id: %q", out)
	}
	current := string(s.sql(t, "SELECT * FROM db.t ORDER BY id"))
	m2 := lsnLine.FindStringSubmatch(string(s.sql(t, "SHOW ENGINE INNODB STATUS")))
	if m2 == nil {
		t.Fatal("SHOW ENGINE INNODB STATUS: no Log sequence number")
	}
	// A transaction the kill leaves uncommitted: no point sees its 100 updates.
	open := openSnapshotConn(t, s)
	open.query(t, "BEGIN; UPDATE db.t SET b = -1 WHERE id % 10 = 8;")
	// A commit elsewhere writes the log up to its end, the open transaction's changes with it.
	s.sql(t, "CREATE TABLE db.flush (a INT) ENGINE=InnoDB; INSERT INTO db.flush VALUES (1);")
	if got := snap.query(t, "SELECT * FROM db.t ORDER BY id;"); got != want {
		t.Fatalf("the snapshot changed:\n%s", firstDiff(want, got))
	}
	s.kill()
	src := s.dir
	before := lab.HashTree(t, src)
	cp := filepath.Join(base, "copy")
	if _, errs, code := run("recover", src, "--into", cp); code != ExitClean {
		t.Fatalf("recover: exit %d\n%s", code, errs)
	}
	check := func(name string, args ...string) {
		t.Helper()
		got, errs, code := run(append([]string{"rows", cp, "db.t"}, args...)...)
		if code != ExitClean || got != want {
			t.Errorf("%s: exit %d, %s\n%s", name, code, errs, firstDiff(want, got))
		} else {
			t.Logf("%s: %d rows, as the snapshot's SELECT; %s", name, strings.Count(got, "\n"), strings.TrimSpace(errs))
		}
	}
	check("rows --as-of-trx "+w, "--as-of-trx", w)
	if srv == lab.MariaDB105 {
		if got, errs, code := run("rows", cp, "db.t", "--as-of", lsn, "--commit-log", src); code == ExitClean || got != "" || !strings.Contains(errs, "10.8+") {
			t.Errorf("rows --as-of --commit-log (a 10.5 log): exit %d, %d bytes, %s", code, len(got), errs)
		}
	} else {
		check("rows --as-of "+lsn+" --commit-log SRC", "--as-of", lsn, "--commit-log", src)
		if got, errs, code := run("rows", cp, "db.t", "--as-of", m2[1], "--commit-log", src); code != ExitClean || got != current {
			t.Errorf("rows --as-of %s (after the commit, the committed rows): exit %d, %s\n%s", m2[1], code, errs, firstDiff(current, got))
		}
		// The crashed original itself: refused, with the way through a copy.
		if got, errs, code := run("rows", src, "db.t", "--as-of", lsn); code == ExitClean || got != "" || !strings.Contains(errs, "--commit-log") {
			t.Errorf("rows SRC --as-of (crashed): exit %d, %d bytes, %s", code, len(got), errs)
		}
	}
	// Every version: the 1,000 records as they are, before the uncommitted transaction's 100
	// updates, and before the writing transaction's 229 changes (100 delete marks, 120
	// updates, 20 of them of off-page TEXT values, and 9 of the 10 rows whose b it then set to
	// NULL: row 900's was NULL already, which the server does not change).
	vers, errs, code := run("rows", cp, "db.t", "--versions")
	byW, active := 0, 0
	for _, l := range strings.Split(strings.TrimSuffix(vers, "\n"), "\n") {
		if strings.HasPrefix(l, w+"\t") {
			byW++
		}
		if f := strings.Split(l, "\t"); len(f) > 2 && f[1] == "active" && f[2] == "update" {
			active++
		}
	}
	if n := strings.Count(vers, "\n"); code != ExitClean || n != 1329 || byW != 229 || active != 100 {
		t.Errorf("rows --versions: exit %d, %d versions (want 1329), %d by trx %s (want 229), %d by the uncommitted one (want 100)\n%s", code, n, byW, w, active, errs)
	}
	// --versions --json: the same versions, an object each; the deleted rows' newest versions are
	// trx w's delete marks, the older ones the values the snapshot saw.
	js, errs, code := run("rows", cp, "db.t", "--versions", "--json")
	changes := map[string]int{}
	for _, l := range strings.Split(strings.TrimSuffix(js, "\n"), "\n") {
		var v struct {
			TrxID  uint64            `json:"trx_id"`
			Change string            `json:"change"`
			Row    map[string]string `json:"row"`
		}
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("rows --versions --json: %v: %s", err, l)
		}
		if fmt.Sprint(v.TrxID) == w {
			changes[v.Change]++
		}
	}
	if code != ExitClean || changes["delete"] != 100 || changes["update"] != 129 {
		t.Errorf("rows --versions --json: exit %d, trx %s's versions %v (want 100 delete, 129 update), %s", code, w, changes, errs)
	}
	// --json: an object per row of the snapshot; flags that contradict each other are refused.
	if js, errs, code := run("rows", cp, "db.t", "--as-of-trx", w, "--json"); code != ExitClean || strings.Count(js, "\n") != strings.Count(want, "\n") {
		t.Errorf("rows --as-of-trx --json: exit %d, %d objects, %s", code, strings.Count(js, "\n"), errs)
	}
	for _, args := range [][]string{{"--as-of-trx", w, "--versions"}, {"--versions", "--format", "sql"}, {"--versions", "--commit-log", src},
		{"--as-of-trx", w, "--scan"}} {
		if got, errs, code := run(append([]string{"rows", cp, "db.t"}, args...)...); code != ExitError || got != "" || errs == "" {
			t.Errorf("rows %v: exit %d, %d bytes, %s", args, code, len(got), errs)
		}
	}
	// Points the history or the redo log do not reach are refused, and nothing is printed.
	for _, args := range [][]string{{"--as-of-trx", "1"}, {"--as-of", "1"}, {"--as-of", m0[1], "--commit-log", src}} {
		got, errs, code := run(append([]string{"rows", cp, "db.t"}, args...)...)
		if code == ExitClean || got != "" || !strings.Contains(errs, "--versions") && !strings.Contains(errs, "older than the undo history") {
			t.Errorf("rows %v: exit %d, %d bytes printed, %s", args, code, len(got), errs)
		} else {
			t.Logf("rows %v refused: %s", args, strings.TrimSpace(errs))
		}
	}
	if after := lab.HashTree(t, src); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Error("the source directory changed")
	}
}

// TestRowsAsOfShutdown: the same on a clean shutdown, with purge kept from running
// (innodb_force_recovery=2) so that the history survives it, on a ROW_FORMAT=REDUNDANT table
// (an index on a BLOB prefix: its undo records keep a longer prefix), a table with columns
// added by instant ALTER TABLE (its older records lack them; the transaction sets them on
// some), one after an instant DROP COLUMN and ADD COLUMN ... FIRST (the records laid out by the
// metadata record's BLOB), a table without a primary key and a ROW_FORMAT=COMPRESSED one. The
// directory's own redo log places the commits.
// With MariaDB 10.5 (whose redo log format does not place commits) --as-of LSN is refused
// and --as-of-trx is checked; with 11.8, both.
func TestRowsAsOfShutdown(t *testing.T) {
	for _, srv := range lab.Servers {
		t.Run(srv.String(), func(t *testing.T) { rowsAsOfShutdown(t, srv) })
	}
}

func rowsAsOfShutdown(t *testing.T, srv *lab.Server) {
	base := t.TempDir()
	s := newRowsServerOn(t, srv, base)
	s.sql(t, `CREATE DATABASE db;
CREATE TABLE db.r (id INT PRIMARY KEY, a VARCHAR(64), b BIGINT, c BLOB, KEY (c(10))) ENGINE=InnoDB ROW_FORMAT=REDUNDANT;
CREATE TABLE db.n (a INT, b VARCHAR(30)) ENGINE=InnoDB;
INSERT INTO db.n SELECT seq % 7, CONCAT('n', seq) FROM seq_1_to_300;
CREATE TABLE db.z (id INT PRIMARY KEY, a TEXT, b INT) ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=4;
INSERT INTO db.z SELECT seq, IF(seq % 30 = 0, REPEAT('q', 5000), CONCAT('z', seq)), seq FROM seq_1_to_400;
INSERT INTO db.r SELECT seq, CONCAT('r', seq), seq * 1000003, IF(seq % 40 = 0, REPEAT(CHAR(seq % 256), 9000), NULL) FROM seq_1_to_600;
CREATE TABLE db.i (id INT PRIMARY KEY, a CHAR(10), b INT) ENGINE=InnoDB;
INSERT INTO db.i SELECT seq, CONCAT('i', seq), seq FROM seq_1_to_500;
ALTER TABLE db.i ADD COLUMN e INT NOT NULL DEFAULT 5, ADD COLUMN f VARCHAR(20) DEFAULT 'ff', ALGORITHM=INSTANT;
INSERT INTO db.i (id, a, b, e, f) SELECT seq, CONCAT('j', seq), seq, seq, NULL FROM seq_501_to_520;
CREATE TABLE db.x (id INT PRIMARY KEY, a INT, b INT) ENGINE=InnoDB;
INSERT INTO db.x SELECT seq, seq, seq FROM seq_1_to_50;
ALTER TABLE db.x DROP COLUMN a, ADD COLUMN c VARCHAR(10) DEFAULT 'c' FIRST, ALGORITHM=INSTANT;
INSERT INTO db.x (id, b, c) SELECT seq, seq, NULL FROM seq_51_to_60;
SET GLOBAL innodb_max_purge_lag_wait = 0;`)
	s.shutdown(t)
	s = startRowsServerOn(t, srv, s.dir, "--innodb-force-recovery=2")
	snap := openSnapshotConn(t, s)
	snap.query(t, "START TRANSACTION WITH CONSISTENT SNAPSHOT;")
	m := lsnLine.FindStringSubmatch(string(s.sql(t, "SHOW ENGINE INNODB STATUS")))
	if m == nil {
		t.Fatal("SHOW ENGINE INNODB STATUS: no Log sequence number")
	}
	lsn := m[1]
	want := map[string]string{}
	tables := []string{"r", "i", "n", "z", "x"}
	for _, tb := range tables {
		q := "SELECT * FROM db." + tb + " ORDER BY id;"
		if tb == "n" {
			q = "SELECT * FROM db.n;" // no key: the clustered index's order (DB_ROW_ID)
		}
		want[tb] = snap.query(t, q)
	}
	out := s.sql(t, `BEGIN;
DELETE FROM db.r WHERE id % 10 = 1;
UPDATE db.r SET a = NULL, c = IF(id % 40 = 0, REPEAT('z', 12000), 'short') WHERE id % 10 = 4 OR id % 40 = 0;
UPDATE db.i SET e = e + 100, f = 'upd' WHERE id % 10 = 2;
UPDATE db.x SET b = b * 3, c = 'cc' WHERE id % 4 = 1;
DELETE FROM db.x WHERE id % 4 = 2;
UPDATE db.n SET b = CONCAT(b, '-n') WHERE a = 3;
DELETE FROM db.n WHERE a = 5;
UPDATE db.z SET a = IF(id % 30 = 0, REPEAT('w', 7000), CONCAT(a, '-z')), b = NULL WHERE id % 6 = 0;
DELETE FROM db.z WHERE id % 6 = 1;
DELETE FROM db.i WHERE id % 10 = 7;
SELECT trx_id FROM information_schema.innodb_trx WHERE trx_mysql_thread_id = CONNECTION_ID();
COMMIT;
UPDATE db.i SET a = 'later' WHERE id % 25 = 0;
UPDATE db.x SET b = 0;`)
	w := strings.TrimSpace(string(out))
	s.shutdown(t)
	for _, tb := range tables {
		for _, args := range [][]string{{"--as-of", lsn}, {"--as-of-trx", w}} {
			got, errs, code := run(append([]string{"rows", s.dir, "db." + tb}, args...)...)
			if srv == lab.MariaDB105 && args[0] == "--as-of" {
				if code == ExitClean || got != "" || !strings.Contains(errs, "10.8+") {
					t.Errorf("rows db.%s %v on a 10.5 log: exit %d, %d bytes, %s", tb, args, code, len(got), errs)
				}
				continue
			}
			if code != ExitClean || got != want[tb] {
				t.Errorf("rows db.%s %v: exit %d, %s\n%s", tb, args, code, errs, firstDiff(want[tb], got))
			} else {
				t.Logf("rows db.%s %v: %d rows, as the snapshot's SELECT", tb, args, strings.Count(got, "\n"))
			}
		}
	}
}
