package cmd

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"innoscope/internal/lab"
)

// TestRowsUncommitted (new-user trial): a table that a transaction the crash left uncommitted
// had changed was printed as stored — its uncommitted updates, inserts and deletes included —
// when the log had nothing left to apply. Here the real server holds an open transaction on tu
// and an XA-PREPAREd one on tx, flushes every page (so the log has no page record to apply), and is
// killed. rows refuses both tables (exit 2, naming the transactions) and prints the untouched
// table; --uncommitted prints the stored records, which differ from what the server shows:
// started on a copy, it rolls tu's transaction back and keeps tx's prepared one, and SELECT
// gives the committed rows read before the kill.
func TestRowsUncommitted(t *testing.T) {
	s := newRowsServer(t, t.TempDir())
	s.sql(t, `CREATE DATABASE db;
CREATE TABLE db.tu (id INT PRIMARY KEY, v VARCHAR(40));
INSERT INTO db.tu SELECT seq, CONCAT('committed', seq) FROM seq_1_to_500;
CREATE TABLE db.tx LIKE db.tu;
INSERT INTO db.tx SELECT * FROM db.tu;
CREATE TABLE db.tq LIKE db.tu;
INSERT INTO db.tq SELECT * FROM db.tu;
XA START 'x1';
UPDATE db.tx SET v = 'PREPARED' WHERE id % 4 = 0;
XA END 'x1';
XA PREPARE 'x1';`)
	if got := s.session(t, "db", `BEGIN;
UPDATE tu SET v = 'UNCOMMITTED' WHERE id % 3 = 0;
INSERT INTO tu SELECT seq, 'NEWROW' FROM seq_501_to_550;
DELETE FROM tu WHERE id % 7 = 0;
SELECT 'holding';
SELECT SLEEP(600);`); got != "holding" {
		t.Fatalf("the open transaction's session: %q", got)
	}
	want := map[string]string{}
	for _, tb := range []string{"tu", "tx", "tq"} {
		want[tb] = string(s.sql(t, "SELECT * FROM db."+tb+" ORDER BY id"))
	}
	s.sql(t, "SET GLOBAL innodb_max_dirty_pages_pct = 0; SET GLOBAL innodb_max_dirty_pages_pct_lwm = 0.001;")
	for i := 0; ; i++ {
		// Nothing to apply: no page record after the checkpoint. FILE_MODIFY records may follow
		// it (the open transactions keep their tablespaces named at each checkpoint: stop 38,
		// loaded run), which makes the server read the log but changes no page.
		var st struct {
			PageRecords *int `json:"page_records"`
		}
		out, _, _ := run("log", "stats", "--json", s.dir)
		if json.Unmarshal([]byte(out), &st) == nil && st.PageRecords != nil && *st.PageRecords == 0 {
			break
		}
		if i == 360 {
			t.Fatalf("the server's checkpoint did not reach the last page record of its log:\n%s", out)
		}
		time.Sleep(500 * time.Millisecond)
	}
	s.kill()

	for _, tb := range []string{"tu", "tx"} {
		out, errs, code := run("rows", s.dir, "db."+tb)
		if code != ExitError || out != "" || !strings.Contains(errs, "uncommitted transaction") {
			t.Errorf("rows db.%s: exit %d, %d bytes, %s (want a refusal)", tb, code, len(out), errs)
		}
		out, errs, code = run("rows", s.dir, "db."+tb, "--uncommitted")
		if code != ExitClean || out == want[tb] {
			t.Errorf("rows db.%s --uncommitted: exit %d, %s; same as the committed rows: %v", tb, code, errs, out == want[tb])
		}
	}
	if out, errs, code := run("rows", s.dir, "db.tq"); code != ExitClean || out != want["tq"] {
		t.Errorf("rows db.tq (untouched): exit %d, %s\n%s", code, errs, firstDiff(want["tq"], out))
	}
	cp := filepath.Join(t.TempDir(), "data")
	lab.CopyDir(t, s.dir, cp)
	srv := startRowsServer(t, cp)
	for _, tb := range []string{"tu", "tx"} {
		if got := string(srv.sql(t, "SELECT * FROM db."+tb+" ORDER BY id")); got != want[tb] {
			t.Errorf("the server on a copy shows db.%s otherwise than before the kill:\n%s", tb, firstDiff(want[tb], got))
		}
	}
	srv.shutdown(t)
}
