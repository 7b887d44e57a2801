package cmd

import (
	"bufio"
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
func TestRowsAsOf(t *testing.T) {
	base := t.TempDir()
	s := newRowsServer(t, base)
	s.sql(t, `CREATE DATABASE db;
CREATE TABLE db.t (id INT PRIMARY KEY, a VARCHAR(64), b INT, c TEXT, d DATETIME(3)) ENGINE=InnoDB;
INSERT INTO db.t SELECT seq, CONCAT('a', seq), IF(seq % 9 = 0, NULL, seq * 7), IF(seq % 50 = 0, REPEAT(CONCAT('x', seq), 2000), CONCAT('c', seq)),
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
UPDATE db.t SET a = CONCAT(a, '-u'), b = b + 1, c = IF(id % 50 = 0, REPEAT('y', 30000), CONCAT(c, '-u')), d = NULL WHERE id % 10 = 5;
UPDATE db.t SET b = NULL WHERE id % 100 = 0;
SELECT trx_id FROM information_schema.innodb_trx WHERE trx_mysql_thread_id = CONNECTION_ID();
COMMIT;`)
	w := strings.TrimSpace(string(out))
	if _, err := strconv.ParseUint(w, 10, 64); err != nil {
		t.Fatalf("the writing transaction's id: %q", out)
	}
	current := string(s.sql(t, "SELECT * FROM db.t ORDER BY id"))
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
	check("rows --as-of "+lsn+" --commit-log SRC", "--as-of", lsn, "--commit-log", src)
	check("rows --as-of-trx "+w, "--as-of-trx", w)
	if got, errs, code := run("rows", cp, "db.t"); code != ExitClean || got != current {
		t.Errorf("rows (the committed rows): exit %d, %s\n%s", code, errs, firstDiff(current, got))
	}
	// Every version: the 1,000 records as they are, and before the writing transaction's 209
	// changes (100 delete marks, 100 updates, and 9 of the 10 rows whose b it set to NULL: row
	// 900's was NULL already, which the server does not change).
	vers, errs, code := run("rows", cp, "db.t", "--versions")
	byW := 0
	for _, l := range strings.Split(strings.TrimSuffix(vers, "\n"), "\n") {
		if strings.HasPrefix(l, w+"\t") {
			byW++
		}
	}
	if n := strings.Count(vers, "\n"); code != ExitClean || n != 1209 || byW != 209 {
		t.Errorf("rows --versions: exit %d, %d versions (want 1209), %d by trx %s (want 209)\n%s", code, n, byW, w, errs)
	}
	// Points the history or the redo log do not reach are refused, and nothing is printed.
	for _, args := range [][]string{{"--as-of-trx", "1"}, {"--as-of", "1"}} {
		got, errs, code := run(append([]string{"rows", cp, "db.t"}, args...)...)
		if code == ExitClean || got != "" || !strings.Contains(errs, "--versions") {
			t.Errorf("rows %v: exit %d, %d bytes printed, %s", args, code, len(got), errs)
		} else {
			t.Logf("rows %v refused: %s", args, strings.TrimSpace(errs))
		}
	}
	if after := lab.HashTree(t, src); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Error("the source directory changed")
	}
}
