package cmd

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// rowsFileTables are the tables of rowsFileWorkload with the ORDER BY of their clustered index.
var rowsFileTables = []struct{ name, order string }{
	{"f_red", "id"}, {"f_compact", "id"}, {"f_dyn", "id"}, {"f_types", "id"}, {"f_inst", "id"},
	{"f_nopk", ""}, {"f_uniq", "u"}, {"f_desc", "a DESC, b"}, {"f_big", "id"}, {"f_virt", "id"}, {"f_compkey", "b, a"},
	{"f_part#P#p0", "id"}, {"f_part#P#p1", "id"}, {"f_ft", "id"},
	{"f_zip", "id"}, {"f_pcomp", "id"}, {"f_redinst", "id"}, {"f_cmpinst", "id"}, {"f_dd", "id"},
	{"f_sub#P#p0#SP#p0sp0", "id"}, {"f_sub#P#p0#SP#p0sp1", "id"}, {"f_sub#P#p1#SP#p1sp0", "id"}, {"f_sub#P#p1#SP#p1sp1", "id"},
}

// rowsFileSelect is the server's SELECT of table (a partition's or subpartition's file name:
// of that partition), its rows in order.
func rowsFileSelect(name, order string) string {
	q := "SELECT * FROM db." + name
	if t, p, ok := strings.Cut(name, "#P#"); ok {
		if _, sp, ok := strings.Cut(p, "#SP#"); ok {
			p = sp
		}
		q = "SELECT * FROM db." + t + " PARTITION (" + p + ")"
	}
	if name == "f_virt" {
		q = "SELECT id, a, s, b FROM db.f_virt"
	}
	if order != "" {
		q += " ORDER BY " + order
	}
	return q
}

// rowsFileWorkload: the row formats (ROW_FORMAT=COMPRESSED and PAGE_COMPRESSED too), TEXT/BLOB
// values on and off page, every common type, instant ADD, DROP and reorder with rows written
// between (DYNAMIC, REDUNDANT, COMPACT), a table without a key, one clustered by a UNIQUE NOT
// NULL key, DESC key parts, a B-tree of several levels, a VIRTUAL column, partitions and
// subpartitions, a FULLTEXT index (InnoDB's hidden FTS_DOC_ID), a DATA DIRECTORY table.
const rowsFileWorkload = `
CREATE DATABASE db CHARACTER SET utf8mb4;
USE db;
CREATE TABLE f_red (id INT PRIMARY KEY, a VARCHAR(100), b TEXT, c CHAR(10), d LONGBLOB, e DECIMAL(9,3)) ROW_FORMAT=REDUNDANT;
INSERT INTO f_red SELECT seq, CONCAT('a', seq), IF(seq % 3 = 0, NULL, REPEAT('b', seq * 50)), IF(seq % 4 = 0, NULL, 'cé'), IF(seq % 5 = 0, REPEAT('x', 20000), NULL), seq / 7 FROM seq_1_to_60;
CREATE TABLE f_compact (id INT PRIMARY KEY, a VARCHAR(100), b TEXT, c CHAR(20) CHARACTER SET latin1, d INT, e LONGBLOB) ROW_FORMAT=COMPACT;
INSERT INTO f_compact SELECT seq, CONCAT('a', seq), IF(seq % 3 = 0, NULL, REPEAT('b', seq * 100)), 'c', seq, IF(seq % 5 = 0, REPEAT('y', 30000), NULL) FROM seq_1_to_60;
CREATE TABLE f_dyn (id INT PRIMARY KEY, a LONGTEXT, b LONGBLOB, c VARCHAR(5000)) ROW_FORMAT=DYNAMIC;
INSERT INTO f_dyn SELECT seq, REPEAT(CONCAT('txt', seq), seq * 300), REPEAT(CHAR(seq % 256), seq * 1000), REPEAT('v', seq * 200) FROM seq_1_to_20;
CREATE TABLE f_types (id INT PRIMARY KEY, a TINYINT, b SMALLINT UNSIGNED, c MEDIUMINT, d BIGINT, e DECIMAL(20,6), f FLOAT, g DOUBLE, h DATE, i TIME(3), j DATETIME(6), k TIMESTAMP NULL, l YEAR, m ENUM('x','yy'), n SET('p','q','r'), o BIT(10), p BINARY(4), q VARBINARY(10), r CHAR(5) CHARACTER SET utf8mb4, s VARCHAR(20) CHARACTER SET latin1, t JSON, u TINYTEXT);
INSERT INTO f_types VALUES (1,-128,65535,-8388608,-9223372036854775808,-12345678901234.123456,1.5,-2.25,'2024-02-29','-838:59:59.000','9999-12-31 23:59:59.999999','2038-01-19 03:14:07',2024,'yy','p,r',b'1010101010','ab','a\0b','äbc','café','{"k": [1, "x"]}','tiny'),(2,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL),(3,0,0,0,0,0,0,0,'1000-01-01','00:00:00.5','1000-01-01 00:00:00','1970-01-01 00:00:01',1901,'x','',0,'','','','','[]','');
CREATE TABLE f_inst (id INT PRIMARY KEY, a INT, b VARCHAR(20), c INT);
INSERT INTO f_inst SELECT seq, seq, CONCAT('b', seq), seq * 2 FROM seq_1_to_100;
ALTER TABLE f_inst ADD COLUMN d VARCHAR(30) DEFAULT 'dflt', ALGORITHM=INSTANT;
INSERT INTO f_inst VALUES (101, 1, 'new', 3, 'dd');
ALTER TABLE f_inst DROP COLUMN a, ALGORITHM=INSTANT;
UPDATE f_inst SET b = 'upd' WHERE id % 10 = 0;
ALTER TABLE f_inst MODIFY c INT AFTER id, ALGORITHM=INSTANT;
INSERT INTO f_inst VALUES (102, 7, 'after', 'reorder');
CREATE TABLE f_nopk (a INT, b VARCHAR(10));
INSERT INTO f_nopk SELECT seq % 7, CONCAT('n', seq) FROM seq_1_to_50;
CREATE TABLE f_uniq (u INT NOT NULL, v VARCHAR(10), UNIQUE KEY (u));
INSERT INTO f_uniq SELECT 100 - seq, CONCAT('u', seq) FROM seq_1_to_40;
CREATE TABLE f_desc (a INT, b VARCHAR(10), c INT, PRIMARY KEY (a DESC, b));
INSERT INTO f_desc SELECT seq % 10, CONCAT('k', seq), seq FROM seq_1_to_60;
CREATE TABLE f_big (id INT PRIMARY KEY, v VARCHAR(200), n INT);
INSERT INTO f_big SELECT seq, REPEAT(CHAR(65 + seq % 26), seq % 200), seq FROM seq_1_to_20000;
DELETE FROM f_big WHERE id % 7 = 0;
CREATE TABLE f_virt (id INT PRIMARY KEY, a INT, v INT AS (a * 2) VIRTUAL, s INT AS (a + 1) STORED, b VARCHAR(5));
INSERT INTO f_virt (id, a, b) SELECT seq, seq, 'b' FROM seq_1_to_20;
CREATE TABLE f_compkey (a INT, b CHAR(3), c TEXT, PRIMARY KEY (b, a));
INSERT INTO f_compkey SELECT seq, CHAR(100 - seq % 20), REPEAT('c', seq) FROM seq_1_to_50;
CREATE TABLE f_part (id INT PRIMARY KEY, v VARCHAR(10)) PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN (100), PARTITION p1 VALUES LESS THAN MAXVALUE);
INSERT INTO f_part SELECT seq, CONCAT('v', seq) FROM seq_1_to_300;
CREATE TABLE f_ft (id INT PRIMARY KEY, t TEXT, FULLTEXT KEY (t));
INSERT INTO f_ft SELECT seq, CONCAT('word', seq, ' other') FROM seq_1_to_100;
CREATE TABLE f_zip (id INT PRIMARY KEY, v VARCHAR(50), t MEDIUMTEXT) ROW_FORMAT=COMPRESSED;
INSERT INTO f_zip SELECT seq, CONCAT('zip', seq), IF(seq % 50 = 0, REPEAT(CONCAT('long', seq), 3000), CONCAT('t', seq)) FROM seq_1_to_1500;
DELETE FROM f_zip WHERE id BETWEEN 400 AND 450;
CREATE TABLE f_pcomp (id INT PRIMARY KEY, v VARCHAR(100), b BLOB) PAGE_COMPRESSED=1;
INSERT INTO f_pcomp SELECT seq, REPEAT('p', seq % 100), IF(seq % 97 = 0, REPEAT('q', 20000), NULL) FROM seq_1_to_3000;
CREATE TABLE f_redinst (id INT PRIMARY KEY, a INT, b VARCHAR(20), c INT) ROW_FORMAT=REDUNDANT;
INSERT INTO f_redinst SELECT seq, seq, CONCAT('r', seq), seq * 3 FROM seq_1_to_50;
ALTER TABLE f_redinst ADD COLUMN d CHAR(4) DEFAULT 'rd', ALGORITHM=INSTANT;
INSERT INTO f_redinst VALUES (51, 5, 'x', 6, 'd51');
ALTER TABLE f_redinst DROP COLUMN a, ALGORITHM=INSTANT;
ALTER TABLE f_redinst MODIFY c INT AFTER id, ALGORITHM=INSTANT;
INSERT INTO f_redinst VALUES (52, 7, 'y', 'd52');
UPDATE f_redinst SET b = 'upd' WHERE id % 9 = 0;
CREATE TABLE f_cmpinst (id INT PRIMARY KEY, a INT, b VARCHAR(20)) ROW_FORMAT=COMPACT;
INSERT INTO f_cmpinst SELECT seq, seq, CONCAT('c', seq) FROM seq_1_to_50;
ALTER TABLE f_cmpinst ADD COLUMN z INT DEFAULT 9 FIRST, ALGORITHM=INSTANT;
INSERT INTO f_cmpinst VALUES (1, 51, 51, 'new');
ALTER TABLE f_cmpinst DROP COLUMN a, ALGORITHM=INSTANT;
INSERT INTO f_cmpinst VALUES (2, 52, 'newer');
CREATE TABLE f_dd (id INT PRIMARY KEY, v VARCHAR(20)) DATA DIRECTORY = '@EXTDIR@';
INSERT INTO f_dd SELECT seq, CONCAT('dd', seq) FROM seq_1_to_200;
CREATE TABLE f_sub (id INT NOT NULL, d DATE NOT NULL, v VARCHAR(10), PRIMARY KEY (id, d))
  PARTITION BY RANGE (YEAR(d)) SUBPARTITION BY HASH (id) SUBPARTITIONS 2
  (PARTITION p0 VALUES LESS THAN (2020), PARTITION p1 VALUES LESS THAN MAXVALUE);
INSERT INTO f_sub SELECT seq, '2018-01-01' + INTERVAL seq DAY, CONCAT('s', seq) FROM seq_1_to_1000;
`

// TestRowsFileLab checks `rows FILE.ibd` on the files of a real MariaDB 10.11 server's tables,
// copied out alone (the .ibd and the .frm, no ibdata1, no redo log): every table prints exactly
// what the server's SELECT printed (its stored columns for f_virt), read through the .frm beside
// the file and through --frm; a .frm of another table is refused (an error naming the file),
// never gives rows that are not the table's; made again on a fresh server from `schema` and
// `rows --format sql` alone, every table gives back the same SELECT (rowsFileReload).
func TestRowsFileLab(t *testing.T) {
	lab.MariaDB1011.Require(t)
	rowsFileCheck(t, true)
}

// TestRowsFilePageSizes is TestRowsFileLab's comparison on servers with 4 KiB and 64 KiB pages
// (innodb_strict_mode off: f_red's REDUNDANT row is wider than 4 KiB pages allow, and its rows
// fit) and with 16 KiB pages in the crc32 format (the flags and checksums before full_crc32).
func TestRowsFilePageSizes(t *testing.T) {
	lab.MariaDB1011.Require(t)
	for _, opt := range []string{"--innodb-page-size=4k --innodb-strict-mode=0", "--innodb-page-size=64k", "--innodb-checksum-algorithm=crc32"} {
		t.Run(strings.Fields(strings.TrimPrefix(opt, "--innodb-"))[0], func(t *testing.T) { rowsFileCheck(t, false, strings.Fields(opt)...) })
	}
}

// rowsFileCheck runs rowsFileWorkload on a fresh server started with opts and compares
// `rows FILE.ibd` with its SELECT; all: the mismatched .frm and the damaged files too.
func rowsFileCheck(t *testing.T, all bool, opts ...string) {
	base := t.TempDir()
	ext := filepath.Join(base, "ext")
	if err := os.MkdirAll(ext, 0o755); err != nil {
		t.Fatal(err)
	}
	s := newRowsServer(t, base, opts...)
	work := strings.ReplaceAll(rowsFileWorkload, "@EXTDIR@", ext)
	if strings.Contains(strings.Join(opts, " "), "64k") { // 64 KiB pages have no ROW_FORMAT=COMPRESSED
		work = strings.ReplaceAll(work, "ROW_FORMAT=COMPRESSED", "ROW_FORMAT=DYNAMIC")
	}
	s.sql(t, work)
	want := map[string][]byte{}
	for _, tb := range rowsFileTables {
		want[tb.name] = s.sql(t, rowsFileSelect(tb.name, tb.order))
	}
	s.shutdown(t)
	// Each table's files alone, in a directory named after the database (a DATA DIRECTORY
	// table's .ibd from the external directory).
	src := filepath.Join(base, "data", "db")
	before := lab.HashTree(t, base)
	out := filepath.Join(t.TempDir(), "db")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tb := range rowsFileTables {
		for _, ext := range []string{".ibd", ".frm"} {
			name := tb.name
			if ext == ".frm" { // a partition's is its table's
				name, _, _ = strings.Cut(name, "#P#")
			}
			b, err := os.ReadFile(filepath.Join(src, name+ext))
			if os.IsNotExist(err) && ext == ".ibd" {
				b, err = os.ReadFile(filepath.Join(base, "ext", "db", name+ext))
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(out, name+ext), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	rows := 0
	for _, tb := range rowsFileTables {
		ibd := filepath.Join(out, tb.name+".ibd")
		got, errs, code := run("rows", ibd)
		if code != ExitClean || got != string(want[tb.name]) {
			t.Errorf("rows %s: exit %d, %s\n%s", ibd, code, errs, firstDiff(string(want[tb.name]), got))
		}
		rows += strings.Count(got, "\n")
		// --scan: the leaf pages in file order, the same rows (PAGE_COMPRESSED pages
		// decompressed: before, f_pcomp's scan printed the 106 rows of its uncompressed pages).
		if scan, errs, code := run("rows", "--scan", ibd); code != ExitClean || sortedLines(scan) != sortedLines(got) {
			t.Errorf("rows --scan %s: exit %d, %s: %d rows, the walk %d", ibd, code, errs, strings.Count(scan, "\n"), strings.Count(got, "\n"))
		}
		other := t.TempDir() // the .frm given, from elsewhere
		frm := filepath.Join(other, "x.frm")
		own, _, _ := strings.Cut(tb.name, "#P#")
		b, _ := os.ReadFile(filepath.Join(out, own+".frm"))
		os.WriteFile(frm, b, 0o644)
		if got2, errs, code := run("rows", "--frm", frm, ibd); code != ExitClean || got2 != got {
			t.Errorf("rows --frm %s %s: exit %d, %s", frm, ibd, code, errs)
		}
	}
	t.Logf("%d tables, %d rows", len(rowsFileTables), rows)
	if after := lab.HashTree(t, base); !reflect.DeepEqual(before, after) {
		t.Error("the source directories changed")
	}
	if !all {
		return
	}
	// Every table's file read with every other table's .frm: refused, or the file's own rows
	// (never a row that is not the table's).
	refused, same := 0, 0
	for _, a := range rowsFileTables {
		for _, b := range rowsFileTables {
			if a.name == b.name {
				continue
			}
			fa, _, _ := strings.Cut(a.name, "#P#")
			fb, _, _ := strings.Cut(b.name, "#P#")
			if fa == fb {
				continue // two partitions of one table
			}
			got, errs, code := run("rows", "--frm", filepath.Join(out, fa+".frm"), filepath.Join(out, b.name+".ibd"))
			switch {
			case code == ExitClean && got == string(want[b.name]):
				same++
			case code == ExitClean && trimCells(got) == trimCells(string(want[b.name])):
				// The same columns, names and instant history, one a CHAR(4) in the file and a
				// VARCHAR in the .frm: in a REDUNDANT record both are a 16-byte field, so the
				// CHAR's padding is read as part of the value (the README says so).
				t.Logf("rows --frm %s.frm %s.ibd: the file's rows, but for a CHAR's padding spaces", a.name, b.name)
			case code == ExitClean || got != "":
				t.Errorf("rows --frm %s.frm %s.ibd: exit %d, %d lines, %s", a.name, b.name, code, strings.Count(got, "\n"), errs)
			case !strings.Contains(errs, b.name+".ibd"):
				t.Errorf("rows --frm %s.frm %s.ibd: the error does not name the file: %s", a.name, b.name, errs)
			default:
				refused++
			}
		}
	}
	t.Logf("%d mismatched .frm refused, %d read as the file's own rows (the same layout)", refused, same)
	rowsFileDamaged(t, out, string(want["f_big"]))
	rowsFileReload(t, out, want)
	if after := lab.HashTree(t, base); !reflect.DeepEqual(before, after) {
		t.Error("the source directories changed")
	}
}

// trimCells is tsv with the trailing spaces of every value removed.
func trimCells(tsv string) string {
	lines := strings.Split(tsv, "\n")
	for i, l := range lines {
		cells := strings.Split(l, "\t")
		for j, c := range cells {
			cells[j] = strings.TrimRight(c, " ")
		}
		lines[i] = strings.Join(cells, "\t")
	}
	return strings.Join(lines, "\n")
}

// rowsFileDamaged: f_big's file with a flipped byte in a leaf page (its rows listed as lost,
// every other row printed exactly, exit 1), cut short (the missing pages listed, exit 1), with
// page 3 damaged (refused: --scan), with flags of another page size (refused, exit 2). Never a
// row that is not the table's.
func rowsFileDamaged(t *testing.T, dir, want string) {
	img, err := os.ReadFile(filepath.Join(dir, "f_big.ibd"))
	if err != nil {
		t.Fatal(err)
	}
	frm, _ := os.ReadFile(filepath.Join(dir, "f_big.frm"))
	wantSet := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSuffix(want, "\n"), "\n") {
		wantSet[l] = true
	}
	const ps = 16384
	no := 4 // a leaf page of the clustered index (its id is page 3's)
	for ; (no+1)*ps <= len(img); no++ {
		p := img[no*ps:]
		if binary.BigEndian.Uint16(p[24:]) == 17855 && binary.BigEndian.Uint16(p[64:]) == 0 && bytes.Equal(p[66:74], img[3*ps+66:3*ps+74]) && no > 10 {
			break
		}
	}
	leaf := bytes.Clone(img)
	leaf[no*ps+3000] ^= 0xff
	root := bytes.Clone(img)
	root[3*ps+200] ^= 0xff
	size := bytes.Clone(img)
	size[54+3] ^= 0x02 // full_crc32 flags: page size code 5 (16K) becomes 7 (64K)
	for _, c := range []struct {
		name string
		img  []byte
		code int
	}{
		{"flipped leaf byte", leaf, ExitFindings}, {"cut short", img[:(no+1)*ps], ExitFindings},
		{"damaged root", root, 2}, {"page size", size, 2},
	} {
		d := filepath.Join(t.TempDir(), "db")
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "f_big.ibd"), c.img, 0o644)
		os.WriteFile(filepath.Join(d, "f_big.frm"), frm, 0o644)
		out, errs, code := run("rows", filepath.Join(d, "f_big.ibd"))
		n := 0
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if l == "" {
				continue
			}
			if !wantSet[l] {
				t.Errorf("%s: a row that is not the table's: %q", c.name, l)
			}
			n++
		}
		if code != c.code || !strings.Contains(errs, "f_big.ibd") || code == ExitFindings && (n == 0 || n >= len(wantSet) || !strings.Contains(errs, "rows lost")) {
			t.Errorf("%s: exit %d (want %d), %d rows, %s", c.name, code, c.code, n, errs)
		}
		t.Logf("%s: exit %d, %d of %d rows", c.name, code, n, len(wantSet))
	}
}

// rowsFileReload: the tables made again from the files alone on a fresh server, with `schema
// FILE.frm` and `rows --format sql FILE.ibd` of every table and partition, give back the
// original server's SELECT of each.
func rowsFileReload(t *testing.T, dir string, want map[string][]byte) {
	var stmts strings.Builder
	stmts.WriteString("CREATE DATABASE db CHARACTER SET utf8mb4;\nUSE db;\n")
	made := map[string]bool{}
	for _, tb := range rowsFileTables {
		own, _, _ := strings.Cut(tb.name, "#P#")
		if !made[own] {
			made[own] = true
			out, errs, code := run("schema", filepath.Join(dir, own+".frm"))
			if code != ExitClean {
				t.Fatalf("schema %s.frm: exit %d, %s", own, code, errs)
			}
			stmts.WriteString(out)
		}
	}
	for _, tb := range rowsFileTables {
		out, errs, code := run("rows", "--format", "sql", filepath.Join(dir, tb.name+".ibd"))
		if code != ExitClean {
			t.Fatalf("rows --format sql %s.ibd: exit %d, %s", tb.name, code, errs)
		}
		stmts.WriteString(out)
	}
	s := newRowsServer(t, t.TempDir())
	defer s.shutdown(t)
	s.sql(t, stmts.String())
	for _, tb := range rowsFileTables {
		if got := s.sql(t, rowsFileSelect(tb.name, tb.order)); !bytes.Equal(got, want[tb.name]) {
			t.Errorf("%s made again from its files: %s", tb.name, firstDiff(string(want[tb.name]), string(got)))
		}
	}
}
