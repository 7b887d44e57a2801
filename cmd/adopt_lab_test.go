package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"innoscope/adopt"
	"innoscope/internal/lab"
)

// adoptTables are the tables of adoptWorkload.
var adoptTables = []string{"a_red", "a_compact", "a_dyn", "a_zip", "a_def", "a_inst", "a_part", "a_dd", "a_uniq", "a_pcomp"}

// adoptWorkload: every row format with TEXT/BLOB values on and off page, a table without a
// row format given, instant ADD, DROP and reorder with rows written between, a partitioned
// table, a DATA DIRECTORY table (@EXTDIR@ is replaced by its directory), a PAGE_COMPRESSED
// table with a secondary key, a table clustered
// by a UNIQUE NOT NULL key; secondary keys (prefix, DESC) on several of them; an
// AUTO_INCREMENT table whose last rows were deleted. r_ft (FULLTEXT) and r_sub (subpartitions)
// are for the refusals.
const adoptWorkload = `
CREATE DATABASE db CHARACTER SET utf8mb4;
USE db;
CREATE TABLE a_red (id INT PRIMARY KEY, a VARCHAR(100), b TEXT, d LONGBLOB) ROW_FORMAT=REDUNDANT;
INSERT INTO a_red SELECT seq, CONCAT('a', seq), IF(seq % 3 = 0, NULL, REPEAT('b', seq * 50)), IF(seq % 5 = 0, REPEAT('x', 20000), NULL) FROM seq_1_to_60;
CREATE TABLE a_compact (id INT PRIMARY KEY, a VARCHAR(100), b TEXT, e LONGBLOB) ROW_FORMAT=COMPACT;
INSERT INTO a_compact SELECT seq, CONCAT('a', seq), IF(seq % 3 = 0, NULL, REPEAT('b', seq * 100)), IF(seq % 5 = 0, REPEAT('y', 30000), NULL) FROM seq_1_to_60;
CREATE TABLE a_dyn (id INT PRIMARY KEY, a LONGTEXT, b LONGBLOB, c VARCHAR(5000)) ROW_FORMAT=DYNAMIC;
INSERT INTO a_dyn SELECT seq, REPEAT(CONCAT('txt', seq), seq * 300), REPEAT(CHAR(seq % 256), seq * 1000), REPEAT('v', seq * 200) FROM seq_1_to_20;
CREATE TABLE a_zip (id INT PRIMARY KEY, a TEXT, b BLOB, KEY (a(10))) ROW_FORMAT=COMPRESSED;
INSERT INTO a_zip SELECT seq, REPEAT(CONCAT('z', seq), seq * 40), REPEAT('q', seq * 500) FROM seq_1_to_80;
CREATE TABLE a_def (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(50), t MEDIUMTEXT, KEY (v));
INSERT INTO a_def (v, t) SELECT CONCAT('v', seq), REPEAT('t', seq * 100) FROM seq_1_to_3000;
DELETE FROM a_def WHERE id > 2990;
CREATE TABLE a_inst (id INT PRIMARY KEY, a INT, b VARCHAR(20), c INT, KEY kc (c));
INSERT INTO a_inst SELECT seq, seq, CONCAT('b', seq), seq * 2 FROM seq_1_to_100;
ALTER TABLE a_inst ADD COLUMN d VARCHAR(30) DEFAULT 'dflt', ALGORITHM=INSTANT;
INSERT INTO a_inst VALUES (101, 1, 'new', 3, 'dd');
ALTER TABLE a_inst DROP COLUMN a, ALGORITHM=INSTANT;
UPDATE a_inst SET b = 'upd' WHERE id % 10 = 0;
ALTER TABLE a_inst MODIFY c INT AFTER id, ALGORITHM=INSTANT;
INSERT INTO a_inst VALUES (102, 7, 'after', 'reorder');
ALTER TABLE a_inst ADD COLUMN e BLOB FIRST, ALGORITHM=INSTANT;
INSERT INTO a_inst VALUES (REPEAT('e', 9000), 103, 8, 'last', 'x');
CREATE TABLE a_part (id INT PRIMARY KEY, v VARCHAR(10), t TEXT) PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN (100), PARTITION p1 VALUES LESS THAN MAXVALUE);
INSERT INTO a_part SELECT seq, CONCAT('v', seq), REPEAT('p', seq * 30) FROM seq_1_to_300;
CREATE TABLE a_dd (id INT PRIMARY KEY, v VARCHAR(10), b LONGBLOB) DATA DIRECTORY='@EXTDIR@';
INSERT INTO a_dd SELECT seq, CONCAT('d', seq), REPEAT('d', seq * 700) FROM seq_1_to_50;
CREATE TABLE a_uniq (u INT NOT NULL, v VARCHAR(10), w INT, UNIQUE KEY (u), KEY (v, w DESC));
INSERT INTO a_uniq SELECT 1000 - seq, CONCAT('u', seq % 50), seq FROM seq_1_to_900;
CREATE TABLE a_pcomp (id INT PRIMARY KEY, v VARCHAR(100), b BLOB, KEY (v)) PAGE_COMPRESSED=1;
INSERT INTO a_pcomp SELECT seq, REPEAT('p', seq % 100), IF(seq % 97 = 0, REPEAT('q', 20000), NULL) FROM seq_1_to_3000;
CREATE TABLE r_ft (id INT PRIMARY KEY, t TEXT, FULLTEXT KEY (t));
INSERT INTO r_ft SELECT seq, CONCAT('word', seq) FROM seq_1_to_20;
CREATE TABLE r_sub (id INT, d DATE, PRIMARY KEY (id, d)) PARTITION BY RANGE (YEAR(d)) SUBPARTITION BY HASH (id) SUBPARTITIONS 2 (PARTITION p0 VALUES LESS THAN (2000), PARTITION p1 VALUES LESS THAN MAXVALUE);
INSERT INTO r_sub SELECT seq, '1999-01-01' + INTERVAL seq DAY FROM seq_1_to_800;
`

// TestAdoptLab checks `adopt` against the real MariaDB 10.11 server: the tables of
// adoptWorkload, made on a throw-away server (CHECKSUM TABLE recorded, then shut down), are
// given to adopt as their files copied out alone (.ibd, .frm, .par; a partitioned table by its
// partition files) and, for two, as the data directory and their names (the DATA DIRECTORY
// table through its .isl); the kit's adopt.sh run against a second fresh server attaches every table with the
// same CHECKSUM TABLE (and AUTO_INCREMENT as the source has it after a restart), and after
// each of two restarts of that server every table still opens, CHECK TABLE says OK and both
// are the same; after writes on them and another restart, CHECK TABLE says OK. The source directories stay
// byte-identical; refusals (another page size, another major version, a MySQL 8 file, a
// partition file missing) give the reason and `rows --format sql` as the next step.
func TestAdoptLab(t *testing.T) {
	lab.MariaDB1011.Require(t)
	adoptCheck(t, lab.MariaDB1011, true)
}

// TestAdoptPageSizes is TestAdoptLab's attachment on servers with 4 KiB pages
// (innodb_strict_mode off: a_red's REDUNDANT row is wider than 4 KiB pages allow, and its rows
// fit), 64 KiB pages (a_zip made DYNAMIC: COMPRESSED needs pages of 16 KiB at most), and 16
// KiB pages in the crc32 format (the row format in the flags, before full_crc32), and with
// innodb_default_row_format=compact (full_crc32 flags do not tell COMPACT tables from DYNAMIC
// ones: the kit states DYNAMIC for the tables created without ROW_FORMAT).
func TestAdoptPageSizes(t *testing.T) {
	lab.MariaDB1011.Require(t)
	for _, opt := range []string{"--innodb-page-size=4k --innodb-strict-mode=0", "--innodb-page-size=64k", "--innodb-checksum-algorithm=crc32", "--innodb-default-row-format=compact"} {
		t.Run(strings.Fields(strings.TrimPrefix(opt, "--innodb-"))[0], func(t *testing.T) { adoptCheck(t, lab.MariaDB1011, false, strings.Fields(opt)...) })
	}
}

// adoptCheck runs adoptWorkload on a fresh server of srv started with opts, gives adopt the tables'
// files copied out alone (the .ibd, .frm, .par) and, for a_dd and a_uniq, the data directory
// and their names, runs the kit against a second fresh server of srv started with opts and compares;
// all: the refusals too.
func adoptCheck(t *testing.T, srv *lab.Server, all bool, opts ...string) {
	base := t.TempDir()
	ext := filepath.Join(base, "ext")
	if err := os.MkdirAll(ext, 0o755); err != nil {
		t.Fatal(err)
	}
	s := newRowsServerOn(t, srv, base, opts...)
	work := strings.ReplaceAll(adoptWorkload, "@EXTDIR@", ext)
	tables := adoptTables
	if strings.Contains(strings.Join(opts, " "), "64k") {
		work = strings.ReplaceAll(work, "ROW_FORMAT=COMPRESSED", "ROW_FORMAT=DYNAMIC")
	}
	s.sql(t, work)
	list := "db." + strings.Join(tables, ", db.")
	want := string(s.sql(t, "CHECKSUM TABLE "+list))
	// The AUTO_INCREMENT counters as the source server has them after a restart (what it
	// keeps in the files: the largest value used; not the values a bulk insert reserved).
	s.shutdown(t)
	s = startRowsServerOn(t, srv, s.dir, opts...)
	const autoinc = "SELECT TABLE_NAME, AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'db' AND TABLE_NAME LIKE 'a\\_%' ORDER BY 1"
	wantInc := string(s.sql(t, autoinc))
	t.Logf("the source's AUTO_INCREMENT after a restart:\n%s", wantInc)
	s.shutdown(t)
	data := filepath.Join(base, "data")
	before := lab.HashTree(t, base)

	// The files of all tables but a_dd and a_uniq copied out alone.
	copies := filepath.Join(t.TempDir(), "db")
	if err := os.MkdirAll(copies, 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"adopt", "--into", filepath.Join(t.TempDir(), "kit")}
	for _, tb := range tables {
		if tb == "a_dd" || tb == "a_uniq" {
			continue
		}
		m, _ := filepath.Glob(filepath.Join(data, "db", tb+"[.#]*"))
		for _, f := range m {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			dst := filepath.Join(copies, filepath.Base(f))
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(f, ".par") && !(tb == "a_part" && strings.HasSuffix(f, ".frm")) {
				args = append(args, dst) // a_part: its partition files name it
			}
		}
	}
	args = append(args, data, "db.a_dd", "db.a_uniq")
	kit := args[2]
	out, errs, code := run(args...)
	// MariaDB 10.5 imports an instant-altered table as a corrupt B-tree: a_inst is refused
	// there (exit 1), with the rows as the next step, and the others attached.
	refuseInstant := srv == lab.MariaDB105
	if refuseInstant {
		tables = slices.DeleteFunc(slices.Clone(tables), func(tb string) bool { return tb == "a_inst" })
		list = "db." + strings.Join(tables, ", db.")
		if code != ExitFindings || !strings.Contains(out, "refused db.a_inst") || !strings.Contains(out, "corrupt B-tree") || !strings.Contains(out, "--format sql") {
			t.Fatalf("adopt on 10.5: exit %d (want %d, a_inst refused with the rows as the next step), %s\n%s", code, ExitFindings, errs, out)
		}
		want = dropLine(want, "db.a_inst\t")
		wantInc = dropLine(wantInc, "a_inst\t")
	} else if code != ExitClean {
		t.Fatalf("adopt: exit %d, %s\n%s", code, errs, out)
	}
	t.Logf("adopt:\n%s", out)
	if !strings.Contains(out, "a_inst") || !strings.Contains(out, "instant-altered") || !strings.Contains(out, "DATA DIRECTORY "+ext) || !strings.Contains(out, fmt.Sprintf("%d table(s) to attach", len(tables))) {
		t.Errorf("adopt does not name every table, the instant-altered one and the DATA DIRECTORY one:\n%s", out)
	}
	if after := lab.HashTree(t, base); !reflect.DeepEqual(before, after) {
		t.Error("adopt changed the source directories")
	}

	fresh := newRowsServerOn(t, srv, t.TempDir(), opts...)
	sh := exec.Command("sh", filepath.Join(kit, adopt.Script), "--no-defaults", "-S", fresh.sock, "-uroot")
	sh.Env = srv.Env()
	if b, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("adopt.sh: %v\n%s", err, b)
	} else {
		t.Logf("adopt.sh:\n%s", b)
	}
	if refuseInstant {
		ownExportCorrupt(t, fresh)
	}
	for round := 0; round < 3; round++ {
		if round > 0 {
			fresh.shutdown(t)
			fresh = startRowsServerOn(t, srv, fresh.dir, opts...)
		}
		if got := string(fresh.sql(t, "CHECKSUM TABLE "+list)); got != want {
			t.Errorf("restart %d: CHECKSUM TABLE differs from the source's:\n%s", round, firstDiff(want, got))
		}
		if got := string(fresh.sql(t, autoinc)); got != wantInc {
			t.Errorf("restart %d: AUTO_INCREMENT differs from the source's:\n%s", round, firstDiff(wantInc, got))
		}
		checks := strings.Split(strings.TrimSuffix(string(fresh.sql(t, "CHECK TABLE "+list)), "\n"), "\n")
		ok := 0
		for _, l := range checks {
			if strings.HasSuffix(l, "\tstatus\tOK") {
				ok++
			} else {
				t.Errorf("restart %d: CHECK TABLE: %s", round, l)
			}
		}
		t.Logf("restart %d: %d tables, CHECKSUM TABLE and AUTO_INCREMENT compared with the source's, CHECK TABLE OK on %d", round, len(tables), ok)
	}
	// Writes on the attached tables (long values on and off page, deletes, inserts), then a
	// restart: every table still opens and CHECK TABLE says OK.
	fresh.sql(t, `UPDATE db.a_def SET t = CONCAT(t, REPEAT('u', 20000)) WHERE id % 50 = 0;
DELETE FROM db.a_def WHERE id % 97 = 0;
INSERT INTO db.a_def (v, t) VALUES ('new', REPEAT('n', 30000));
UPDATE db.a_compact SET e = REPEAT('z', 25000) WHERE id % 7 = 0;
INSERT INTO db.a_part VALUES (1000, 'w', REPEAT('w', 9000));
UPDATE db.a_uniq SET v = 'w' WHERE u % 11 = 0;`)
	if !refuseInstant {
		fresh.sql(t, "UPDATE db.a_inst SET e = REPEAT('f', 12000), b = 'w' WHERE id % 9 = 0")
	}
	fresh.shutdown(t)
	fresh = startRowsServerOn(t, srv, fresh.dir, opts...)
	for _, l := range strings.Split(strings.TrimSuffix(string(fresh.sql(t, "CHECK TABLE "+list)), "\n"), "\n") {
		if !strings.HasSuffix(l, "\tstatus\tOK") {
			t.Errorf("after writes and a restart: CHECK TABLE: %s", l)
		}
	}
	fresh.shutdown(t)
	if all {
		adoptRefusals(t, data)
	}
	if after := lab.HashTree(t, base); !reflect.DeepEqual(before, after) {
		t.Error("adopt changed the source directories")
	}
}

// ownExportCorrupt checks on the 10.5 server s what justifies refusing an instant-altered
// table there: the server's own FLUSH TABLES FOR EXPORT of one (its .ibd and .cfg), imported into
// a table given the same instant ALTERs, fails CHECK TABLE. Should a 10.5 build import it, the
// refusal is needless and this fails.
func ownExportCorrupt(t *testing.T, s *rowsServer) {
	t.Helper()
	src, dst := filepath.Join(s.dir, "x_src"), filepath.Join(s.dir, "x_dst")
	out := string(s.sql(t, fmt.Sprintf(`CREATE DATABASE x_src; CREATE DATABASE x_dst;
CREATE TABLE x_src.t (id INT PRIMARY KEY, x VARCHAR(20), y INT, z INT);
INSERT INTO x_src.t VALUES (1, 'a', 2, 3), (2, 'b', 4, 6), (3, 'c', 6, 9);
ALTER TABLE x_src.t ADD COLUMN w INT DEFAULT 7 FIRST, ALGORITHM=INSTANT;
ALTER TABLE x_src.t DROP COLUMN y, ALGORITHM=INSTANT;
INSERT INTO x_src.t (id, x, z, w) VALUES (4, 'd', 12, 8);
CREATE TABLE x_dst.t (id INT PRIMARY KEY, x VARCHAR(20), y INT, z INT);
ALTER TABLE x_dst.t ADD COLUMN w INT DEFAULT 7 FIRST, ALGORITHM=INSTANT;
ALTER TABLE x_dst.t DROP COLUMN y, ALGORITHM=INSTANT;
ALTER TABLE x_dst.t DISCARD TABLESPACE;
FLUSH TABLES x_src.t FOR EXPORT;
system cp %[1]s/t.ibd %[1]s/t.cfg %[2]s/
UNLOCK TABLES;
ALTER TABLE x_dst.t IMPORT TABLESPACE;
CHECK TABLE x_dst.t;
DROP DATABASE x_src; DROP DATABASE x_dst;`, src, dst)))
	if strings.Contains(out, "\tstatus\tOK") || !strings.Contains(out, "Corrupt") {
		t.Errorf("10.5 imported its own export of an instant-altered table (with its .cfg) and CHECK TABLE did not call it corrupt: adopt's refusal is needless\n%s", out)
	} else {
		t.Logf("10.5, its own export of an instant-altered table with its .cfg: %s", strings.ReplaceAll(out, "\n", "; "))
	}
}

// dropLine is s without its lines that begin with prefix.
func dropLine(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	return strings.Join(slices.DeleteFunc(lines, func(l string) bool { return strings.HasPrefix(l, prefix) }), "")
}

// adoptRefusals: a table adopt cannot attach safely is refused (exit 1) with its reason and
// `rows ... --format sql` as the next step, and with no table to attach no kit is written.
func adoptRefusals(t *testing.T, data string) {
	copies := filepath.Join(t.TempDir(), "db")
	os.MkdirAll(copies, 0o755)
	for _, f := range []string{"a_dyn.frm", "a_dyn.ibd", "a_part.frm", "a_part.par", "a_part#P#p0.ibd"} {
		b, err := os.ReadFile(filepath.Join(data, "db", f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(copies, f), b, 0o644)
	}
	cases := []struct {
		name   string
		args   []string
		reason string
	}{
		{"page size", []string{"--page-size", "65536", filepath.Join(copies, "a_dyn.ibd")}, "IMPORT TABLESPACE needs the same page size"},
		{"major version", []string{"--server-version", "10.6", filepath.Join(copies, "a_dyn.frm")}, "the same major version"},
		{"partition missing", []string{filepath.Join(copies, "a_part.frm")}, "a_part#P#p1.ibd"},
		{"FULLTEXT", []string{data, "db.r_ft"}, "a FULLTEXT index"},
		{"subpartitions", []string{data, "db.r_sub"}, "a subpartition"},
	}
	if p := lab.PeerFixtures(); p != "" {
		cases = append(cases, struct {
			name   string
			args   []string
			reason string
		}{"MySQL 8", []string{filepath.Join(p, "innodb_ruby", "sakila", "8.0", "sakila", "actor.ibd")}, "MySQL 8 file"})
	}
	for _, c := range cases {
		kit := filepath.Join(t.TempDir(), "kit")
		out, errs, code := run(append([]string{"adopt", "--json", "--into", kit}, c.args...)...)
		var k adopt.Kit
		if err := json.Unmarshal([]byte(out), &k); err != nil || code != ExitFindings || len(k.Tables) != 1 {
			t.Errorf("%s: exit %d, %v, %s\n%s", c.name, code, err, errs, out)
			continue
		}
		tb := k.Tables[0]
		if !strings.Contains(tb.Refused, c.reason) || !strings.Contains(tb.Next, "--format sql") {
			t.Errorf("%s: refused %q, next %q", c.name, tb.Refused, tb.Next)
		}
		if _, err := os.Stat(kit); err == nil {
			t.Errorf("%s: a kit was written with no table to attach", c.name)
		}
		t.Logf("%s: refused: %s; instead: %s", c.name, tb.Refused, tb.Next)
	}
	// --frm: another table's .frm is refused (naming the file); the table's own, from
	// elsewhere under another name, makes the kit's statement name the file's table.
	other := t.TempDir()
	for name, from := range map[string]string{"wrong.frm": "a_uniq.frm", "wrong2.frm": "a_red.frm", "x.frm": "a_dyn.frm"} {
		b, err := os.ReadFile(filepath.Join(data, "db", from))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(other, name), b, 0o644)
	}
	// wrong.frm defines another number of indexes; wrong2.frm (a_red's) as many as a_dyn's,
	// other columns: its records do not read as it defines them (before, adopt made a kit
	// attaching a_dyn.ibd under a_red's definition).
	for _, wrong := range []string{"wrong.frm", "wrong2.frm"} {
		var k adopt.Kit
		out, errs, code := run("adopt", "--json", "--into", filepath.Join(t.TempDir(), "kit"), "--frm", filepath.Join(other, wrong), filepath.Join(copies, "a_dyn.ibd"))
		if err := json.Unmarshal([]byte(out), &k); err != nil || code != ExitFindings || len(k.Tables) != 1 || !strings.Contains(k.Tables[0].Refused, "a_dyn.ibd") || !strings.Contains(k.Tables[0].Next, "--format sql") {
			t.Errorf("adopt --frm %s a_dyn.ibd: exit %d, %v, %s\n%s", wrong, code, err, errs, out)
		} else {
			t.Logf("--frm of another table (%s): refused: %s; instead: %s", wrong, k.Tables[0].Refused, k.Tables[0].Next)
		}
	}
	var k adopt.Kit
	kit := filepath.Join(t.TempDir(), "kit")
	out, errs, code := run("adopt", "--json", "--into", kit, "--frm", filepath.Join(other, "x.frm"), filepath.Join(copies, "a_dyn.ibd"))
	if err := json.Unmarshal([]byte(out), &k); err != nil || code != ExitClean || len(k.Tables) != 1 || !strings.HasPrefix(k.Tables[0].Create, "CREATE TABLE `a_dyn` (") {
		t.Errorf("adopt --frm x.frm a_dyn.ibd: exit %d, %v, %s\n%s", code, err, errs, out)
	} else if _, err := os.Stat(filepath.Join(kit, "files", "db", "a_dyn.ibd")); err != nil {
		t.Errorf("adopt --frm x.frm a_dyn.ibd: %v", err)
	}
	// Into the source directory: refused before anything is written.
	if _, errs, code := run("adopt", "--into", filepath.Join(copies, "kit"), filepath.Join(copies, "a_dyn.ibd")); code != ExitError || !strings.Contains(errs, "never writes there") {
		t.Errorf("adopt --into inside the source: exit %d, %s", code, errs)
	}
}
