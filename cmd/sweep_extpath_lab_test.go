package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// extPathWorkload is the statement sequence of an 11.8 crash-sweep crash (@EXT@ is the DATA
// DIRECTORY): after the checkpoint a DATA DIRECTORY table s2.t1 (EXT/s2/t1.ibd) swaps names with
// a plain one by a three-way RENAME (its file becomes EXT/s2/t2.ibd), is renamed twice, the
// first time into another database (db1.t1_r: the file keeps its folder, EXT/s2/t1_r.ibd) and
// back (s2.t1_r21, EXT/s2/t1_r21.ibd), gets a column instantly, and then s2.t1_r21 is dropped
// and created again with the same DATA DIRECTORY twice, thousands of rows inserted each time.
// Three tablespaces take the path EXT/s2/t1_r21.ibd in turn: the log has FILE_RENAME to it,
// FILE_DELETE, FILE_CREATE of a second space, FILE_DELETE, FILE_CREATE of a third. Both 10.11
// and 11.8 run it (in the sweep's crash a concurrent session made 10.11 refuse the second
// CREATE, "Tablespace already exists").
const extPathWorkload = `CREATE DATABASE db1; CREATE DATABASE s2;
CREATE TABLE s2.t1 (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB DATA DIRECTORY='@EXT@';
CREATE TABLE s2.t2 (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
INSERT INTO s2.t1 SELECT seq, 't1' FROM seq_1_to_1000;
INSERT INTO s2.t2 SELECT seq, 't2' FROM seq_1_to_500;
CREATE TABLE db1.keep (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB DATA DIRECTORY='@EXT@';
INSERT INTO db1.keep SELECT seq, 'k' FROM seq_1_to_300;
SET GLOBAL innodb_log_checkpoint_now=1;
RENAME TABLE s2.t1 TO s2.tmp, s2.t2 TO s2.t1, s2.tmp TO s2.t2;
RENAME TABLE s2.t2 TO db1.t1_r;
RENAME TABLE db1.t1_r TO s2.t1_r21;
ALTER TABLE s2.t1_r21 ADD COLUMN c INT NOT NULL DEFAULT 3, ALGORITHM=INSTANT;
INSERT INTO s2.t1_r21 SELECT seq, 'r', 1 FROM seq_1001_to_1500;
DROP TABLE s2.t1_r21;
CREATE TABLE s2.t1_r21 (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB DATA DIRECTORY='@EXT@';
INSERT INTO s2.t1_r21 SELECT seq, REPEAT('a', 80) FROM seq_1_to_4000;
DROP TABLE s2.t1_r21;
CREATE TABLE s2.t1_r21 (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB DATA DIRECTORY='@EXT@';
INSERT INTO s2.t1_r21 SELECT seq, REPEAT('b', 60) FROM seq_1_to_3000;
INSERT INTO db1.keep SELECT seq, 'late' FROM seq_301_to_600;
`

// TestSweepExternalPathTakenThrice is the needless refusal an 11.8 crash sweep found
// (extPathWorkload), on 10.11 and 11.8: the server recovered the crash, and `recover` exited 2
// with "open COPY.external/1/s2/t1_r21.ibd: file exists". The copy must follow the log's
// renames, deletes and creates of that path in their order, as the server's recovery does: the
// server on the copy runs no crash recovery and gives the CHECK TABLE and CHECKSUM TABLE of its
// own recovery.
func TestSweepExternalPathTakenThrice(t *testing.T) {
	forServers(t, func(t *testing.T, srv *lab.Server) { externalPathTakenThrice(t, srv) })
}

func externalPathTakenThrice(t *testing.T, srv *lab.Server) {
	w := sweepCrash(t, srv, extPathWorkload)
	a, err := os.ReadFile(filepath.Join(w, "A.checks"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(a), "s2.t1_r21\tOK") {
		t.Fatalf("the server's own recovery does not pass CHECK TABLE s2.t1_r21:\n%s", a)
	}
	m := mapOf(t, filepath.Join(w, "crashed"))
	ext := filepath.Join(w, "ext", "s2", "t1_r21.ibd")
	took := 0
	for _, sp := range m {
		for _, n := range append([]string{sp.Name}, sp.Names...) {
			if n == ext {
				took++
				break
			}
		}
	}
	if took < 3 {
		t.Fatalf("%d tablespaces of the log take %s; the case needs 3 (the crash came early?)", took, ext)
	}
	sweepCopy(t, w)
	sweepServerOnCopy(t, srv, w)
	islJudge(t, w, "t1_r21", "s2/", "db1/")
}
