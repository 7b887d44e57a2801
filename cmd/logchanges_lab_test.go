package cmd

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// TestLogChanges: the real server takes a checkpoint (innodb_log_checkpoint_now, its LSN read
// from SHOW ENGINE INNODB STATUS with nothing else writing), then commits a transaction of
// INSERT/UPDATE/DELETE on db.a (with a TEXT column), another on db.b (instantly altered), rolls one back and holds one open on both
// tables, and is killed. `log changes --from-lsn CP --json` lists exactly those four
// transactions (their ids as information_schema.innodb_trx gave them), the committed ones in
// commit order, with their states; every change of a committed transaction has the table, the
// operation and the key the test used, and an update's old values are the ones SELECT gave
// before it, and the new rows of the inserts and updates are the ones SELECT gave after them.
// --reverse --format sql, applied on the server's own recovery of the crash (a copy), gives
// back the CHECKSUM TABLE of the three tables taken at the checkpoint, and --format sql on that
// state gives back the checksums of the recovered crash; --table db.c lists the one change of t5;
// --to-lsn at t1's commit lists t1 alone, open, and one byte after it committed.
func TestLogChanges(t *testing.T) {
	s := newRowsServer(t, t.TempDir())
	s.sql(t, `CREATE DATABASE db;
CREATE TABLE db.a (id INT PRIMARY KEY, v VARCHAR(40), n INT, tx TEXT) STATS_PERSISTENT=0;
INSERT INTO db.a SELECT seq, CONCAT('a', seq), seq * 10, REPEAT('text', seq) FROM seq_1_to_50;
CREATE TABLE db.b (k VARCHAR(20) PRIMARY KEY, x INT, d DATE) STATS_PERSISTENT=0;
INSERT INTO db.b SELECT CONCAT('k', seq), seq, '2020-01-01' + INTERVAL seq DAY FROM seq_1_to_50;
ALTER TABLE db.b ADD COLUMN e VARCHAR(10) DEFAULT 'dflt', ALGORITHM=INSTANT;
CREATE TABLE db.c (id INT PRIMARY KEY) STATS_PERSISTENT=0;`)
	before := func(q string) string { return strings.TrimSuffix(string(s.sql(t, q)), "\n") }
	oldA2 := before("SELECT v FROM db.a WHERE id = 2")
	oldB2x := before("SELECT x FROM db.b WHERE k = 'k2'")
	oldB2d := before("SELECT d FROM db.b WHERE k = 'k2'")
	sums := "CHECKSUM TABLE db.a, db.b, db.c EXTENDED"
	atCP := string(s.sql(t, sums))
	status := string(s.sql(t, "SET GLOBAL innodb_log_checkpoint_now = 1; SHOW ENGINE INNODB STATUS\\G"))
	m := regexp.MustCompile(`Last checkpoint at\s+(\d+)`).FindStringSubmatch(status)
	if m == nil {
		t.Fatalf("no checkpoint in SHOW ENGINE INNODB STATUS:\n%s", status)
	}
	cp := m[1]
	// information_schema.innodb_trx is a cache the server refreshes at most every 100 ms
	trxID := "DO SLEEP(0.2); SELECT trx_id FROM information_schema.innodb_trx WHERE trx_mysql_thread_id = CONNECTION_ID();\n"
	id := func(out []byte) uint64 {
		t.Helper()
		n, err := strconv.ParseUint(strings.TrimSpace(string(out)), 10, 64)
		if err != nil {
			t.Fatalf("trx id: %q", out)
		}
		return n
	}
	t1 := id(s.sql(t, "BEGIN; INSERT INTO db.a VALUES (101, 'new', 5, 'a text'); UPDATE db.a SET v = 'upd' WHERE id = 2; DELETE FROM db.a WHERE id = 3;\n"+trxID+"COMMIT;"))
	t2 := id(s.sql(t, "BEGIN; INSERT INTO db.b VALUES ('new', 7, '2021-02-03', 'e'); UPDATE db.b SET x = 99, d = NULL WHERE k = 'k2'; DELETE FROM db.b WHERE k = 'k3';\n"+trxID+"COMMIT;"))
	t3 := id(s.sql(t, "BEGIN; UPDATE db.a SET v = 'rb' WHERE id = 4; INSERT INTO db.b VALUES ('rb', 1, NULL, NULL);\n"+trxID+"ROLLBACK;"))
	t4 := id([]byte(s.session(t, "db", "BEGIN; UPDATE a SET n = 0 WHERE id = 5; DELETE FROM b WHERE k = 'k4';\n"+trxID+"SELECT SLEEP(600);")))
	// the open transaction's records and the rollback's end reach the log file with the next
	// commit: a last committed transaction on a third table
	t5 := id(s.sql(t, "BEGIN; INSERT INTO db.c VALUES (1);\n"+trxID+"COMMIT;"))
	after := map[string]string{}
	for _, q := range []string{"SELECT * FROM db.a WHERE id IN (101, 2)", "SELECT * FROM db.b WHERE k IN ('new', 'k2')"} {
		lines := strings.SplitAfter(string(s.sql(t, q)), "\n")
		sort.Strings(lines)
		after[q] = strings.Join(lines, "")
	}
	s.kill()

	out, errs, code := run("log", "changes", "--from-lsn", cp, "--json", s.dir)
	if code != ExitClean {
		t.Fatalf("log changes: exit %d: %s", code, errs)
	}
	var doc struct {
		Transactions []struct {
			ID      uint64 `json:"trx_id"`
			EndLSN  uint64 `json:"end_lsn"`
			State   string `json:"state"`
			Changes []struct {
				Table   string `json:"table"`
				Op      string `json:"op"`
				Key     []struct{ Column, Value string }
				Old     []struct{ Column, Value string }
				Row     []struct{ Column, Value string }
				Inexact string `json:"inexact"`
				Undone  bool   `json:"rolled_back"`
			} `json:"changes"`
		} `json:"transactions"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	type want struct {
		id    uint64
		state string
		chs   []string
	}
	wants := []want{ // commit order: t3's rollback ends before t5 commits
		{t1, "committed", []string{"db.a insert id=101 ", "db.a update id=2 v=" + oldA2, "db.a delete id=3 "}},
		{t2, "committed", []string{"db.b insert k=new ", "db.b update k=k2 x=" + oldB2x + ",d=" + oldB2d, "db.b delete k=k3 "}},
		{t3, "rolled back", []string{"db.a update id=4 v=a4", "db.b insert k=rb "}},
		{t5, "committed", []string{"db.c insert id=1 "}},
		{t4, "open", []string{"db.a update id=5 n=50", "db.b delete k=k4 "}},
	}
	if len(doc.Transactions) != len(wants) {
		var got []string
		for _, g := range doc.Transactions {
			got = append(got, fmt.Sprintf("trx %d %s %d changes", g.ID, g.State, len(g.Changes)))
			for _, ch := range g.Changes {
				got = append(got, "  "+ch.Table+" "+ch.Op)
			}
		}
		t.Fatalf("%d transactions, want %d (%d %d %d %d %d):\n%s", len(doc.Transactions), len(wants), t1, t2, t3, t5, t4, strings.Join(got, "\n"))
	}
	for i, w := range wants {
		g := doc.Transactions[i]
		if g.ID != w.id || g.State != w.state || len(g.Changes) != len(w.chs) {
			t.Errorf("transaction %d: trx %d %s with %d changes, want trx %d %s with %d", i, g.ID, g.State, len(g.Changes), w.id, w.state, len(w.chs))
			continue
		}
		for j, ch := range g.Changes {
			var key, old []string
			for _, v := range ch.Key {
				key = append(key, v.Column+"="+v.Value)
			}
			for _, v := range ch.Old {
				old = append(old, v.Column+"="+v.Value)
			}
			got := ch.Table + " " + ch.Op + " " + strings.Join(key, ",") + " " + strings.Join(old, ",")
			if got != w.chs[j] || ch.Inexact != "" {
				t.Errorf("trx %d change %d: %q (inexact %q), want %q", w.id, j, got, ch.Inexact, w.chs[j])
			}
		}
	}
	// the new rows of the committed inserts and updates are the rows SELECT gave after them
	rowsOf := func(table string, ops ...string) string {
		var lines []string
		for _, g := range doc.Transactions[:2] {
			for _, ch := range g.Changes {
				if ch.Table == table && (ch.Op == ops[0] || ch.Op == ops[1]) {
					var vs []string
					for _, v := range ch.Row {
						vs = append(vs, v.Value)
					}
					lines = append(lines, strings.Join(vs, "\t")+"\n")
				}
			}
		}
		sort.Strings(lines) // as the SELECT's lines are compared
		return strings.Join(lines, "")
	}
	if got, w := rowsOf("db.a", "update", "insert"), after["SELECT * FROM db.a WHERE id IN (101, 2)"]; got != w {
		t.Errorf("db.a new rows: %q, SELECT gave %q", got, w)
	}
	if got, w := rowsOf("db.b", "insert", "update"), after["SELECT * FROM db.b WHERE k IN ('new', 'k2')"]; got != w {
		t.Errorf("db.b new rows: %q, SELECT gave %q", got, w)
	}
	sql, errs, code := run("log", "changes", "--from-lsn", cp, "--format", "sql", "--reverse", s.dir)
	// the server's own recovery of the crash, with the statements applied, is the checkpoint's state
	cpy := filepath.Join(t.TempDir(), "data")
	lab.CopyDir(t, s.dir, cpy)
	srv := startRowsServer(t, cpy)
	atCrash := string(srv.sql(t, sums))
	srv.sql(t, sql)
	if got := string(srv.sql(t, sums)); got != atCP {
		t.Errorf("CHECKSUM TABLE after the recovery and log changes --reverse --format sql:\n%s\nat the checkpoint:\n%s\nstatements:\n%s", got, atCP, sql)
	}
	// on that state, the window's start, the forward statements give the recovered crash's again
	fwd, errs, code := run("log", "changes", "--from-lsn", cp, "--format", "sql", s.dir)
	if code != ExitClean || errs != "" {
		t.Errorf("log changes --format sql: exit %d: %s", code, errs)
	}
	srv.sql(t, fwd)
	if got := string(srv.sql(t, sums)); got != atCrash {
		t.Errorf("CHECKSUM TABLE after log changes --format sql on the window's start:\n%s\nafter the recovery:\n%s\nstatements:\n%s", got, atCrash, fwd)
	}
	// --to-lsn at t1's commit leaves it open with nothing after; one byte later it committed
	end1 := strconv.FormatUint(doc.Transactions[0].EndLSN, 10)
	out, _, _ = run("log", "changes", "--from-lsn", cp, "--to-lsn", end1, s.dir)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 4 || !strings.HasPrefix(lines[3], strconv.FormatUint(t1, 10)+"\topen\t") {
		t.Errorf("log changes --to-lsn %s (t1's commit):\n%s", end1, out)
	}
	end1 = strconv.FormatUint(doc.Transactions[0].EndLSN+1, 10)
	out, _, _ = run("log", "changes", "--from-lsn", cp, "--to-lsn", end1, s.dir)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 4 || !strings.HasPrefix(lines[3], strconv.FormatUint(t1, 10)+"\tcommitted\t") {
		t.Errorf("log changes --to-lsn %s (after t1's commit):\n%s", end1, out)
	}
	// tsv is written as the transactions finish (a stream), json all at once: the same changes
	// in the same order
	out, _, _ = run("log", "changes", "--from-lsn", cp, s.dir)
	var fromDoc []string
	for _, tr := range doc.Transactions {
		for _, ch := range tr.Changes {
			fromDoc = append(fromDoc, fmt.Sprintf("%d %d %s %s", tr.ID, tr.EndLSN, ch.Table, ch.Op))
		}
	}
	var fromTSV []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		if f := strings.Split(l, "\t"); len(f) > 5 {
			fromTSV = append(fromTSV, fmt.Sprintf("%s %s %s %s", f[0], f[2], f[4], f[5]))
		}
	}
	if strings.Join(fromTSV, "\n") != strings.Join(fromDoc, "\n") {
		t.Errorf("log changes (tsv):\n%s\nwant as --json:\n%s", strings.Join(fromTSV, "\n"), strings.Join(fromDoc, "\n"))
	}
	// --table keeps one table's changes and the transactions that have any
	out, _, _ = run("log", "changes", "--from-lsn", cp, "--table", "db.c", s.dir)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[1], strconv.FormatUint(t5, 10)+"\tcommitted\t") {
		t.Errorf("log changes --table db.c:\n%s", out)
	}
	srv.shutdown(t)
	for _, stmt := range []string{"DELETE FROM `db`.`b` WHERE `k`='new';", "UPDATE `db`.`b` SET `x`='" + oldB2x + "', `d`='" + oldB2d + "' WHERE `k`='k2';",
		"DELETE FROM `db`.`a` WHERE `id`='101';", "UPDATE `db`.`a` SET `v`='" + oldA2 + "' WHERE `id`='2';"} {
		if !strings.Contains(sql, stmt) {
			t.Errorf("log changes --reverse --format sql (exit %d, %s) has no %s:\n%s", code, errs, stmt, sql)
		}
	}
}
