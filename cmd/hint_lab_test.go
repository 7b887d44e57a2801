package cmd

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// hintFindings runs `diagnose --json DIR` (with args) and returns its findings of the two
// "what can be recovered" codes, by code.
func hintFindings(t *testing.T, dir string, args ...string) map[string][]string {
	t.Helper()
	out, errs, _ := run(append([]string{"diagnose", "--json", dir}, args...)...)
	var d diagnoseJSON
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("diagnose --json %s: %v\n%s\n%s", dir, err, out, errs)
	}
	got := map[string][]string{}
	for _, f := range d.Findings {
		if f.Code == "DELETED_ROWS_ON_DISK" || f.Code == "DROPPED_TABLE_PAGES" {
			got[f.Code] = append(got[f.Code], f.Message)
		}
	}
	return got
}

// TestRecoverableHint (issue 32, item 4): the "what can be recovered" hint. A server with
// innodb_file_per_table=0 makes db.d (to be dropped, off-page TEXT values) and db.k (rows to
// be deleted, a secondary index kv to be dropped), then shuts down; a copy of that directory
// (INSERTs only, clean shutdown) gives no hint: neither diagnose's DELETED_ROWS_ON_DISK nor
// DROPPED_TABLE_PAGES, nor `rows`'s. The server restarts, a consistent snapshot is held open
// (purge keeps the delete-marked records and the dictionary's), another connection deletes 10%
// of db.k and drops db.d and kv, and the server is killed; `recover` makes a copy. On the
// copy: `rows COPY db.k` (and --json) says on stderr how many records are delete-marked, the
// number the server's DELETE reported, naming `innoscope rows COPY db.k --deleted`, which
// prints exactly the rows the test selected before the DELETE; diagnose says
// DROPPED_TABLE_PAGES naming db.d (the index id the server gave its PRIMARY, as many leaf pages
// as `undrop COPY --list` finds) and `innoscope undrop COPY --list`, and not kv when that list
// names it (a live table's dropped secondary index holds no lost rows); `undrop COPY db.d`
// prints exactly the rows the server's SELECT returned before the DROP (compared sorted); with
// --skip-pages neither hint.
func TestRecoverableHint(t *testing.T) {
	opts := []string{"--innodb-file-per-table=0"}
	base := t.TempDir()
	s := newRowsServer(t, base, opts...)
	s.sql(t, "CREATE DATABASE db;\n"+
		"CREATE TABLE db.d (id INT PRIMARY KEY, v VARCHAR(60), b TEXT) ROW_FORMAT=DYNAMIC;\n"+
		"INSERT INTO db.d SELECT seq, CONCAT('d', seq, REPEAT('y', seq % 30)), IF(seq % 40 = 0, REPEAT(CONCAT('text', seq), 2500), CONCAT('s', seq)) FROM seq_1_to_1500;\n"+
		"CREATE TABLE db.k (id INT PRIMARY KEY, v VARCHAR(60), n BIGINT) ROW_FORMAT=COMPACT;\n"+
		"INSERT INTO db.k SELECT seq, CONCAT('k', seq, REPEAT('z', seq % 25)), seq * 11 FROM seq_1_to_1000;\n"+
		"CREATE INDEX kv ON db.k (v);\n")
	wantD := sortedLines(string(s.sql(t, "SELECT * FROM db.d")))
	ids := strings.Fields(string(s.sql(t, "SELECT i.INDEX_ID FROM information_schema.INNODB_SYS_INDEXES i JOIN information_schema.INNODB_SYS_TABLES t USING (TABLE_ID) "+
		"WHERE (t.NAME, i.NAME) IN (('db/d', 'PRIMARY'), ('db/k', 'kv')) ORDER BY t.NAME")))
	if len(ids) != 2 {
		t.Fatalf("index ids of db.d's PRIMARY and db.k's kv: %q", ids)
	}
	idD, idKV := ids[0], ids[1]
	s.shutdown(t)

	// Only INSERTs, a clean shutdown: no hint anywhere.
	clean := filepath.Join(t.TempDir(), "clean")
	if out, err := exec.Command("cp", "-a", s.dir, clean).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	if got := hintFindings(t, clean); len(got) != 0 {
		t.Errorf("diagnose %s (INSERTs only): %v", clean, got)
	}
	if out, errs, code := run("rows", clean, "db.k"); code != ExitClean || strings.Contains(errs, "DELETED_ROWS_ON_DISK") || strings.Count(out, "\n") != 1000 {
		t.Errorf("rows %s db.k (INSERTs only): exit %d, %d rows, %s", clean, code, strings.Count(out, "\n"), errs)
	}

	s = startRowsServer(t, s.dir, opts...)
	holdSnapshot(t, s)
	wantDel := string(s.sql(t, "SELECT * FROM db.k WHERE id % 10 = 0 ORDER BY id"))
	n, err := strconv.Atoi(strings.TrimSpace(string(s.sql(t, "DELETE FROM db.k WHERE id % 10 = 0; SELECT ROW_COUNT();"))))
	if err != nil {
		t.Fatal(err)
	}
	live := string(s.sql(t, "SELECT * FROM db.k ORDER BY id"))
	s.sql(t, "DROP TABLE db.d; DROP INDEX kv ON db.k")
	s.kill()

	cp := filepath.Join(t.TempDir(), "copy")
	if out, errs, code := run("recover", s.dir, "--into", cp); code != ExitClean {
		t.Fatalf("recover: exit %d\n%s\n%s", code, out, errs)
	}
	before := lab.HashTree(t, cp)

	// rows: the hint with the server's count and the command as typed, in both formats.
	hint := "info DELETED_ROWS_ON_DISK"
	cmd := "`innoscope rows " + cp + " db.k --deleted`"
	for _, args := range [][]string{nil, {"--json"}} {
		out, errs, code := run(append([]string{"rows", cp, "db.k"}, args...)...)
		if code != ExitClean || args == nil && out != live {
			t.Errorf("rows db.k %v: exit %d, %s\n%s", args, code, errs, firstDiff(live, out))
		}
		if strings.Count(errs, hint) != 1 || !strings.Contains(errs, strconv.Itoa(n)+" delete-marked records") || !strings.Contains(errs, cmd) {
			t.Errorf("rows db.k %v: want one %s hint with %d records naming %s:\n%s", args, hint, n, cmd, errs)
		}
	}
	// A relative DIR is named as typed.
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, cp); err == nil {
			_, errs, _ := run("rows", rel, "db.k")
			if want := "`innoscope rows " + rel + " db.k --deleted`"; !strings.Contains(errs, want) {
				t.Errorf("rows %s db.k: want the hint naming %s:\n%s", rel, want, errs)
			}
		}
	}
	if out, errs, code := run("rows", cp, "db.k", "--deleted"); code != ExitClean || out != wantDel {
		t.Errorf("rows db.k --deleted: exit %d, %s\n%s", code, errs, firstDiff(wantDel, out))
	}

	// diagnose: both hints, each naming its command; none with --skip-pages.
	got := hintFindings(t, cp)
	t.Logf("diagnose: %v", got)
	var k []string // the DROP's DELETEs of db.d's statistics delete-mark mysql.innodb_*_stats records too
	for _, m := range got["DELETED_ROWS_ON_DISK"] {
		if strings.HasPrefix(m, "db.") {
			k = append(k, m)
		}
	}
	if len(k) != 1 || !strings.HasPrefix(k[0], "db.k: "+strconv.Itoa(n)+" delete-marked records") || !strings.Contains(k[0], cmd) {
		t.Errorf("diagnose: DELETED_ROWS_ON_DISK of db.* %q, want db.k's %d naming %s", k, n, cmd)
	}
	// Each table's count is the one `rows` meets walking it (no page counted twice, the
	// doublewrite buffer's copies not at all).
	for _, m := range got["DELETED_ROWS_ON_DISK"] {
		tb, rest, _ := strings.Cut(m, ": ")
		count, _, _ := strings.Cut(rest, " ")
		if _, errs, _ := run("rows", cp, tb); !strings.Contains(errs, ": "+count+" delete-marked records") {
			t.Errorf("diagnose says %s; rows %s says:\n%s", m, tb, errs)
		}
	}
	// undrop --list: db.d's clustered index, and db.k's dropped secondary index kv, which the
	// hint leaves out (no lost rows) when the dictionary's leftovers name it.
	js, errs, code := run("undrop", cp, "--list", "--json")
	var list struct {
		Dropped []struct {
			Name    string `json:"name"`
			Index   string `json:"index"`
			IndexID uint64 `json:"index_id"`
			Leaves  int    `json:"leaf_pages"`
		} `json:"dropped"`
	}
	if err := json.Unmarshal([]byte(js), &list); err != nil || code != ExitClean {
		t.Fatalf("undrop --list --json: exit %d, %v, %s\n%s", code, err, errs, js)
	}
	leaves, kvNamed := -1, false
	for _, d := range list.Dropped {
		switch strconv.FormatUint(d.IndexID, 10) {
		case idD:
			leaves = d.Leaves
		case idKV:
			kvNamed = d.Name == "db.k" && d.Index == "kv"
		}
	}
	t.Logf("undrop --list: %+v (db.d's index %s, db.k's kv %s, named: %v)", list.Dropped, idD, idKV, kvNamed)
	want := "db.d (index " + idD + "): " + strconv.Itoa(leaves) + " leaf pages in ibdata1"
	if d := got["DROPPED_TABLE_PAGES"]; len(d) != 1 || leaves <= 0 || !strings.Contains(d[0], want) || !strings.Contains(d[0], "`innoscope undrop "+cp+" --list`") {
		t.Errorf("diagnose: DROPPED_TABLE_PAGES %q, want one with %q naming `innoscope undrop %s --list`", d, want, cp)
	} else if kvNamed && strings.Contains(d[0], "index "+idKV) {
		t.Errorf("diagnose: DROPPED_TABLE_PAGES names db.k's dropped secondary index %s: %s", idKV, d[0])
	}
	if got := hintFindings(t, cp, "--skip-pages"); len(got) != 0 {
		t.Errorf("diagnose --skip-pages: %v", got)
	}
	out, errs, code := run("undrop", cp, "db.d")
	if g := sortedLines(out); code != ExitClean || g != wantD {
		t.Errorf("undrop db.d: exit %d, %s\n%s", code, errs, firstDiff(wantD, g))
	}
	if after := lab.HashTree(t, cp); !sameTree(before, after) {
		t.Errorf("rows, diagnose or undrop changed the directory they read")
	}
}
