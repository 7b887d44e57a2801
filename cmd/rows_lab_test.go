package cmd

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"innoscope/discovery"
	"innoscope/internal/lab"
)

// rowsTables are the tables of rowsWorkload with the ORDER BY that gives their clustered index
// order ("" for a table without a key: a full scan reads it in DB_ROW_ID order).
var rowsTables = []struct{ name, order string }{
	{"t-dash", "id"}, {"t_gen", "id"}, {"t_uniq", "a"}, {"t_part#P#p0", "id"}, {"t_part#P#p1", "id"},
	{"t_int", "id"}, {"t_num", "id"}, {"t_float", "id"}, {"t_str", "id"}, {"t_time", "id"}, {"t_misc", "id"},
	{"t_long", "id"}, {"t_compact", "id"}, {"t_red", "id"}, {"t_red_big", "id"}, {"t_big", "id"}, {"t_nopk", ""},
	{"t_comp", "b, a"}, {"t_charpk", "k"}, {"t_inst", "id"}, {"t_inst2", "id"}, {"t_inst_big", "id"},
	{"t_inst_red", "id"}, {"t_ext", "id"}, {"t_sys", "id"},
	{"t_pcomp", "id"}, {"t_zip8", "id"}, {"t_zip4", "id"}, {"t_zip2", "id"}, {"t_zip1", "id"}, {"t_zip_small", "id"},
}

// rowsWorkload makes the tables: every type, NULLs, empty strings, long values off page, the
// row formats, instant ADD/DROP/reorder with DML between, a DATA DIRECTORY table (@EXT@) and
// one in the system tablespace.
const rowsWorkload = `
CREATE DATABASE db CHARACTER SET utf8mb4;
USE db;
CREATE TABLE t_int (id INT PRIMARY KEY, a TINYINT, b TINYINT UNSIGNED, c SMALLINT, d SMALLINT UNSIGNED, e MEDIUMINT, f MEDIUMINT UNSIGNED, g INT, h INT UNSIGNED, i BIGINT, j BIGINT UNSIGNED NOT NULL);
INSERT INTO t_int VALUES (1,-128,0,-32768,0,-8388608,0,-2147483648,0,-9223372036854775808,0),(2,127,255,32767,65535,8388607,16777215,2147483647,4294967295,9223372036854775807,18446744073709551615),(3,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,5),(4,-1,1,-1,1,-1,1,-1,1,-1,1);
CREATE TABLE t_num (id INT PRIMARY KEY, a DECIMAL(10,2), b DECIMAL(30,10) UNSIGNED, c FLOAT, d DOUBLE, e FLOAT(7,3), f DOUBLE(10,4), g DECIMAL(5,0), h DECIMAL(65,30), k DECIMAL(3,3));
INSERT INTO t_num VALUES (1,-12345678.91,12345678901234567890.0123456789,1.5,-2.25,1234.567,-123456.7891,-99999,-12345678901234567890123456789012345.123456789012345678901234567890,-0.999),(2,0,0,0,0,0,0,0,0,0),(3,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL),(4,0.01,0.0000000001,3.14159,2.718281828459045,-0.001,0.0001,1,0.000000000000000000000000000001,0.001),(5,-0.5,1,1e30,1e300,1,1,5,-1,-0.1),(6,1,2,1e-10,1e-300,2,2,3,1e20,0.5),(7,100,1000000,123456789,1234567890123456789,3,3,-1,1e-20,0),(8,5,5,-3.4e38,0.1,4,4,4,0.5,0),(9,6,6,1.17549435e-38,1e15,5,5,5,5,0),(10,7,7,1e15,1e16,6,6,6,6,0),(11,8,8,123456,1234567,7,7,7,7,0),(12,9,9,1234567,12345678901234567,8,8,8,8,0),(13,1,1,0.0001,0.0001,1,1,1,1,0),(14,1,1,0.00001,0.00001,1,1,1,1,0),(15,1,1,100000,1e14,1,1,1,1,0);
CREATE TABLE t_float (id INT PRIMARY KEY, f FLOAT, d DOUBLE);
INSERT INTO t_float SELECT seq, (seq * 7919.0 - 500000) / POW(10, CAST(seq % 23 AS SIGNED) - 8), (seq * 104729.0 - 1e7) / POW(10, CAST(seq % 41 AS SIGNED) - 15) FROM seq_1_to_1000;
INSERT INTO t_float VALUES (2001,-1e-5,-1e-5),(2002,123.456e-10,2.5e-5),(2003,0.000123,0.000123),(2004,-1.5e-7,1.234567890123e-7),(2005,9.999999e10,9.99999999999999e20),(2006,1e38,1.7976931348623157e308),(2007,0.1,0.3),(2008,1234567.8,12345678.9),(2009,-0.00001234,-1e-310),(2010,-0.0,-0.0);
CREATE TABLE t_str (id INT PRIMARY KEY, a CHAR(10), b VARCHAR(300), c CHAR(5) CHARACTER SET latin1, d VARCHAR(20) CHARACTER SET latin1, e TEXT, f BINARY(4), g VARBINARY(10), h BLOB, i TINYTEXT, j MEDIUMBLOB, k CHAR(3) CHARACTER SET utf8mb3, l VARCHAR(10) COLLATE latin1_bin);
INSERT INTO t_str VALUES (1,'abc','héllo wörld','xy','café','text','ab','a\0b','blob\tdata','tiny','med','äbc','€x'),(2,'','','','','','','','','','','',''),(3,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL),(4,'a\tb','line1\nline2','\\','a\\b','NUL\0here','\0\0\0\0','\n\t\\','\r\x1a','😀 emoji','x','  ',' '),(5,'trail  ','trail  ','t ','t  ','t ','t','t ','t ','t ','t ','t ','t ');
CREATE TABLE t_time (id INT PRIMARY KEY, a DATE, b TIME, c TIME(3), d DATETIME, e DATETIME(6), f TIMESTAMP NULL, g TIMESTAMP(2) NULL, h YEAR, i DATETIME(1), j TIME(6), k TIME(1), l TIMESTAMP(6) NULL);
INSERT INTO t_time VALUES (1,'2024-02-29','12:34:56','-838:59:59.000','2024-01-01 00:00:00','9999-12-31 23:59:59.999999','2038-01-19 03:14:07','1970-01-01 00:00:01.01',2024,'2000-01-01 00:00:00.5','838:59:59.999999','-00:00:00.1','2001-02-03 04:05:06.000007'),(2,'1000-01-01','-00:00:01','00:00:00.123','1000-01-01 00:00:00','1000-01-01 00:00:00.000001','2020-06-15 12:00:00','2020-06-15 12:00:00.99',1901,'2000-01-01 00:00:00.0','-12:00:00.5','-1:00:00.9',NULL),(3,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL),(4,'0000-00-00','00:00:00','00:00:00','0000-00-00 00:00:00','0000-00-00 00:00:00','0000-00-00 00:00:00',NULL,0,NULL,'-00:00:00.000001','00:00:00.5','0000-00-00 00:00:00'),(5,'2024-12-31','100:00:00','-1:02:03.456','2024-12-31 23:59:59','2024-12-31 23:59:59.100000','2024-12-31 23:59:59',NULL,2155,NULL,NULL,'-838:59:59.9','2024-07-01 12:00:00.5');
CREATE TABLE t_misc (id INT PRIMARY KEY, a ENUM('x','yy','zzz'), b SET('a','b','c','d'), c BIT(1), d BIT(12), e JSON, f ENUM('a','b') NOT NULL, g BIT(64), h ENUM('é','ü') CHARACTER SET latin1);
INSERT INTO t_misc VALUES (1,'yy','a,c',b'1',b'101010101010','{"k": [1, 2, "x"]}','b',b'1','é'),(2,'x','',b'0',0,'null','a',0,'ü'),(3,NULL,NULL,NULL,NULL,NULL,'a',NULL,NULL),(4,'zzz','a,b,c,d',1,4095,'"str\\ting"','b',18446744073709551615,'é'),(5,'x','d',0,65,'[]','a',65,NULL);
CREATE TABLE t_long (id INT PRIMARY KEY, a LONGTEXT, b LONGBLOB, c VARCHAR(5000)) ROW_FORMAT=DYNAMIC;
INSERT INTO t_long SELECT seq, REPEAT(CONCAT('txt',seq),seq*300), REPEAT(CHAR(seq%256),seq*1000), REPEAT('v',seq*200) FROM seq_1_to_20;
CREATE TABLE t_compact (id INT PRIMARY KEY, a VARCHAR(100), b TEXT, c CHAR(20), d INT, e LONGBLOB) ROW_FORMAT=COMPACT;
INSERT INTO t_compact SELECT seq, CONCAT('a',seq), IF(seq%3=0,NULL,REPEAT('b',seq*100)), 'c', seq, IF(seq%5=0,REPEAT('x',20000),NULL) FROM seq_1_to_50;
CREATE TABLE t_red (id INT PRIMARY KEY, a VARCHAR(100), b TEXT, c CHAR(20), d INT, e LONGBLOB, f DECIMAL(8,3), g DATETIME(3), h CHAR(4) CHARACTER SET latin1) ROW_FORMAT=REDUNDANT;
INSERT INTO t_red SELECT seq, CONCAT('a',seq), IF(seq%3=0,NULL,REPEAT('b',seq*100)), IF(seq%4=0,NULL,'cé'), IF(seq%2=0,NULL,seq), IF(seq%5=0,REPEAT('x',20000),NULL), seq/7, '2001-02-03 04:05:06.789', 'ab' FROM seq_1_to_50;
CREATE TABLE t_red_big (id INT PRIMARY KEY, v VARCHAR(300), n INT) ROW_FORMAT=REDUNDANT;
INSERT INTO t_red_big SELECT seq, REPEAT(CHAR(97 + seq % 26), seq % 300), IF(seq % 5 = 0, NULL, seq) FROM seq_1_to_8000;
DELETE FROM t_red_big WHERE id % 9 = 0;
CREATE TABLE t_big (id INT PRIMARY KEY, v VARCHAR(200), n INT);
INSERT INTO t_big SELECT seq, REPEAT(CHAR(65 + seq % 26), seq % 200), seq FROM seq_1_to_20000;
DELETE FROM t_big WHERE id % 7 = 0;
UPDATE t_big SET v = 'updated' WHERE id % 11 = 0;
CREATE TABLE t_nopk (a INT, b VARCHAR(10));
INSERT INTO t_nopk VALUES (3,'c'),(1,'a'),(2,NULL);
CREATE TABLE t_comp (a VARCHAR(10), b INT, c INT, PRIMARY KEY(b, a), KEY(c));
INSERT INTO t_comp VALUES ('x',2,1),('a',1,2),('b',1,3),('',2,4);
CREATE TABLE t_charpk (k CHAR(8) PRIMARY KEY, v INT);
INSERT INTO t_charpk SELECT CONCAT('k', seq), seq FROM seq_1_to_3000;
CREATE TABLE t_inst (id INT PRIMARY KEY, a INT, b VARCHAR(20));
INSERT INTO t_inst VALUES (1,1,'one'),(2,2,'two');
ALTER TABLE t_inst ADD COLUMN c INT DEFAULT 42, ALGORITHM=INSTANT;
INSERT INTO t_inst VALUES (3,3,'three',3);
ALTER TABLE t_inst ADD COLUMN d VARCHAR(10) DEFAULT 'dflt' NOT NULL, ADD COLUMN e DATETIME DEFAULT '2020-01-01 00:00:00', ADD COLUMN f TEXT, ALGORITHM=INSTANT;
INSERT INTO t_inst VALUES (4,4,'four',4,'d4',NULL,'f');
UPDATE t_inst SET a=10 WHERE id=1;
CREATE TABLE t_inst2 (id INT PRIMARY KEY, a INT, b VARCHAR(20), c CHAR(3));
INSERT INTO t_inst2 VALUES (1,1,'one','c1'),(2,2,'two','c2');
ALTER TABLE t_inst2 DROP COLUMN a, ALGORITHM=INSTANT;
INSERT INTO t_inst2 VALUES (3,'three','c3');
ALTER TABLE t_inst2 ADD COLUMN z INT DEFAULT 7 FIRST, ALGORITHM=INSTANT;
INSERT INTO t_inst2 VALUES (8,4,'four','c4');
ALTER TABLE t_inst2 MODIFY c CHAR(3) AFTER id, ALGORITHM=INSTANT;
INSERT INTO t_inst2 (id,c,b,z) VALUES (5,'c5','five',9);
UPDATE t_inst2 SET b='TWO' WHERE id=2;
DELETE FROM t_inst2 WHERE id=1;
ALTER TABLE t_inst2 ADD COLUMN y VARCHAR(5) DEFAULT 'yy' AFTER c, ALGORITHM=INSTANT;
INSERT INTO t_inst2 (id,c,b,z,y) VALUES (6,'c6','six',6,NULL);
CREATE TABLE t_inst_big (id INT PRIMARY KEY, a VARCHAR(100), b INT, c BIGINT) ;
INSERT INTO t_inst_big SELECT seq, REPEAT('a', seq % 100), seq, seq * 3 FROM seq_1_to_5000;
ALTER TABLE t_inst_big ADD COLUMN d INT NOT NULL DEFAULT 5, ALGORITHM=INSTANT;
UPDATE t_inst_big SET d = id WHERE id % 3 = 0;
ALTER TABLE t_inst_big DROP COLUMN b, ALGORITHM=INSTANT;
UPDATE t_inst_big SET a = 'changed' WHERE id % 5 = 0;
ALTER TABLE t_inst_big ADD COLUMN e VARCHAR(10) DEFAULT 'e' FIRST, ALGORITHM=INSTANT;
INSERT INTO t_inst_big (id, a, c, d, e) SELECT seq, 'new', seq, seq, NULL FROM seq_5001_to_6000;
DELETE FROM t_inst_big WHERE id % 13 = 0;
CREATE TABLE t_inst_red (id INT PRIMARY KEY, a INT, b VARCHAR(20)) ROW_FORMAT=REDUNDANT;
INSERT INTO t_inst_red SELECT seq, seq, CONCAT('r', seq) FROM seq_1_to_500;
ALTER TABLE t_inst_red ADD COLUMN c INT DEFAULT 9, ALGORITHM=INSTANT;
INSERT INTO t_inst_red VALUES (501, 501, 'new', 1);
ALTER TABLE t_inst_red DROP COLUMN a, ALGORITHM=INSTANT;
ALTER TABLE t_inst_red ADD COLUMN d CHAR(2) DEFAULT 'dd' FIRST, ALGORITHM=INSTANT;
UPDATE t_inst_red SET b = 'upd' WHERE id % 4 = 0;
CREATE TABLE t_ext (id INT PRIMARY KEY, v VARCHAR(50), w TEXT) DATA DIRECTORY='@EXT@';
INSERT INTO t_ext SELECT seq, CONCAT('ext', seq), IF(seq % 10 = 0, REPEAT('w', 10000), 'w') FROM seq_1_to_300;
SET GLOBAL innodb_file_per_table=OFF;
CREATE TABLE t_sys (id INT PRIMARY KEY, v VARCHAR(50));
INSERT INTO t_sys SELECT seq, CONCAT('sys', seq) FROM seq_1_to_200;
SET GLOBAL innodb_file_per_table=ON;
CREATE TABLE ` + "`t-dash`" + ` (id INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO ` + "`t-dash`" + ` VALUES (1, 'dash'), (2, NULL);
CREATE TABLE t_part (id INT PRIMARY KEY, v VARCHAR(20)) PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN (100), PARTITION p1 VALUES LESS THAN MAXVALUE);
INSERT INTO t_part SELECT seq, CONCAT('p', seq) FROM seq_1_to_300;
CREATE TABLE t_gen (id INT PRIMARY KEY, a INT, b INT AS (a * 2) STORED, c VARCHAR(20) AS (CONCAT('g', a)) PERSISTENT);
INSERT INTO t_gen (id, a) VALUES (1, 1), (2, NULL), (3, -5);
CREATE TABLE t_uniq (a INT NOT NULL, b VARCHAR(10), UNIQUE KEY (a));
INSERT INTO t_uniq VALUES (5, 'five'), (1, 'one'), (3, NULL);
CREATE TABLE t_pcomp (id INT PRIMARY KEY, v VARCHAR(200), b LONGBLOB, n INT) PAGE_COMPRESSED=1;
INSERT INTO t_pcomp SELECT seq, REPEAT(CHAR(97 + seq % 26), seq % 200), IF(seq % 50 = 0, REPEAT(CONCAT('z', seq), 4000), NULL), IF(seq % 3 = 0, NULL, seq) FROM seq_1_to_6000;
ALTER TABLE t_pcomp ADD COLUMN c INT NOT NULL DEFAULT 7 AFTER id, ALGORITHM=INSTANT;
DELETE FROM t_pcomp WHERE id % 8 = 1;
INSERT INTO t_pcomp (id, c, v) SELECT seq, seq % 5, 'after' FROM seq_6001_to_6500;
CREATE TABLE t_virt (id INT PRIMARY KEY, a INT, v INT AS (a + 1) VIRTUAL);
INSERT INTO t_virt (id, a) VALUES (1, 1);
CREATE TABLE t_zip8 (id INT PRIMARY KEY, v VARCHAR(50), n INT, c CHAR(8) NOT NULL, t TEXT, b LONGBLOB, d DATETIME(3)) ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8;
INSERT INTO t_zip8 SELECT seq, IF(seq % 11 = 0, NULL, CONCAT('v', seq, REPEAT('x', seq % 40))), IF(seq % 7 = 0, NULL, CAST(seq AS SIGNED) * 31 - 5000), CONCAT('c', seq % 1000), IF(seq % 13 = 0, REPEAT(CONCAT('long', seq), 3000), IF(seq % 5 = 0, NULL, CONCAT('t', seq))), IF(seq % 17 = 0, REPEAT(CHAR(seq % 256), 9000 + seq), NULL), IF(seq % 3 = 0, NULL, '2024-01-02 03:04:05.678' + INTERVAL seq MINUTE) FROM seq_1_to_4000;
DELETE FROM t_zip8 WHERE id % 9 = 4 OR id BETWEEN 1000 AND 1300;
UPDATE t_zip8 SET v = CONCAT('upd', id, REPEAT('y', id % 30)), n = NULL WHERE id % 10 = 3;
UPDATE t_zip8 SET t = REPEAT('grown', 2000), b = NULL WHERE id % 34 = 0;
UPDATE t_zip8 SET t = 'shrunk' WHERE id % 26 = 13;
INSERT INTO t_zip8 (id, v, c, t) SELECT seq, 'again', 'c', REPEAT('r', seq) FROM seq_1000_to_1100;
CREATE TABLE t_zip4 (id INT PRIMARY KEY, v VARCHAR(50), n INT, c CHAR(8) NOT NULL, t TEXT, b LONGBLOB, d DATETIME(3)) ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=4;
INSERT INTO t_zip4 SELECT seq, IF(seq % 11 = 0, NULL, CONCAT('v', seq, REPEAT('x', seq % 40))), IF(seq % 7 = 0, NULL, CAST(seq AS SIGNED) * 31 - 5000), CONCAT('c', seq % 1000), IF(seq % 13 = 0, REPEAT(CONCAT('long', seq), 3000), IF(seq % 5 = 0, NULL, CONCAT('t', seq))), IF(seq % 17 = 0, REPEAT(CHAR(seq % 256), 9000 + seq), NULL), IF(seq % 3 = 0, NULL, '2024-01-02 03:04:05.678' + INTERVAL seq MINUTE) FROM seq_1_to_4000;
DELETE FROM t_zip4 WHERE id % 9 = 4 OR id BETWEEN 1000 AND 1300;
UPDATE t_zip4 SET v = CONCAT('upd', id, REPEAT('y', id % 30)), n = NULL WHERE id % 10 = 3;
UPDATE t_zip4 SET t = REPEAT('grown', 2000), b = NULL WHERE id % 34 = 0;
UPDATE t_zip4 SET t = 'shrunk' WHERE id % 26 = 13;
INSERT INTO t_zip4 (id, v, c, t) SELECT seq, 'again', 'c', REPEAT('r', seq) FROM seq_1000_to_1100;
CREATE TABLE t_zip2 (id INT PRIMARY KEY, v VARCHAR(50), n INT, c CHAR(8) NOT NULL, t TEXT, b LONGBLOB, d DATETIME(3)) ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=2;
INSERT INTO t_zip2 SELECT seq, IF(seq % 11 = 0, NULL, CONCAT('v', seq, REPEAT('x', seq % 40))), IF(seq % 7 = 0, NULL, CAST(seq AS SIGNED) * 31 - 5000), CONCAT('c', seq % 1000), IF(seq % 13 = 0, REPEAT(CONCAT('long', seq), 3000), IF(seq % 5 = 0, NULL, CONCAT('t', seq))), IF(seq % 17 = 0, REPEAT(CHAR(seq % 256), 9000 + seq), NULL), IF(seq % 3 = 0, NULL, '2024-01-02 03:04:05.678' + INTERVAL seq MINUTE) FROM seq_1_to_4000;
DELETE FROM t_zip2 WHERE id % 9 = 4 OR id BETWEEN 1000 AND 1300;
UPDATE t_zip2 SET v = CONCAT('upd', id, REPEAT('y', id % 30)), n = NULL WHERE id % 10 = 3;
UPDATE t_zip2 SET t = REPEAT('grown', 2000), b = NULL WHERE id % 34 = 0;
UPDATE t_zip2 SET t = 'shrunk' WHERE id % 26 = 13;
INSERT INTO t_zip2 (id, v, c, t) SELECT seq, 'again', 'c', REPEAT('r', seq) FROM seq_1000_to_1100;
CREATE TABLE t_zip1 (id INT PRIMARY KEY, v VARCHAR(50), n INT, c CHAR(8) NOT NULL, t TEXT, b LONGBLOB, d DATETIME(3)) ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=1;
INSERT INTO t_zip1 SELECT seq, IF(seq % 11 = 0, NULL, CONCAT('v', seq, REPEAT('x', seq % 40))), IF(seq % 7 = 0, NULL, CAST(seq AS SIGNED) * 31 - 5000), CONCAT('c', seq % 1000), IF(seq % 13 = 0, REPEAT(CONCAT('long', seq), 3000), IF(seq % 5 = 0, NULL, CONCAT('t', seq))), IF(seq % 17 = 0, REPEAT(CHAR(seq % 256), 9000 + seq), NULL), IF(seq % 3 = 0, NULL, '2024-01-02 03:04:05.678' + INTERVAL seq MINUTE) FROM seq_1_to_4000;
DELETE FROM t_zip1 WHERE id % 9 = 4 OR id BETWEEN 1000 AND 1300;
UPDATE t_zip1 SET v = CONCAT('upd', id, REPEAT('y', id % 30)), n = NULL WHERE id % 10 = 3;
UPDATE t_zip1 SET t = REPEAT('grown', 2000), b = NULL WHERE id % 34 = 0;
UPDATE t_zip1 SET t = 'shrunk' WHERE id % 26 = 13;
INSERT INTO t_zip1 (id, v, c, t) SELECT seq, 'again', 'c', REPEAT('r', seq) FROM seq_1000_to_1100;
CREATE TABLE t_zip_small (id INT PRIMARY KEY, v VARCHAR(10)) ROW_FORMAT=COMPRESSED;
INSERT INTO t_zip_small VALUES (1, 'z'), (2, NULL), (3, '');
`

// TestRowsAgainstServer: for every table of rowsWorkload, `rows --format tsv` on the cleanly
// shut down directory prints exactly what `mariadb --batch --skip-column-names` printed for
// SELECT * ... ORDER BY the primary key, and the directory (and the DATA DIRECTORY) is left
// unchanged. A flipped byte in one leaf page of t_big: that page is reported (checksum), its
// rows counted as lost, every other row printed, exit 1. ROW_FORMAT=COMPRESSED tables
// (KEY_BLOCK_SIZE 8, 4, 2, 1: multi-level trees, NULLs, BLOBs off page, rows deleted, updated
// and reinserted since the pages were compressed) are compared like the others. A table with
// a VIRTUAL column is refused (exit 2).
func TestRowsAgainstServer(t *testing.T) {
	base := t.TempDir()
	ext := filepath.Join(base, "ext")
	if err := os.MkdirAll(ext, 0o755); err != nil {
		t.Fatal(err)
	}
	s := newRowsServer(t, base)
	s.sql(t, strings.ReplaceAll(rowsWorkload, "@EXT@", ext))
	want := map[string][]byte{}
	for _, tb := range rowsTables {
		want[tb.name] = s.sql(t, rowsQuery(tb.name, tb.order))
	}
	s.shutdown(t)
	before, beforeExt := lab.HashTree(t, s.dir), lab.HashTree(t, ext)
	rows, zipRows := 0, 0
	for _, tb := range rowsTables {
		out, errs, code := run("rows", s.dir, "db."+tb.name)
		if code != ExitClean || out != string(want[tb.name]) {
			t.Errorf("rows db.%s: exit %d, %s\n%s", tb.name, code, errs, firstDiff(string(want[tb.name]), out))
			continue
		}
		rows += bytes.Count(want[tb.name], []byte("\n"))
		if strings.HasPrefix(tb.name, "t_zip") {
			zipRows += bytes.Count(want[tb.name], []byte("\n"))
		}
	}
	t.Logf("%d tables, %d rows byte-identical to the server's batch output (%d of them ROW_FORMAT=COMPRESSED)", len(rowsTables), rows, zipRows)
	if n := pageCompressedPages(t, filepath.Join(s.dir, "db", "t_pcomp.ibd")); n == 0 {
		t.Error("t_pcomp.ibd has no page stored PAGE_COMPRESSED: the test does not exercise decompression")
	}
	if _, errs, code := run("rows", s.dir, "db.t_virt"); code != ExitError || !strings.Contains(errs, "VIRTUAL") {
		t.Errorf("rows db.t_virt (a VIRTUAL column): exit %d, %s", code, errs)
	}
	if !mapsEqual(before, lab.HashTree(t, s.dir)) || !mapsEqual(beforeExt, lab.HashTree(t, ext)) {
		t.Error("rows changed the data directory")
	}
	t.Run("sql", func(t *testing.T) { rowsSQL(t, s.dir, want) })
	t.Run("pages records", func(t *testing.T) { rowsPageRecords(t, s.dir, want) })
	t.Run("flipped byte", func(t *testing.T) { rowsFlipped(t, s.dir, want["t_big"], 2000) })
	// A flipped byte in FIL_PAGE_NEXT: the link cannot be trusted, the rest is read in file order.
	t.Run("flipped link", func(t *testing.T) { rowsFlipped(t, s.dir, want["t_big"], 13) })
	t.Run("damaged BLOB page", func(t *testing.T) { rowsDamagedBlob(t, s.dir, want["t_long"]) })
	t.Run("damaged root", func(t *testing.T) {
		cp := filepath.Join(t.TempDir(), "data")
		lab.CopyDir(t, s.dir, cp)
		flip(t, filepath.Join(cp, "db", "t_big.ibd"), 16384, 3, 3000)
		if _, errs, code := run("rows", cp, "db.t_big"); code != ExitError || !strings.Contains(errs, "page 3") || !strings.Contains(errs, "--scan") {
			t.Errorf("rows with the root of t_big damaged: exit %d, %s", code, errs)
		}
		out, errs, code := run("rows", "--scan", cp, "db.t_big")
		if code != ExitClean || sortedLines(out) != sortedLines(string(want["t_big"])) {
			t.Errorf("rows --scan with the root of t_big damaged: exit %d, %s", code, errs)
		}
	})
	// ROW_FORMAT=COMPRESSED: the root of t_zip2 (2 KiB pages) damaged; --scan decompresses
	// every leaf page in file order.
	t.Run("damaged compressed root", func(t *testing.T) {
		cp := filepath.Join(t.TempDir(), "data")
		lab.CopyDir(t, s.dir, cp)
		flip(t, filepath.Join(cp, "db", "t_zip2.ibd"), 2048, 3, 500)
		if _, errs, code := run("rows", cp, "db.t_zip2"); code != ExitError || !strings.Contains(errs, "page 3") {
			t.Errorf("rows with the root of t_zip2 damaged: exit %d, %s", code, errs)
		}
		out, errs, code := run("rows", "--scan", cp, "db.t_zip2")
		if code != ExitClean || sortedLines(out) != sortedLines(string(want["t_zip2"])) {
			t.Errorf("rows --scan with the root of t_zip2 damaged: exit %d, %s", code, errs)
		}
	})
	t.Run("scan", func(t *testing.T) {
		out, errs, code := run("rows", "--scan", s.dir, "db.t_inst_big")
		if code != ExitClean || sortedLines(out) != sortedLines(string(want["t_inst_big"])) {
			t.Errorf("rows --scan db.t_inst_big: exit %d, %s", code, errs)
		}
	})
}

// sortedLines sorts the lines of s.
func sortedLines(s string) string {
	l := strings.SplitAfter(s, "\n")
	sort.Strings(l)
	return strings.Join(l, "")
}

// rowsFlipped damages one leaf page (neither the first nor the last) of t_big in a copy, at
// byte at of the page.
func rowsFlipped(t *testing.T, dir string, want []byte, at int64) {
	cp := filepath.Join(t.TempDir(), "data")
	lab.CopyDir(t, dir, cp)
	path := filepath.Join(cp, "db", "t_big.ibd")
	f, err := discovery.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var page int64 = -1
	var leaves int
	f.EachPage(0, f.Pages(), func(no int64, p []byte) error {
		ip, err := discovery.ParseIndexPage(p)
		h, _ := discovery.ParseFilHeader(p)
		if err == nil && h.Type == 17855 && ip.Level == 0 && h.Prev != 0xffffffff && h.Next != 0xffffffff {
			if leaves++; leaves == 10 {
				page = no
			}
		}
		return nil
	})
	ps := int64(f.Physical)
	f.Close()
	if page < 0 {
		t.Fatal("t_big has fewer than 10 inner leaf pages")
	}
	flip(t, path, ps, page, at)
	out, errs, code := run("rows", cp, "db.t_big")
	m := regexp.MustCompile(`page (\d+): checksum[^\n]*: (\d+) rows lost`).FindStringSubmatch(errs)
	if code != ExitFindings || m == nil || m[1] != fmt.Sprint(page) {
		t.Fatalf("rows on t_big with page %d damaged: exit %d, %s", page, code, errs)
	}
	var lost int
	fmt.Sscan(m[2], &lost)
	wantLines := strings.SplitAfter(string(want), "\n")
	gotLines := strings.SplitAfter(out, "\n")
	if at < 38 {
		// The rest of the leaf level was read in file order: compare as sets.
		if !strings.Contains(errs, "file order") {
			t.Errorf("no note of the fallback to file order: %s", errs)
		}
		left := map[string]int{}
		for _, l := range wantLines {
			left[l]++
		}
		for _, l := range gotLines {
			if left[l]--; left[l] < 0 {
				t.Fatalf("printed row %q is not the server's (or printed twice)", l)
			}
		}
		if missing := len(wantLines) - len(gotLines); missing == 0 || missing > lost {
			t.Errorf("%d rows missing; %d reported lost", missing, lost)
		}
		return
	}
	// Every printed row is one of the server's, in order; the missing ones are at most the
	// lost page's records (delete-marked ones included) and all in one run.
	i, skipped, runs := 0, 0, 0
	for _, l := range gotLines {
		gap := 0
		for i < len(wantLines) && wantLines[i] != l {
			i, gap = i+1, gap+1
		}
		if i == len(wantLines) {
			t.Fatalf("printed row %q is not the server's (or out of order)", l)
		}
		if gap > 0 {
			runs++
		}
		skipped += gap
		i++
	}
	if skipped == 0 || skipped > lost || runs != 1 {
		t.Errorf("%d rows missing in %d runs; %d reported lost", skipped, runs, lost)
	}
	t.Logf("page %d damaged: %d rows printed, %d missing, %d reported lost", page, len(gotLines)-1, skipped, lost)
}

// TestRowsPageSizes: with 4 KiB and 64 KiB pages (other B-tree shapes, BLOB chains and
// record offsets), and with 16 KiB pages in the crc32 format (where a PAGE_COMPRESSED page
// has its own page type), rows still prints exactly the server's batch output. With 4 KiB pages the
// ROW_FORMAT=COMPRESSED tables of KEY_BLOCK_SIZE 4 (as large as the page), 2 and 1 are
// compared too (the server refuses KEY_BLOCK_SIZE=8 there, and every compressed table with
// 64 KiB pages).
func TestRowsPageSizes(t *testing.T) {
	for _, ps := range []string{"4k", "64k", "crc32"} {
		t.Run(ps, func(t *testing.T) {
			opt := "--innodb-page-size=" + ps
			if ps == "crc32" { // 16 KiB pages in the format before full_crc32 (PAGE_COMPRESSED differs)
				opt = "--innodb-checksum-algorithm=crc32"
			}
			s := newRowsServer(t, t.TempDir(), opt)
			var tables []string
			var stmts []string
			for _, st := range strings.Split(rowsWorkload, ";\n") {
				// The tables of every kind but the DATA DIRECTORY and system ones.
				if strings.Contains(st, "@EXT@") || strings.Contains(st, "t_ext") ||
					strings.Contains(st, "file_per_table") || strings.Contains(st, "t_sys") {
					continue
				}
				stmts = append(stmts, st)
			}
			// With 4 KiB pages some tables are too wide for the server: those are left out.
			cmd := exec.Command("mariadb", "--no-defaults", "-S", s.sock, "-uroot", "-D", "mysql", "--force",
				"--default-character-set=utf8mb4")
			cmd.Stdin = strings.NewReader(strings.Join(stmts, ";\n"))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Logf("%s pages: %v (tables the server refused are left out)\n%s", ps, err, out)
			}
			have := map[string]bool{}
			for _, n := range strings.Fields(string(s.sql(t, "SHOW TABLES FROM db"))) {
				have[n] = true
			}
			want := map[string][]byte{}
			for _, tb := range rowsTables {
				if base, _, _ := strings.Cut(tb.name, "#P#"); have[base] && tb.name != "t_ext" && tb.name != "t_sys" {
					tables = append(tables, tb.name)
					want[tb.name] = s.sql(t, rowsQuery(tb.name, tb.order))
				}
			}
			s.shutdown(t)
			rows := 0
			for _, tb := range rowsTables {
				if w, ok := want[tb.name]; ok {
					if out, errs, code := run("rows", s.dir, "db."+tb.name); code != ExitClean || out != string(w) {
						t.Errorf("rows db.%s (%s pages): exit %d, %s\n%s", tb.name, ps, code, errs, firstDiff(string(w), out))
					}
					rows += bytes.Count(w, []byte("\n"))
				}
			}
			t.Logf("%s pages: %d tables, %d rows", ps, len(tables), rows)
		})
	}
}

// TestRowsRefusesCrashed: a directory whose redo log still holds changes is refused with the
// advice to recover first (exit 2).
func TestRowsRefusesCrashed(t *testing.T) {
	s := lab.Get(t, "dml")
	_, errs, code := run("rows", s.Crashed, "db.t1")
	if code != ExitError || !strings.Contains(errs, "recover") {
		t.Errorf("rows on a crashed directory: exit %d, %s", code, errs)
	}
}

// pageCompressedPages counts the pages of file stored PAGE_COMPRESSED.
func pageCompressedPages(t *testing.T, file string) int {
	t.Helper()
	f, err := discovery.OpenFile(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	f.EachPage(0, -1, func(_ int64, p []byte) error {
		if discovery.IsPageCompressed(p, f.FSP.Flags) {
			n++
		}
		return nil
	})
	return n
}
