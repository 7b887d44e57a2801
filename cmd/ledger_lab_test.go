package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/changes"
	"innoscope/internal/lab"
	"innoscope/logformat"
)

// ledgerCrash makes a real crash for the loss ledger: a server that flushes no page on its
// own takes a checkpoint, then commits 24 transactions, each on one table (db.a: an insert and an
// update; db.b: a delete and an insert), every row touched once, and is killed. It returns
// the crashed directory.
func ledgerCrash(t *testing.T) string {
	s := newRowsServer(t, t.TempDir(), "--innodb-max-dirty-pages-pct=99", "--innodb-max-dirty-pages-pct-lwm=0", "--innodb-adaptive-flushing=OFF")
	s.sql(t, `CREATE DATABASE db;
CREATE TABLE db.a (id INT PRIMARY KEY, v VARCHAR(40)) STATS_PERSISTENT=0;
INSERT INTO db.a SELECT seq, CONCAT('a', seq) FROM seq_1_to_100;
CREATE TABLE db.b (k INT PRIMARY KEY, x INT) STATS_PERSISTENT=0;
INSERT INTO db.b SELECT seq, seq FROM seq_1_to_100;
SET GLOBAL innodb_log_checkpoint_now = 1;`)
	var w strings.Builder
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&w, "BEGIN; INSERT INTO db.a VALUES (%d, 'new%d'); UPDATE db.a SET v = 'upd%d' WHERE id = %d; COMMIT;\n", 1000+i, i, i, i)
		fmt.Fprintf(&w, "BEGIN; DELETE FROM db.b WHERE k = %d; INSERT INTO db.b VALUES (%d, %d); COMMIT;\n", 50+i, 1000+i, i)
	}
	s.sql(t, w.String())
	s.kill()
	return s.dir
}

// midUserPageWrite picks the last data byte of a WRITE record in a mini-transaction of the
// middle of the log that changes only pages of the tables (no undo page, no commit: what the
// damage hides is then no row change), and returns its mini-transaction.
func midUserPageWrite(t *testing.T, l *logformat.Log, cp uint64) (byteLSN, mtrLSN uint64) {
	sc := l.Scan(cp, logformat.ScanOptions{})
	var cands [][2]uint64
	for sc.Next() {
		m := sc.MTR()
		user, at := true, uint64(0)
		for _, r := range m.Records {
			if r.Type.IsFile() || r.Space == 0 {
				user = false
			}
			if r.Type == logformat.Write && len(r.Data) >= 2 && at == 0 {
				at = m.LSN + uint64(r.Pos+r.Len-1)
			}
		}
		if user && at != 0 {
			cands = append(cands, [2]uint64{at, m.LSN})
		}
	}
	if len(cands) == 0 {
		t.Fatal("no mini-transaction with a WRITE on a table's page alone in the log")
	}
	return cands[len(cands)/2][0], cands[len(cands)/2][1]
}

// ledgerJSON is the loss ledger as diagnose --json and recover --json give it.
type ledgerJSON struct {
	Ledger *changes.Ledger `json:"ledger"`
}

// recoveredRows is SELECT * of each table of the server's recovery of dir: rows by first column.
func recoveredRows(t *testing.T, dir string, tables ...string) map[string]map[string]string {
	s := startRowsServer(t, dir)
	out := map[string]map[string]string{}
	for _, tb := range tables {
		rows := map[string]string{}
		for _, line := range strings.Split(strings.TrimSuffix(string(s.sql(t, "SELECT * FROM "+tb)), "\n"), "\n") {
			if line != "" {
				key, _, _ := strings.Cut(line, "\t")
				rows[key] = line
			}
		}
		out[tb] = rows
	}
	s.shutdown(t)
	return out
}

// rowDiff counts what the damaged recovery lacks against the whole one, per table: rows only
// the whole one has (inserts lost), rows only the damaged one has (deletes lost), rows that
// differ (updates lost).
func rowDiff(whole, damaged map[string]map[string]string) map[string][3]int {
	out := map[string][3]int{}
	for tb, w := range whole {
		d := damaged[tb]
		var n [3]int
		for k, v := range w {
			if dv, ok := d[k]; !ok {
				n[0]++
			} else if dv != v {
				n[1]++
			}
		}
		for k := range d {
			if _, ok := w[k]; !ok {
				n[2]++
			}
		}
		if n != [3]int{} {
			out[tb] = n
		}
	}
	return out
}

// TestLossLedgerDamagedLog: a real crash after a checkpoint with 24 committed transactions on
// db.a and db.b; in a copy a byte is flipped in a mini-transaction in the middle of the log,
// between the commits, that changes a table's page alone. diagnose --json (LOG_DAMAGED, as
// without the ledger; the document valid against the schema) gives a ledger cut at the damaged
// mini-transaction; the server's own recovery of the damaged copy and of an undamaged copy are
// compared row by row: the tables whose rows differ, and per table the rows inserted, updated
// and deleted that the damaged recovery lacks, equal the ledger's sums (11 transactions, db.a 5
// inserts 5 updates, db.b 6 inserts 6 deletes on the first run); some transactions are lost
// and some are not; no transaction is "maybe lost". recover --salvage gives the same ledger;
// the text output has the block and the command, which lists the lost transactions. The
// damaged directory stays byte-identical.
func TestLossLedgerDamagedLog(t *testing.T) {
	led := ledgerCase(t, func(_ string, l *logformat.Log, cp uint64) (uint64, uint64) { return midUserPageWrite(t, l, cp) })
	if len(led.MaybeLost) != 0 {
		t.Errorf("maybe lost %+v: the damaged mini-transaction changes a table's page alone", led.MaybeLost)
	}
}

// TestReportTransactions: the HTML report of the damaged crash of TestLossLedgerDamagedLog, in
// headless Chromium: the section of the transactions after the checkpoint has a row per table
// and state whose transaction and row counts are those log changes gives (the log the server
// reads, to the damage: db.a 7 committed, db.b 6 committed and 1 open on the first run), and
// the ledger's table a row for every lost transaction and table. INNOSCOPE_KEEP_REPORTS=DIR
// keeps the report and its screenshot.
func TestReportTransactions(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (scripts/test.sh installs it: apt-get install chromium)")
	}
	crashed := ledgerCrash(t)
	dir := filepath.Join(t.TempDir(), "damaged")
	lab.CopyDir(t, crashed, dir)
	f, l := openLog(t, dir, os.O_RDWR)
	cp, _ := l.Checkpoint()
	byteLSN, _ := midUserPageWrite(t, l, cp.LSN)
	b := make([]byte, 1)
	f.ReadAt(b, l.FileOffset(byteLSN))
	b[0] ^= 0x40
	f.WriteAt(b, l.FileOffset(byteLSN))
	f.Close()
	tmp := t.TempDir()
	html := filepath.Join(tmp, "report.html")
	if out, errs, code := run("report", dir, "--out", html); code == ExitError {
		t.Fatalf("report: exit %d\n%s\n%s", code, out, errs)
	}
	var lc struct {
		Transactions []struct {
			ID      uint64 `json:"trx_id"`
			State   string `json:"state"`
			Changes []struct {
				Table string `json:"table"`
				Op    string `json:"op"`
			} `json:"changes"`
		} `json:"transactions"`
	}
	runJSON(t, &lc, "log", "changes", "--json", dir)
	type key struct{ table, state string }
	want := map[key][4]int{}
	for _, x := range lc.Transactions {
		seen := map[string]bool{}
		for _, ch := range x.Changes {
			k := key{ch.Table, x.State}
			n := want[k]
			if !seen[ch.Table] {
				n[0]++
				seen[ch.Table] = true
			}
			n[map[string]int{"insert": 1, "update": 2, "delete": 3}[ch.Op]]++
			want[k] = n
		}
	}
	var lj ledgerJSON
	out, _, _ := run("diagnose", "--json", dir)
	json.Unmarshal([]byte(out), &lj)
	if lj.Ledger == nil || len(lj.Ledger.Transactions) == 0 {
		t.Fatalf("no ledger: %s", out)
	}
	dom := runChromium(t, chromium, tmp, "--dump-dom", "file://"+html)
	cell := func(n int) string { return fmt.Sprintf(`<td class="r">%d</td>`, n) }
	for k, n := range want {
		row := fmt.Sprintf(`<tr><td class="w"><code>%s</code></td><td class="n st-%s">%s</td>%s%s%s%s`, k.table, k.state, k.state, cell(n[0]), cell(n[1]), cell(n[2]), cell(n[3]))
		if !strings.Contains(dom, row) {
			t.Errorf("the rendered DOM lacks the row %s", row)
		}
	}
	t.Logf("%d table/state rows: %v", len(want), want)
	for _, lt := range lj.Ledger.Transactions {
		for _, tl := range lt.Tables {
			row := fmt.Sprintf(`<tr><td class="r">%d</td><td class="n">%d</td><td class="w"><code>%s</code></td>%s%s%s</tr>`, lt.ID, lt.CommitLSN, tl.Table, cell(tl.Inserts), cell(tl.Updates), cell(tl.Deletes))
			if !strings.Contains(dom, row) {
				t.Errorf("the rendered DOM lacks the ledger's row %s", row)
			}
		}
	}
	for _, id := range []string{`id="trx"`, `id="ledger"`, `id="lost"`} {
		if !strings.Contains(dom, id) {
			t.Errorf("the rendered DOM lacks %s", id)
		}
	}
	shot := filepath.Join(tmp, "report.png")
	runChromium(t, chromium, tmp, "--screenshot="+shot, "--window-size=1280,2400", "--hide-scrollbars", "file://"+html)
	if keep := os.Getenv("INNOSCOPE_KEEP_REPORTS"); keep != "" {
		os.MkdirAll(keep, 0o755)
		for _, p := range []string{shot, html} {
			if b, err := os.ReadFile(p); err == nil {
				os.WriteFile(filepath.Join(keep, "ledger-"+filepath.Base(p)), b, 0o644)
			}
		}
	}
}

// TestLossLedgerDamagedCommit: the same crash, the byte flipped in the commit of a transaction
// in the middle (its end LSN as log changes gives it on the whole log). The ledger lists the
// transactions committed after it as lost and that one as maybe lost (its changes all before
// the damage, no end after it); the server's recovery of the damaged copy lacks exactly the
// rows of both.
func TestLossLedgerDamagedCommit(t *testing.T) {
	var commitTrx uint64
	led := ledgerCase(t, func(whole string, l *logformat.Log, cp uint64) (uint64, uint64) {
		var doc struct {
			Transactions []struct {
				ID     uint64 `json:"trx_id"`
				EndLSN uint64 `json:"end_lsn"`
			} `json:"transactions"`
		}
		runJSON(t, &doc, "log", "changes", "--json", whole)
		if len(doc.Transactions) != 24 {
			t.Fatalf("log changes lists %d transactions, want the 24 committed", len(doc.Transactions))
		}
		mid := doc.Transactions[len(doc.Transactions)/2]
		commitTrx = mid.ID
		sc := l.Scan(mid.EndLSN, logformat.ScanOptions{})
		if !sc.Next() {
			t.Fatalf("no mini-transaction at %d", mid.EndLSN)
		}
		for _, r := range sc.MTR().Records {
			if r.Type == logformat.Write && len(r.Data) >= 2 {
				return mid.EndLSN + uint64(r.Pos+r.Len-1), mid.EndLSN
			}
		}
		t.Fatalf("no WRITE in the commit at %d", mid.EndLSN)
		return 0, 0
	})
	if len(led.MaybeLost) != 1 || led.MaybeLost[0].ID != commitTrx {
		t.Errorf("maybe lost %+v, want trx %d whose commit is damaged", led.MaybeLost, commitTrx)
	}
}

// ledgerCase makes the crash, flips the byte pick chooses in a copy of it (pick gets an undamaged
// copy too), and checks the ledger of diagnose and recover --salvage against the server's
// recoveries (see TestLossLedgerDamagedLog); it returns diagnose's ledger.
func ledgerCase(t *testing.T, pick func(whole string, l *logformat.Log, cp uint64) (byteLSN, mtrLSN uint64)) *changes.Ledger {
	crashed := ledgerCrash(t)
	base := t.TempDir()
	whole, damaged := filepath.Join(base, "whole"), filepath.Join(base, "damaged")
	lab.CopyDir(t, crashed, whole)
	lab.CopyDir(t, crashed, damaged)
	f, l := openLog(t, damaged, os.O_RDWR)
	cp, _ := l.Checkpoint()
	byteLSN, mtrLSN := pick(whole, l, cp.LSN)
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, l.FileOffset(byteLSN)); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0x40
	if _, err := f.WriteAt(b, l.FileOffset(byteLSN)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	before := lab.HashTree(t, damaged)

	out, errs, code := run("diagnose", "--json", damaged)
	var j diagnoseJSON
	var lj ledgerJSON
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("diagnose: exit %d: %v\n%s%s", code, err, out, errs)
	}
	json.Unmarshal([]byte(out), &lj)
	var doc any
	json.Unmarshal([]byte(out), &doc)
	if err := compileSchema(t).Validate(doc); err != nil {
		t.Errorf("diagnose --json against the schema: %v", err)
	}
	fs := findings(j, "LOG_DAMAGED")
	if len(fs) != 1 || *fs[0].LSN != mtrLSN || lj.Ledger == nil {
		t.Fatalf("diagnose: exit %d, LOG_DAMAGED %+v, ledger %+v; the damage is at %d", code, fs, lj.Ledger, mtrLSN)
	}
	led := lj.Ledger
	t.Logf("ledger: cut %d, read to %d, %d transactions, %d maybe lost, %s; %s", led.CutLSN, led.ReadToLSN, len(led.Transactions), len(led.MaybeLost), led.Unknown, led.Command)
	if led.CutLSN != mtrLSN || led.Error != "" || led.ReadToLSN <= mtrLSN {
		t.Fatalf("ledger %+v, want cut at %d", led, mtrLSN)
	}
	if want := "innoscope log changes " + damaged + " --past-damage --from-lsn "; !strings.HasPrefix(led.Command, want) {
		t.Errorf("command %q, want %q...", led.Command, want)
	}

	all := &changes.Ledger{Transactions: append(append([]changes.LostTrx{}, led.Transactions...), led.MaybeLost...)}
	got := map[string][3]int{}
	inexact := 0
	for _, tl := range all.ByTable() {
		got[tl.Table] = [3]int{tl.Inserts, tl.Updates, tl.Deletes}
		inexact += tl.Inexact
	}
	if inexact > 1 { // the row whose index page the damaged mini-transaction changed, at most
		t.Errorf("%d changes not decoded exactly; the damage hides one page change", inexact)
	}
	server := filepath.Join(base, "server")
	lab.CopyDir(t, damaged, server)
	diff := rowDiff(recoveredRows(t, whole, "db.a", "db.b"), recoveredRows(t, server, "db.a", "db.b"))
	t.Logf("the server's recoveries differ by (inserts, updates, deletes lost) %v; the ledger says %v", diff, got)
	if len(diff) == 0 || len(led.Transactions) == 0 || len(led.Transactions) >= 24 {
		t.Fatalf("the damage loses %v (%d transactions): not in the middle of the commits", diff, len(led.Transactions))
	}
	if fmt.Sprint(diff) != fmt.Sprint(got) {
		t.Errorf("the server's recovery of the damaged log lacks %v; the ledger lists %v", diff, got)
	}

	// recover --salvage names the same loss; the text output has the block and the command.
	var rj ledgerJSON
	out, errs, code = run("recover", "--salvage", "--json", "--into", filepath.Join(base, "salvaged"), damaged)
	if err := json.Unmarshal([]byte(out), &rj); err != nil || rj.Ledger == nil {
		t.Fatalf("recover --salvage: exit %d: %v\n%s%s", code, err, out, errs)
	}
	if a, b := fmt.Sprint(rj.Ledger.Transactions, rj.Ledger.MaybeLost), fmt.Sprint(led.Transactions, led.MaybeLost); a != b || rj.Ledger.CutLSN != mtrLSN {
		t.Errorf("recover --salvage's ledger (cut %d) %s, diagnose's %s", rj.Ledger.CutLSN, a, b)
	}
	rtext, _, _ := run("recover", "--salvage", "--into", filepath.Join(base, "salvaged-text"), damaged)
	if !strings.Contains(rtext, fmt.Sprintf("lost in rows where recovery stops (LSN %d, SALVAGE_LOG_TRUNCATED): %s committed after it", mtrLSN, plural(len(led.Transactions), "transaction"))) {
		t.Errorf("recover --salvage's text has no ledger block:\n%s", rtext)
	}
	text, _, _ := run("diagnose", damaged)
	if !strings.Contains(text, fmt.Sprintf("lost in rows where recovery stops (LSN %d, LOG_DAMAGED): %s committed after it", mtrLSN, plural(len(led.Transactions), "transaction"))) ||
		!strings.Contains(text, led.Command) {
		t.Errorf("diagnose's text has no ledger block:\n%s", text)
	}
	t.Logf("diagnose:\n%s", text)
	args := append([]string{"log", "changes", "--json", damaged}, strings.Fields(led.Command)[4:]...)
	out, errs, code = run(args...)
	if code != ExitClean {
		t.Fatalf("%v: exit %d: %s", args, code, errs)
	}
	var lc struct {
		Transactions []struct {
			ID uint64 `json:"trx_id"`
		} `json:"transactions"`
	}
	if err := json.Unmarshal([]byte(out), &lc); err != nil {
		t.Fatal(err)
	}
	listed := map[uint64]bool{}
	for _, x := range lc.Transactions {
		listed[x.ID] = true
	}
	for _, lt := range led.Transactions {
		if !listed[lt.ID] {
			t.Errorf("log changes %v does not list trx %d", args, lt.ID)
		}
	}
	if after := lab.HashTree(t, damaged); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Error("the damaged directory changed")
	}
	return led
}

// plural is "1 transaction", "2 transactions".
func plural(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %ss", n, one)
}

// TestLossLedgerLogEndDamaged: the crash of TestLossLedgerDamagedLog with a byte flipped in a
// mini-transaction in the middle of the log and every byte after it zeroed: the log ends on
// damage (LOG_END_DAMAGED), what followed is gone. The ledger says the log after the damage
// cannot be read and what it held is unknown, names no transaction as lost, and lists as maybe
// lost exactly the transactions log changes finds open at the end; the server's recovery of
// it lacks rows against the undamaged crash, among them every row change of those.
func TestLossLedgerLogEndDamaged(t *testing.T) {
	crashed := ledgerCrash(t)
	base := t.TempDir()
	whole, damaged := filepath.Join(base, "whole"), filepath.Join(base, "damaged")
	lab.CopyDir(t, crashed, whole)
	lab.CopyDir(t, crashed, damaged)
	f, l := openLog(t, damaged, os.O_RDWR)
	cp, _ := l.Checkpoint()
	byteLSN, mtrLSN := midUserPageWrite(t, l, cp.LSN)
	sc := l.Scan(mtrLSN, logformat.ScanOptions{})
	if !sc.Next() {
		t.Fatal("no mini-transaction at the damage")
	}
	resume := sc.MTR().EndLSN
	for sc.Next() {
	}
	end := sc.LSN()
	stop, detail, _ := sc.Stop()
	t.Logf("damage at %d, next mini-transaction at %d, end of log %d (%s: %s)", mtrLSN, resume, end, stop, detail)
	b := make([]byte, 1)
	f.ReadAt(b, l.FileOffset(byteLSN))
	b[0] ^= 0x40
	f.WriteAt(b, l.FileOffset(byteLSN))
	// Zeros from the next mini-transaction to the end of the file: past the log's end the file
	// still holds whole mini-transactions of the bootstrap's log (at LSNs this log had not
	// reached), which a resync past a shorter hole finds.
	fi, _ := f.Stat()
	if off := l.FileOffset(resume); off < fi.Size() {
		if _, err := f.WriteAt(make([]byte, fi.Size()-off), off); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()

	out, errs, code := run("diagnose", "--json", damaged)
	var j diagnoseJSON
	var lj ledgerJSON
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("diagnose: exit %d: %v\n%s%s", code, err, out, errs)
	}
	json.Unmarshal([]byte(out), &lj)
	fs := findings(j, "LOG_END_DAMAGED")
	if len(fs) != 1 || *fs[0].LSN != mtrLSN || lj.Ledger == nil {
		t.Fatalf("diagnose: exit %d, LOG_END_DAMAGED %+v, ledger %+v; the damage is at %d", code, fs, lj.Ledger, mtrLSN)
	}
	led := lj.Ledger
	t.Logf("ledger: %+v", led)
	if led.CutLSN != mtrLSN || len(led.Transactions) != 0 || led.Unknown != fmt.Sprintf("the log after LSN %d cannot be read: what it held is unknown", mtrLSN) {
		t.Errorf("ledger %+v", led)
	}
	var lc struct {
		Transactions []struct {
			ID    uint64 `json:"trx_id"`
			State string `json:"state"`
		} `json:"transactions"`
	}
	runJSON(t, &lc, "log", "changes", "--json", damaged)
	var open, maybe []uint64
	for _, x := range lc.Transactions {
		if x.State == "open" {
			open = append(open, x.ID)
		}
	}
	for _, x := range led.MaybeLost {
		maybe = append(maybe, x.ID)
	}
	if len(open) == 0 || fmt.Sprint(open) != fmt.Sprint(maybe) {
		t.Errorf("maybe lost %v; log changes finds open at the end %v", maybe, open)
	}
	server := filepath.Join(base, "server")
	lab.CopyDir(t, damaged, server)
	diff := rowDiff(recoveredRows(t, whole, "db.a", "db.b"), recoveredRows(t, server, "db.a", "db.b"))
	t.Logf("the server's recoveries differ by (inserts, updates, deletes lost) %v; maybe lost %+v", diff, led.MaybeLost)
	for _, tl := range (&changes.Ledger{Transactions: led.MaybeLost}).ByTable() {
		d := diff[tl.Table]
		if tl.Inserts > d[0] || tl.Updates > d[1] || tl.Deletes > d[2] {
			t.Errorf("%s: maybe lost %+v, the server's recovery lacks %v", tl.Table, tl, d)
		}
	}
	if text, _, _ := run("diagnose", damaged); !strings.Contains(text, "cannot be read: what it held is unknown") {
		t.Errorf("diagnose's text does not say the rest is unknown:\n%s", text)
	}
}
