package cmd

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// binlogSchema is the workload's tables: the types of the rows tests (integers signed and
// unsigned, DECIMAL, FLOAT, DOUBLE, strings of two character sets, TEXT, BINARY, VARBINARY,
// BLOBs inline and off page, dates and times, TIMESTAMP, YEAR, ENUM, SET, BIT, JSON), an
// instantly altered table (a column added in the middle, one dropped), a table without a
// primary key and one with a composite key.
const binlogSchema = `CREATE DATABASE db;
CREATE TABLE db.t_int (id INT PRIMARY KEY, a TINYINT, b TINYINT UNSIGNED, c SMALLINT, d MEDIUMINT UNSIGNED, g INT, h INT UNSIGNED, i BIGINT, j BIGINT UNSIGNED) STATS_PERSISTENT=0;
CREATE TABLE db.t_num (id INT PRIMARY KEY, a DECIMAL(10,2), b DECIMAL(30,10) UNSIGNED, c FLOAT, d DOUBLE, e FLOAT(7,3), k DECIMAL(3,3)) STATS_PERSISTENT=0;
CREATE TABLE db.t_str (id INT PRIMARY KEY, a CHAR(10), b VARCHAR(300), c CHAR(5) CHARACTER SET latin1, e TEXT, f BINARY(4), g VARBINARY(10), h BLOB, j MEDIUMBLOB) STATS_PERSISTENT=0;
CREATE TABLE db.t_time (id INT PRIMARY KEY, a DATE, b TIME, c TIME(3), d DATETIME, e DATETIME(6), f TIMESTAMP NULL, g TIMESTAMP(2) NULL, h YEAR) STATS_PERSISTENT=0;
CREATE TABLE db.t_misc (id INT PRIMARY KEY, a ENUM('x','yy','zzz'), b SET('a','b','c','d'), c BIT(1), d BIT(12), e JSON) STATS_PERSISTENT=0;
CREATE TABLE db.t_inst (id INT PRIMARY KEY, a INT, b VARCHAR(20)) STATS_PERSISTENT=0;
CREATE TABLE db.t_nopk (a INT, b VARCHAR(10)) STATS_PERSISTENT=0;
CREATE TABLE db.t_comp (a VARCHAR(10), b INT, c INT, PRIMARY KEY (b, a)) STATS_PERSISTENT=0;
INSERT INTO db.t_int VALUES (1,-1,255,-300,16777215,-5,4294967295,-9223372036854775808,18446744073709551615), (2,0,0,0,0,0,0,0,0), (3,1,1,1,1,1,1,1,1), (4,2,2,2,2,2,2,2,2);
INSERT INTO db.t_num VALUES (1,-12.5,123.0000000001,1.1,0.1,1.5,-0.5), (2,0,0,0,0,0,0), (3,99999999.99,1,-3.4e38,1.7976931348623157e308,-9999.999,0.999);
INSERT INTO db.t_str VALUES (1,'ab','x\ty\nz''q\\','é',REPEAT('t',10),'a\0',x'000102ff','blob',REPEAT('m',20000)),
 (2,'cd','plain','ü','text two','wxyz',x'0a0b',NULL,'small'), (3,'ef',NULL,NULL,REPEAT('long text ',2000),NULL,'',x'00ff00',REPEAT(x'c0ff',9000));
INSERT INTO db.t_time VALUES (1,'2020-01-02','-12:03:04','01:02:03.456','2020-01-02 03:04:05','2020-01-02 03:04:05.123456','2020-01-02 03:04:05','2021-01-02 03:04:05.12',2021),
 (2,'1999-12-31','838:59:59','00:00:00.001','1000-01-01 00:00:00','9999-12-31 23:59:59.999999','1970-01-02 00:00:00','2038-01-19 03:14:07.99',1901);
INSERT INTO db.t_misc VALUES (1,'yy','a,c',1,b'101010101010','{"k": [1, "x"]}'), (2,'x','',0,b'1',NULL), (3,NULL,'a,b,c,d',NULL,b'111111111111','[]');
INSERT INTO db.t_inst SELECT seq, seq * 2, CONCAT('i', seq) FROM seq_1_to_6;
ALTER TABLE db.t_inst ADD COLUMN c CHAR(3) DEFAULT 'dd' AFTER id, ALGORITHM=INSTANT;
ALTER TABLE db.t_inst DROP COLUMN a, ALGORITHM=INSTANT;
INSERT INTO db.t_nopk VALUES (1,'one'), (2,'two'), (3,'three');
INSERT INTO db.t_comp VALUES ('x',1,10), ('y',1,11), ('x',2,12), ('z',3,13);`

// binlogWorkload are the committed transactions after the checkpoint, one client call each.
var binlogWorkload = []string{
	`BEGIN;
INSERT INTO db.t_int VALUES (5,-128,200,-32768,1,-2147483648,2147483648,9223372036854775807,9223372036854775808);
UPDATE db.t_int SET a = a + 1, h = 7 WHERE id <= 3;
DELETE FROM db.t_int WHERE id = 4;
INSERT INTO db.t_num VALUES (4,-13.5,124.0000000001,1.2,0.2,2.5,-0.25);
UPDATE db.t_num SET c = 3.3, d = 1e300 WHERE id = 1;
COMMIT;`,
	`BEGIN;
INSERT INTO db.t_str VALUES (4,'gh','a\tb''\\','äöü','new text','b\0',x'0a0b0c',x'ffeedd',REPEAT('n',20000));
UPDATE db.t_str SET e = 'updated text', b = NULL WHERE id = 1;
UPDATE db.t_str SET j = 'now short', h = REPEAT('h', 100) WHERE id = 3;
UPDATE db.t_str SET a = 'changed' WHERE id = 2;
DELETE FROM db.t_str WHERE id = 1;
COMMIT;`,
	`INSERT INTO db.t_time VALUES (3,'2020-01-03','-13:03:04','02:02:03.456','2020-01-03 03:04:05','2020-01-03 03:04:05.123456','2020-01-03 03:04:05','2021-01-03 03:04:05.12',2022);`,
	`BEGIN;
UPDATE db.t_time SET a = NULL, f = '2030-01-01 00:00:00', g = NULL WHERE id = 1;
UPDATE db.t_time SET b = '-838:59:59', e = '2000-02-29 12:00:00.5' WHERE id = 2;
INSERT INTO db.t_misc VALUES (4,'zzz','b,d',0,b'1',NULL);
UPDATE db.t_misc SET a = 'x', b = 'd', e = '{"a": null}' WHERE id = 1;
DELETE FROM db.t_misc WHERE id = 2;
COMMIT;`,
	`BEGIN;
INSERT INTO db.t_inst (id, b) VALUES (7, 'seven');
UPDATE db.t_inst SET c = 'new' WHERE id = 2;
UPDATE db.t_inst SET b = 'bb' WHERE id IN (3, 4);
DELETE FROM db.t_inst WHERE id = 5;
INSERT INTO db.t_nopk VALUES (4,'four');
UPDATE db.t_nopk SET b = 'TWO' WHERE a = 2;
DELETE FROM db.t_nopk WHERE a = 3;
COMMIT;`,
	// a key changed (the server deletes and inserts the record), a row deleted and inserted again
	`BEGIN;
UPDATE db.t_comp SET b = b + 100 WHERE b = 1;
UPDATE db.t_comp SET c = 99 WHERE b = 2;
DELETE FROM db.t_int WHERE id = 2;
INSERT INTO db.t_int VALUES (2,9,9,9,9,9,9,9,9);
COMMIT;`,
	`INSERT INTO db.t_inst (id, c, b) SELECT seq, 'sel', CONCAT('s', seq) FROM seq_10_to_14;`,
	// a rollback to a savepoint: its changes are in no binary log
	`BEGIN;
INSERT INTO db.t_nopk VALUES (5,'five');
SAVEPOINT s;
UPDATE db.t_int SET c = 7 WHERE id = 1;
INSERT INTO db.t_num VALUES (9,1,1,1,1,1,0.1);
ROLLBACK TO SAVEPOINT s;
UPDATE db.t_num SET k = 0.125 WHERE id = 3;
COMMIT;`,
}

// binlogCol is a column as information_schema.COLUMNS describes it.
type binlogCol struct {
	name, dataType, colType, charset string
	key                              bool
}

// binlogEvent is one row event: its table, operation and images (by column name).
type binlogEvent struct {
	table, op     string
	rawB, rawA    map[int]string // the images as printed, by ordinal position
	before, after map[string]string
	nullB, nullA  map[string]bool
}

// binlogTrx is one transaction of the binary log: its xid (the Xid event) and row events.
type binlogTrx struct {
	xid    uint64
	events []binlogEvent
}

var binlogRowHead = regexp.MustCompile("^### (INSERT INTO|UPDATE|DELETE FROM) `([^`]*)`\\.`([^`]*)`$")

// parseBinlog reads mariadb-binlog --verbose --base64-output=DECODE-ROWS: the transactions (GTID
// to Xid) with row events on tables of db, their values left as printed (@N=raw, N the
// column's ordinal position).
func parseBinlog(t *testing.T, out string) []binlogTrx {
	t.Helper()
	var trxs []binlogTrx
	var cur *binlogTrx
	var img map[int]string
	inDB := false
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "#") && strings.Contains(line, "\tGTID "):
			cur = &binlogTrx{}
		case strings.HasPrefix(line, "#") && strings.Contains(line, "\tXid = "):
			x, err := strconv.ParseUint(strings.TrimSpace(line[strings.Index(line, "\tXid = ")+7:]), 10, 64)
			if err != nil || cur == nil {
				t.Fatalf("binlog: %q outside a transaction (%v)", line, err)
			}
			cur.xid = x
			if len(cur.events) > 0 {
				trxs = append(trxs, *cur)
			}
			cur = nil
		case binlogRowHead.MatchString(line):
			m := binlogRowHead.FindStringSubmatch(line)
			if cur == nil {
				t.Fatalf("binlog: row event %q outside a transaction", line)
			}
			if inDB = m[2] == "db"; inDB {
				op := map[string]string{"INSERT INTO": "insert", "UPDATE": "update", "DELETE FROM": "delete"}[m[1]]
				cur.events = append(cur.events, binlogEvent{table: m[2] + "." + m[3], op: op, rawB: map[int]string{}, rawA: map[int]string{}})
			}
		case line == "### WHERE" && inDB:
			img = cur.events[len(cur.events)-1].rawB
		case line == "### SET" && inDB:
			img = cur.events[len(cur.events)-1].rawA
		case strings.HasPrefix(line, "###   @") && inDB:
			n, v, ok := strings.Cut(line[len("###   @"):], "=")
			k, err := strconv.Atoi(n)
			if !ok || err != nil || img == nil {
				t.Fatalf("binlog: value line %q", line)
			}
			img[k] = v
		}
	}
	return trxs
}

// binlogValue is the value the server's SELECT prints for the value mariadb-binlog printed, as
// the two formats differ by definition (log_event_client.cc prints the row event's bytes):
//   - NULL is NULL;
//   - integers: binlog prints the signed value and, when negative, the unsigned one in
//     parentheses: an UNSIGNED column takes the one in parentheses;
//   - DECIMAL, DATETIME, TIME, YEAR: the same text; DATE: binlog writes 'YYYY:MM:DD';
//   - TIMESTAMP: binlog gives seconds since the epoch (and the fraction): turned into UTC,
//     the time zone the test's server prints in;
//   - FLOAT and DOUBLE: binlog prints %g (FLOAT widened to double, 6 significant digits,
//     padded) and %.20g (exact): innoscope's FLOAT is read as a float32 and rounded to 6
//     significant digits as %g does, its DOUBLE read as a float64, and compared as numbers;
//   - ENUM: binlog gives the index: the label of the column's definition; SET: a bitmap:
//     the labels of its bits in definition order, comma separated;
//   - BIT(M): binlog prints the bits: the value's (M+7)/8 bytes, big endian;
//   - strings (CHAR, VARCHAR, TEXT, BLOB, BINARY, VARBINARY, JSON): binlog quotes the bytes
//     and writes a byte below 0x20 as \xNN (a quote or a backslash as it is; the test's values
//     hold no backslash followed by "x" and two hex digits, which would read as an escape);
//     latin1 bytes are turned into UTF-8 (the test's latin1 values use ASCII and 0xA0-0xFF,
//     where the server's latin1 is ISO 8859-1); BINARY(N), which the row event stores without
//     its trailing 0x00 pad, is padded back to N bytes.
func binlogValue(c binlogCol, raw string) (string, bool, error) {
	raw = strings.TrimRight(raw, " ")
	if raw == "NULL" {
		return "", true, nil
	}
	quoted := func() (string, error) {
		if len(raw) < 2 || raw[0] != '\'' || raw[len(raw)-1] != '\'' {
			return "", fmt.Errorf("not a quoted string: %q", raw)
		}
		s := raw[1 : len(raw)-1]
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if s[i] == '\\' && i+3 < len(s) && s[i+1] == 'x' {
				if h, err := hex.DecodeString(s[i+2 : i+4]); err == nil && h[0] < 0x20 {
					b.WriteByte(h[0])
					i += 3
					continue
				}
			}
			b.WriteByte(s[i])
		}
		return b.String(), nil
	}
	switch c.dataType {
	case "tinyint", "smallint", "mediumint", "int", "bigint":
		v, u, ok := strings.Cut(raw, " (")
		if ok && strings.Contains(c.colType, "unsigned") {
			return strings.TrimSuffix(u, ")"), false, nil
		}
		return v, false, nil
	case "decimal", "year", "float", "double":
		return raw, false, nil
	case "date":
		s, err := quoted()
		return strings.ReplaceAll(s, ":", "-"), false, err
	case "time", "datetime":
		s, err := quoted()
		return s, false, err
	case "timestamp":
		sec, frac, _ := strings.Cut(raw, ".")
		n, err := strconv.ParseInt(sec, 10, 64)
		if err != nil {
			return "", false, err
		}
		s := time.Unix(n, 0).UTC().Format("2006-01-02 15:04:05")
		if frac != "" {
			s += "." + frac
		}
		return s, false, nil
	case "enum":
		n, err := strconv.Atoi(raw)
		if err != nil {
			return "", false, err
		}
		labels := typeLabels(c.colType)
		if n == 0 {
			return "", false, nil
		} else if n > len(labels) {
			return "", false, fmt.Errorf("enum index %d of %s", n, c.colType)
		}
		return labels[n-1], false, nil
	case "set", "bit":
		if !strings.HasPrefix(raw, "b'") || !strings.HasSuffix(raw, "'") {
			return "", false, fmt.Errorf("not a bit string: %q", raw)
		}
		bits, ok := new(big.Int).SetString(raw[2:len(raw)-1], 2)
		if !ok {
			bits = new(big.Int)
		}
		if c.dataType == "set" {
			var on []string
			for i, l := range typeLabels(c.colType) {
				if bits.Bit(i) == 1 {
					on = append(on, l)
				}
			}
			return strings.Join(on, ","), false, nil
		}
		m, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(c.colType, "bit("), ")"))
		return string(bits.FillBytes(make([]byte, (m+7)/8))), false, nil
	}
	s, err := quoted()
	if err != nil {
		return "", false, err
	}
	if c.charset == "latin1" {
		r := make([]rune, len(s))
		for i := 0; i < len(s); i++ {
			r[i] = rune(s[i])
		}
		s = string(r)
	}
	if c.dataType == "binary" {
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(c.colType, "binary("), ")"))
		for len(s) < n {
			s += "\x00"
		}
	}
	return s, false, nil
}

// typeLabels are the labels of an enum('a','b') or set('a','b') column type (no quote or comma
// in a label).
func typeLabels(colType string) []string {
	in := colType[strings.Index(colType, "(")+1 : strings.LastIndex(colType, ")")]
	var out []string
	for _, l := range strings.Split(in, ",") {
		out = append(out, strings.Trim(l, "'"))
	}
	return out
}

// floatKind is 32 for FLOAT, 64 for DOUBLE, 0 for the types compared as text.
func floatKind(c binlogCol) int {
	switch c.dataType {
	case "float":
		return 32
	case "double":
		return 64
	}
	return 0
}

// sameValue compares the value innoscope printed with the one binlogValue gave.
func sameValue(c binlogCol, inno, bin string) bool {
	if k := floatKind(c); k != 0 {
		a, err1 := strconv.ParseFloat(inno, k)
		b, err2 := strconv.ParseFloat(bin, 64)
		if k == 32 { // binlog prints a FLOAT with %g: 6 significant digits
			a, err1 = strconv.ParseFloat(strconv.FormatFloat(a, 'g', 6, 64), 64)
		}
		return err1 == nil && err2 == nil && a == b
	}
	return inno == bin
}

// innoValue is a value of log changes --json: text, or bytes in hex.
type innoValue struct {
	Column string `json:"column"`
	Value  string `json:"value"`
	Hex    string `json:"hex"`
	Null   bool   `json:"null"`
}

func (v innoValue) text() string {
	if v.Hex != "" {
		b, _ := hex.DecodeString(v.Hex)
		return string(b)
	}
	return v.Value
}

type innoChange struct {
	LSN     uint64      `json:"lsn"`
	Table   string      `json:"table"`
	Op      string      `json:"op"`
	Key     []innoValue `json:"key"`
	Old     []innoValue `json:"old"`
	New     []innoValue `json:"new"`
	Row     []innoValue `json:"row"`
	Inexact string      `json:"inexact"`
	Undone  bool        `json:"rolled_back"`
}

type innoTrx struct {
	ID      uint64       `json:"trx_id"`
	State   string       `json:"state"`
	EndLSN  uint64       `json:"end_lsn"`
	Xid     uint64       `json:"binlog_xid"`
	Binlog  string       `json:"binlog"`
	Changes []innoChange `json:"changes"`
}

// TestLogChangesBinlog: a real MariaDB 10.11 server with a ROW binary log (FULL row images)
// takes a checkpoint (its LSN read with nothing else writing, and the binary log's position),
// then commits transactions of INSERT/UPDATE/DELETE on tables of every type of the rows tests
// (TEXT and BLOBs inline and off page, an instantly altered table, a table without a primary
// key, a key changed, a row deleted and inserted again, a rollback to a savepoint), rolls one back, holds one open, and is
// killed. mariadb-binlog --verbose of the binary log from that position gives the committed
// transactions, in commit order, with their row events; `log changes --from-lsn CP --json` must
// list the same transactions, committed, in the same order, and per row the same table,
// operation and values (an update's old row: the row innoscope gives with its old values of the
// changed columns; a key change, which the server makes a delete and an insert, is the binary
// log's UPDATE as a DELETE and an INSERT). Values are compared as binlogValue says. A change
// innoscope cannot read exactly it must say so (inexact): the test counts them, and what
// innoscope does print of them (key, old values, row) must still be the binary log's. The
// rolled-back and the open transaction are in no binary log: innoscope lists them rolled back and
// open. A transaction whose commit the kill left out of the redo log is prepared there: the
// server's recovery commits it from the binary log, and innoscope must say so (its binlog_xid the
// binary log's Xid).
func TestLogChangesBinlog(t *testing.T) {
	s := newRowsServer(t, t.TempDir(), "--log-bin=binlog", "--binlog-format=ROW", "--binlog-row-image=FULL", "--server-id=1")
	s.sql(t, binlogSchema)
	cols := map[string][]binlogCol{}
	for _, l := range strings.Split(strings.TrimSpace(string(s.sql(t, `SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE, COLUMN_TYPE,
 IFNULL(CHARACTER_SET_NAME, ''), COLUMN_KEY = 'PRI' FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'db' ORDER BY TABLE_NAME, ORDINAL_POSITION`))), "\n") {
		f := strings.Split(l, "\t")
		cols["db."+f[0]] = append(cols["db."+f[0]], binlogCol{name: f[1], dataType: f[2], colType: f[3], charset: f[4], key: f[5] == "1"})
	}
	master := strings.Fields(string(s.sql(t, "SHOW MASTER STATUS")))
	status := string(s.sql(t, "SET GLOBAL innodb_log_checkpoint_now = 1; SHOW ENGINE INNODB STATUS\\G"))
	m := regexp.MustCompile(`Last checkpoint at\s+(\d+)`).FindStringSubmatch(status)
	if m == nil || len(master) < 2 {
		t.Fatalf("no checkpoint in SHOW ENGINE INNODB STATUS or no SHOW MASTER STATUS (%q):\n%s", master, status)
	}
	cp := m[1]
	trxID := "DO SLEEP(0.2); SELECT trx_id FROM information_schema.innodb_trx WHERE trx_mysql_thread_id = CONNECTION_ID();\n"
	id := func(out []byte) uint64 {
		t.Helper()
		n, err := strconv.ParseUint(strings.TrimSpace(string(out)), 10, 64)
		if err != nil {
			t.Fatalf("trx id: %q", out)
		}
		return n
	}
	for _, w := range binlogWorkload[:3] {
		s.sql(t, w)
	}
	rolled := id(s.sql(t, "BEGIN; UPDATE db.t_int SET a = 50 WHERE id = 1; INSERT INTO db.t_str (id, a, j) VALUES (9, 'rb', REPEAT('r', 20000)); DELETE FROM db.t_misc WHERE id = 3;\n"+trxID+"ROLLBACK;"))
	openID := id([]byte(s.session(t, "db", "BEGIN; UPDATE t_num SET a = 1 WHERE id = 2; DELETE FROM t_misc WHERE id = 3; INSERT INTO t_inst (id, b) VALUES (99, 'open');\n"+trxID+"SELECT SLEEP(600);")))
	for _, w := range binlogWorkload[3:] {
		s.sql(t, w)
	}
	s.kill()

	// the binary log from the checkpoint's position
	idx, err := os.ReadFile(filepath.Join(s.dir, "binlog.index"))
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, l := range strings.Fields(string(idx)) {
		if f := filepath.Join(s.dir, l); len(files) > 0 || filepath.Base(f) == master[0] {
			files = append(files, f)
		}
	}
	bl, err := s.srv.Command("mariadb-binlog", append([]string{"--no-defaults", "--verbose", "--base64-output=DECODE-ROWS",
		"--start-position=" + master[1]}, files...)...).Output()
	if err != nil {
		t.Fatalf("mariadb-binlog %s: %v", files, err)
	}
	bins := parseBinlog(t, string(bl))
	for i := range bins {
		for j := range bins[i].events {
			named(t, &bins[i].events[j], cols)
		}
		bins[i].events = splitKeyChanges(bins[i].events, cols)
	}

	out, errs, code := run("log", "changes", "--from-lsn", cp, "--json", s.dir)
	if code != ExitClean {
		t.Fatalf("log changes: exit %d: %s", code, errs)
	}
	var doc struct {
		Transactions []innoTrx `json:"transactions"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var committed []innoTrx
	states := map[uint64]string{}
	undone := 0 // changes of committed transactions rolled back to a savepoint
	for _, tr := range doc.Transactions {
		states[tr.ID] = tr.State
		if tr.State != "committed" {
			continue
		}
		keep := tr.Changes[:0]
		for _, ch := range tr.Changes {
			if ch.Undone {
				undone++
			}
			if strings.HasPrefix(ch.Table, "db.") && !ch.Undone {
				keep = append(keep, ch)
			}
		}
		if tr.Changes = keep; len(keep) > 0 {
			committed = append(committed, tr)
		}
	}
	if states[rolled] != "rolled back" || states[openID] != "open" {
		t.Errorf("the rolled-back transaction %d is %q, the open one %d %q: want rolled back and open", rolled, states[rolled], openID, states[openID])
	}
	if undone == 0 {
		t.Errorf("no change of a committed transaction is rolled back to a savepoint:\n%s", out)
	}
	if len(committed) != len(bins) {
		t.Fatalf("log changes lists %d committed transactions with changes of db, the binary log %d:\n%s", len(committed), len(bins), out)
	}
	inexact, byBinlog, rowsCompared := 0, 0, 0
	for i, tr := range committed {
		b := bins[i]
		if tr.EndLSN == 0 {
			byBinlog++
			if tr.Xid != b.xid {
				t.Errorf("trx %d: committed by the binary log's Xid %d (%s), the binary log's transaction %d has Xid %d", tr.ID, tr.Xid, tr.Binlog, i, b.xid)
			}
		}
		if len(tr.Changes) != len(b.events) {
			t.Errorf("trx %d (binlog Xid %d): %d changes, the binary log %d row events:\n%s\n%s", tr.ID, b.xid, len(tr.Changes), len(b.events), descChanges(tr.Changes), descEvents(b.events))
			continue
		}
		for j, ch := range tr.Changes {
			rowsCompared++
			if ch.Inexact != "" {
				inexact++
				t.Logf("trx %d change %d (%s %s) declared inexact: %s", tr.ID, j, ch.Table, ch.Op, ch.Inexact)
				if ch.Table == "db.t_inst" {
					// after its instant DROP an undo record's field numbers count the dropped
					// column: they are read with the layout of the metadata BLOB (stop 40;
					// before, "field 5: the clustered index has 5 fields")
					t.Errorf("a change of db.t_inst (instant ADD and DROP) is declared inexact: %s", ch.Inexact)
				}
			}
			for _, d := range compareChange(ch, b.events[j], cols[ch.Table]) {
				t.Errorf("trx %d change %d at LSN %d (%s %s; binlog Xid %d): %s", tr.ID, j, ch.LSN, ch.Table, ch.Op, b.xid, d)
			}
		}
	}
	t.Logf("%d committed transactions, %d row changes compared with the binary log (and %d rolled back to a savepoint, in no binary log); %d committed by the binary log's recovery (prepared in the redo log); %d declared inexact",
		len(committed), rowsCompared, undone, byBinlog, inexact)
	checkCutBeforeImage(t, s.dir, cp, committed)
}

// named turns an event's images, as printed, into values by column name (binlogValue).
func named(t *testing.T, ev *binlogEvent, cols map[string][]binlogCol) {
	t.Helper()
	cs := cols[ev.table]
	conv := func(m map[int]string) (map[string]string, map[string]bool) {
		if len(m) == 0 {
			return nil, nil
		}
		out, nulls := map[string]string{}, map[string]bool{}
		for n, raw := range m {
			if n < 1 || n > len(cs) {
				t.Fatalf("binlog: %s has no column @%d", ev.table, n)
			}
			v, null, err := binlogValue(cs[n-1], raw)
			if err != nil {
				t.Fatalf("binlog: %s.%s: %v", ev.table, cs[n-1].name, err)
			}
			out[cs[n-1].name], nulls[cs[n-1].name] = v, null
		}
		return out, nulls
	}
	ev.before, ev.nullB = conv(ev.rawB)
	ev.after, ev.nullA = conv(ev.rawA)
}

// splitKeyChanges makes an UPDATE that changes the primary key a DELETE of the old row and an
// INSERT of the new one, as InnoDB changes a key (it delete-marks the record and inserts one).
func splitKeyChanges(evs []binlogEvent, cols map[string][]binlogCol) []binlogEvent {
	var out []binlogEvent
	for _, ev := range evs {
		changed := false
		for _, c := range cols[ev.table] {
			if ev.op == "update" && c.key && ev.before[c.name] != ev.after[c.name] {
				changed = true
			}
		}
		if !changed {
			out = append(out, ev)
			continue
		}
		out = append(out, binlogEvent{table: ev.table, op: "delete", before: ev.before, nullB: ev.nullB},
			binlogEvent{table: ev.table, op: "insert", after: ev.after, nullA: ev.nullA})
	}
	return out
}

// compareChange lists how a change of log changes differs from the binary log's row event: the
// table, the operation, the key, the old values of an update, and the rows before and after
// (from innoscope's row and old values; for an inexact change only what it printed).
func compareChange(ch innoChange, ev binlogEvent, cs []binlogCol) []string {
	var diffs []string
	if ch.Table != ev.table || ch.Op != ev.op {
		return []string{fmt.Sprintf("%s %s, the binary log %s %s", ch.Table, ch.Op, ev.table, ev.op)}
	}
	byName := map[string]binlogCol{}
	for _, c := range cs {
		byName[c.name] = c
	}
	img, nulls := ev.after, ev.nullA
	if ch.Op != "insert" {
		img, nulls = ev.before, ev.nullB
	}
	check := func(what string, vs []innoValue, img map[string]string, nulls map[string]bool) {
		for _, v := range vs {
			if v.Column == "DB_ROW_ID" {
				continue
			}
			c, ok := byName[v.Column]
			want, in := img[v.Column]
			switch {
			case !ok || !in:
				diffs = append(diffs, fmt.Sprintf("%s: column %s is not in the binary log's row", what, v.Column))
			case v.Null != nulls[v.Column]:
				diffs = append(diffs, fmt.Sprintf("%s: %s is %s, the binary log %s", what, v.Column, nullOr(v.Null, v.text()), nullOr(nulls[v.Column], want)))
			case !v.Null && !sameValue(c, v.text(), want):
				diffs = append(diffs, fmt.Sprintf("%s: %s = %s, the binary log %s", what, v.Column, short(v.text()), short(want)))
			}
		}
	}
	check("key", ch.Key, img, nulls)
	if ch.Op == "update" {
		check("old value", ch.Old, ev.before, ev.nullB)
	}
	if len(ch.Row) == 0 {
		if ch.Inexact == "" {
			diffs = append(diffs, "no row and nothing said inexact")
		}
		return diffs
	}
	if len(ch.Row) != len(cs) {
		diffs = append(diffs, fmt.Sprintf("a row of %d columns, the table has %d", len(ch.Row), len(cs)))
	}
	switch ch.Op {
	case "insert":
		check("row", ch.Row, ev.after, ev.nullA)
	case "delete":
		check("row", ch.Row, ev.before, ev.nullB)
	case "update":
		check("new row", ch.Row, ev.after, ev.nullA)
		if ch.Inexact != "" {
			break // its old values are not all decoded: the old row is not known
		}
		old := map[string]innoValue{}
		for _, v := range ch.Old {
			old[v.Column] = v
		}
		var before []innoValue
		for _, v := range ch.Row {
			if o, ok := old[v.Column]; ok {
				v = o
			}
			before = append(before, v)
		}
		check("old row", before, ev.before, ev.nullB)
	}
	return diffs
}

func nullOr(null bool, v string) string {
	if null {
		return "NULL"
	}
	return short(v)
}

// short quotes a value, cut to 60 bytes.
func short(v string) string {
	if len(v) > 60 {
		return fmt.Sprintf("%q... (%d bytes)", v[:60], len(v))
	}
	return fmt.Sprintf("%q", v)
}

func descChanges(chs []innoChange) string {
	var l []string
	for _, ch := range chs {
		var key []string
		for _, v := range ch.Key {
			key = append(key, v.Column+"="+short(v.text()))
		}
		l = append(l, "  innoscope: "+ch.Table+" "+ch.Op+" "+strings.Join(key, ","))
	}
	return strings.Join(l, "\n")
}

func descEvents(evs []binlogEvent) string {
	var l []string
	for _, ev := range evs {
		l = append(l, fmt.Sprintf("  binlog: %s %s before %d after %d columns", ev.table, ev.op, len(ev.before), len(ev.after)))
	}
	return strings.Join(l, "\n")
}
