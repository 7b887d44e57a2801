package cmd

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"innoscope/internal/lab"
	"innoscope/schema"
)

// schemaFrmTables are the tables of schemaFrmWorkload.
var schemaFrmTables = []string{"s_int", "s_str", "s_time", "s_keys", "s_gen", "s_red", "s_compact", "s_dyn", "s_zip", "s_latin", "s_nopk", "s_part", "s_sub",
	"s_pcomp", "s_dd", "s_inst", "s_tdef"}

// schemaFrmWorkload: every common type with and without defaults (literal, NULL, expression,
// none), AUTO_INCREMENT, ON UPDATE, character sets and collations per column, ENUM/SET,
// generated columns, CHECK constraints, keys (composite, prefix, UNIQUE, DESC, FULLTEXT), the
// row formats given and not, another table character set, InnoDB's engine-defined options
// (PAGE_COMPRESSED), DATA DIRECTORY, instant ADD FIRST, DROP and reorder with rows between,
// literal defaults of the temporal types.
const schemaFrmWorkload = `
CREATE DATABASE db CHARACTER SET utf8mb4;
USE db;
CREATE TABLE s_int (id INT AUTO_INCREMENT PRIMARY KEY, a TINYINT NOT NULL DEFAULT -5, b SMALLINT UNSIGNED DEFAULT 7, c MEDIUMINT ZEROFILL, d BIGINT NOT NULL, e DECIMAL(10,3) DEFAULT -12.5, f DECIMAL(30,10) UNSIGNED NOT NULL DEFAULT 123456789012.0000000001, g FLOAT, h DOUBLE DEFAULT 2.5, i FLOAT(7,3), j BIT(5), k BOOLEAN DEFAULT TRUE, l YEAR);
CREATE TABLE s_str (id INT PRIMARY KEY, a CHAR(10) NOT NULL DEFAULT 'abc', b VARCHAR(300) DEFAULT 'it''s', c VARCHAR(20) CHARACTER SET latin1 COLLATE latin1_bin, d TEXT, e MEDIUMBLOB, f BINARY(4), g VARBINARY(16) NOT NULL, h ENUM('x','y y','z') NOT NULL DEFAULT 'y y', i SET('p','q','r') DEFAULT 'p,r', j TINYTEXT CHARACTER SET utf8mb3, k LONGTEXT COLLATE utf8mb4_bin, l CHAR(3) CHARACTER SET ascii);
CREATE TABLE s_time (id INT PRIMARY KEY, a DATE, b TIME(3), c DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6), d TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, e TIMESTAMP(2) NULL, f DATETIME NOT NULL);
CREATE TABLE s_keys (a INT NOT NULL, b VARCHAR(50) NOT NULL, c TEXT, d INT, e CHAR(8), PRIMARY KEY (b, a), UNIQUE KEY ud (d), KEY kc (c(20), d), KEY kdesc (d DESC, a), FULLTEXT KEY ft (c), KEY ke (e(4)));
CREATE TABLE s_gen (id INT PRIMARY KEY, a INT, v INT AS (a * 2) VIRTUAL, s VARCHAR(20) AS (CONCAT('x', a)) STORED, j JSON, CONSTRAINT pos CHECK (a > 0), KEY kv (v));
CREATE TABLE s_red (id INT PRIMARY KEY, a VARCHAR(10)) ROW_FORMAT=REDUNDANT;
CREATE TABLE s_compact (id INT PRIMARY KEY, a VARCHAR(10)) ROW_FORMAT=COMPACT;
CREATE TABLE s_dyn (id INT PRIMARY KEY, a VARCHAR(10)) ROW_FORMAT=DYNAMIC;
CREATE TABLE s_zip (id INT PRIMARY KEY, a VARCHAR(10)) ROW_FORMAT=COMPRESSED;
CREATE TABLE s_latin (id INT PRIMARY KEY, a VARCHAR(10) DEFAULT 'é', b CHAR(2) CHARACTER SET utf8mb4) CHARACTER SET latin1;
CREATE TABLE s_nopk (a INT, b VARCHAR(5) NOT NULL);
CREATE TABLE s_part (id INT PRIMARY KEY, v VARCHAR(10)) PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN MAXVALUE);
CREATE TABLE s_sub (id INT, d DATE, PRIMARY KEY (id, d)) PARTITION BY RANGE (YEAR(d)) SUBPARTITION BY HASH (id) SUBPARTITIONS 2 (PARTITION p0 VALUES LESS THAN (2000), PARTITION p1 VALUES LESS THAN MAXVALUE);
CREATE TABLE s_pcomp (id INT PRIMARY KEY, v VARCHAR(10)) PAGE_COMPRESSED=1 PAGE_COMPRESSION_LEVEL=3;
CREATE TABLE s_dd (id INT PRIMARY KEY, v VARCHAR(10)) ROW_FORMAT=COMPACT DATA DIRECTORY='@EXTDIR@';
CREATE TABLE s_inst (id INT PRIMARY KEY, a INT, b VARCHAR(10) NOT NULL DEFAULT 'b');
INSERT INTO s_inst VALUES (1, 1, 'x'), (2, 2, 'y');
ALTER TABLE s_inst ADD COLUMN z DATE DEFAULT '2024-01-01' FIRST, ALGORITHM=INSTANT;
INSERT INTO s_inst VALUES ('2020-02-02', 3, 3, 'z');
ALTER TABLE s_inst DROP COLUMN a, ALGORITHM=INSTANT;
ALTER TABLE s_inst MODIFY b VARCHAR(10) NOT NULL DEFAULT 'b' AFTER z, ALGORITHM=INSTANT;
CREATE TABLE s_tdef (id INT PRIMARY KEY, a YEAR DEFAULT 2024, b TIME(3) DEFAULT '12:34:56.789', c DATETIME(6) DEFAULT '2001-02-03 04:05:06.123456', d DATETIME DEFAULT '1999-12-31 23:59:59', e DATE DEFAULT '2024-02-29', f TIME DEFAULT '838:59:59', g DATETIME(2) DEFAULT '2000-01-01 00:00:00.5', h FLOAT DEFAULT 1.5);
`

// TestSchemaFrmRoundTrip checks `schema FILE.frm` on the .frm files a real MariaDB 10.11 server
// wrote: each statement, run on a fresh throw-away server, makes a table whose SHOW CREATE
// TABLE equals the original's; the statement innoscope prints is the original's itself, from
// FILE.frm, from DIR DB.TABLE and for every table of DIR. The source directory stays
// byte-identical.
func TestSchemaFrmRoundTrip(t *testing.T) {
	lab.MariaDB1011.Require(t)
	base := t.TempDir()
	ext := filepath.Join(base, "ext")
	if err := os.MkdirAll(ext, 0o755); err != nil {
		t.Fatal(err)
	}
	s := newRowsServer(t, base)
	s.sql(t, strings.ReplaceAll(schemaFrmWorkload, "@EXTDIR@", ext))
	want := map[string]string{}
	for _, tb := range schemaFrmTables {
		out := string(s.sql(t, "SHOW CREATE TABLE db."+tb))
		_, stmt, _ := strings.Cut(strings.TrimSuffix(out, "\n"), "\t")
		want[tb] = strings.ReplaceAll(stmt, `\n`, "\n")
	}
	s.shutdown(t)
	src := filepath.Join(base, "data", "db")
	before := lab.HashTree(t, src)
	var stmts strings.Builder
	stmts.WriteString("CREATE DATABASE db CHARACTER SET utf8mb4;\nUSE db;\n")
	for _, tb := range schemaFrmTables {
		out, errs, code := run("schema", filepath.Join(src, tb+".frm"))
		if code != ExitClean {
			t.Errorf("schema %s.frm: exit %d, %s", tb, code, errs)
			continue
		}
		if got := strings.TrimSuffix(out, ";\n"); got != want[tb] {
			t.Errorf("schema %s.frm differs from SHOW CREATE TABLE:\n%s", tb, firstDiff(want[tb], got))
		}
		stmts.WriteString(out)
	}
	// The data directory: DB.TABLE, and every table (with --json).
	dir := filepath.Join(base, "data")
	if out, errs, code := run("schema", dir, "db.s_keys"); code != ExitClean || out != "-- db.s_keys ("+filepath.Join(src, "s_keys.frm")+")\n"+want["s_keys"]+";\n" {
		t.Errorf("schema DIR db.s_keys: exit %d, %s\n%s", code, errs, out)
	}
	var all []schema.Source
	runJSON(t, &all, "schema", "--json", dir)
	if len(all) != len(schemaFrmTables) {
		t.Errorf("schema --json DIR: %d tables, want %d", len(all), len(schemaFrmTables))
	}
	for _, a := range all {
		if a.DB != "db" || a.Create != want[a.Table] {
			t.Errorf("schema --json DIR: %s.%s: %s", a.DB, a.Table, a.Create)
		}
	}
	if after := lab.HashTree(t, src); !reflect.DeepEqual(before, after) {
		t.Error("the source directory changed")
	}
	// On a fresh server, s_dd's DATA DIRECTORY is another directory (the original's file is
	// still in the first).
	freshBase := t.TempDir()
	ext2 := filepath.Join(freshBase, "ext")
	if err := os.MkdirAll(ext2, 0o755); err != nil {
		t.Fatal(err)
	}
	fresh := newRowsServer(t, freshBase)
	defer fresh.shutdown(t)
	fresh.sql(t, strings.ReplaceAll(stmts.String(), ext+"/", ext2+"/"))
	for _, tb := range schemaFrmTables {
		out := string(fresh.sql(t, "SHOW CREATE TABLE db."+tb))
		_, got, _ := strings.Cut(strings.TrimSuffix(out, "\n"), "\t")
		if got = strings.ReplaceAll(got, `\n`, "\n"); got != strings.ReplaceAll(want[tb], ext+"/", ext2+"/") {
			t.Errorf("%s made from innoscope's statement differs from the original:\n%s", tb, firstDiff(want[tb], got))
		}
	}
}
