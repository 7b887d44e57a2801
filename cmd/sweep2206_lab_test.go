package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"innoscope/finding"
	"innoscope/internal/lab"
)

// TestSweep2206AlterPartitionedCopyCut is crash-sweep seed 2206: SIGKILL cut ALTER TABLE db1.s1t3
// FORCE, ALGORITHM=COPY of a RANGE-partitioned table (partition p0 in a DATA DIRECTORY) after the
// rows were copied into #sql-alter-... (ddl_recovery.log: alter table, flag "partition", phase 6).
// The server's DDL recovery drops the original table through the partition engine and then renames
// #sql-alter-... to the table's name through InnoDB's handler, which has no such table (only its
// partitions) and renames nothing; only the .frm is renamed. The table is left without its .par
// file: CHECK TABLE fails ("Failed to read from the .par file", Corrupt) while the copied rows stay
// in the #sql-alter partitions. diagnose reported DDL_RECOVERY (info) and no error.
//
// The same crash, made deterministic: the server kills itself (killAtC) at chosen renames of the
// statement: while it renames the original partitions to the backup name (phase 6), and while it
// renames the new partitions to the table's name (phase 7). The judge is the server's own crash
// recovery of a copy: diagnose reports DDL_RECOVERY_FAILS (error) exactly when a table fails
// CHECK TABLE, naming it, quoting the messages the server's CHECK TABLE gives, and naming
// partitions the server's dictionary keeps and files it keeps. The negative controls are the same
// ALTER cut where the server's recovery completes it (after the new .par or .frm was renamed, while
// the backup is dropped) and a copying ALTER of a table that is not partitioned.
func TestSweep2206AlterPartitionedCopyCut(t *testing.T) {
	const keep = `CREATE TABLE db.keep (a INT PRIMARY KEY) ENGINE=InnoDB; INSERT INTO db.keep SELECT seq FROM seq_1_to_100;`
	const seed = `CREATE DATABASE db; CREATE TABLE db.t (id INT PRIMARY KEY, a INT, v VARCHAR(200), KEY(a)) ENGINE=InnoDB PAGE_COMPRESSED=1
		PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN (1000) DATA DIRECTORY='@EXT@', PARTITION p1 VALUES LESS THAN (1000000));
		INSERT INTO db.t SELECT seq, seq % 77, REPEAT(CHAR(97 + seq % 26), 72) FROM seq_1_to_2500; ` + keep
	const zip = `CREATE DATABASE db; CREATE TABLE db.t (id INT PRIMARY KEY, a INT, v VARCHAR(200), KEY(a)) ENGINE=InnoDB ROW_FORMAT=COMPRESSED
		PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN (1000), PARTITION p1 VALUES LESS THAN (1000000));
		INSERT INTO db.t SELECT seq, seq % 40, REPEAT('x', 100) FROM seq_1_to_2500; ` + keep
	const plain = `CREATE DATABASE db; CREATE TABLE db.t (id INT PRIMARY KEY, a INT, v VARCHAR(200), KEY(a)) ENGINE=InnoDB;
		INSERT INTO db.t SELECT seq, seq % 40, REPEAT('x', 100) FROM seq_1_to_2500; ` + keep
	const alter = "ALTER TABLE db.t FORCE, ALGORITHM=COPY"
	for _, c := range []struct {
		name, setup, at string
		loss            bool
	}{
		// phase 6: the rename of the original p0 to the backup name (not committed: InnoDB's
		// rollback renames it back), as in the seed
		{"copied", seed, "LAB_KILL_AFTER_RENAME=#P#p0.ibd", true},
		// phase 6: p0 has the backup name (committed), p1 is being renamed
		{"copied, one partition backed up", zip, "LAB_KILL_AFTER_RENAME=#P#p1.ibd", true},
		// phase 7: the original is the backup; the new p0 is being renamed to db/t#P#p0
		{"old renamed", seed, "LAB_KILL_AFTER_RENAME=/db/t#P#p0.ibd", true},
		// phase 7: the new p0 is db/t#P#p0 (committed), p1 is being renamed
		{"old renamed, one partition renamed", zip, "LAB_KILL_AFTER_RENAME=/db/t#P#p1.ibd", true},
		// phase 7 after the new .par (then the .frm) has the table's name: the table is whole
		{"par renamed", seed, "LAB_KILL_AFTER_RENAME=/db/t.par", false},
		{"frm renamed", zip, "LAB_KILL_AFTER_RENAME=/db/t.frm", false},
		// phase 7 while the backup is dropped
		{"backup dropped", zip, "LAB_KILL_AT_UNLINK=#P#p1.ibd", false},
		// not partitioned: phase 6 and phase 7
		{"not partitioned, copied", plain, "LAB_KILL_AFTER_RENAME=.ibd", false},
		{"not partitioned, old renamed", plain, "LAB_KILL_AFTER_RENAME=/db/t.ibd", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			base, crashed := killAt(t, c.setup, alter, c.at)
			judgeAlterRecovery(t, base, crashed, c.loss)
		})
	}
}

// judgeAlterRecovery diagnoses crashed, has the real server recover a copy (base/A) and compares:
// DDL_RECOVERY_FAILS (and no other error) exactly for the tables that fail the server's CHECK
// TABLE; its quoted CHECK TABLE messages are the server's; the files it names are in the crashed
// directory and the partitions it says keep the rows are in the server's dictionary after its
// recovery. wantLoss: the crash was made for the server to lose a table.
func judgeAlterRecovery(t *testing.T, base, crashed string, wantLoss bool) {
	t.Helper()
	// the files DDL_RECOVERY_FAILS names are in the crashed directory (checked before any server
	// runs: the server's recovery of a copy changes the DATA DIRECTORY files the log names)
	kept := regexp.MustCompile(`(\S+) \(space \d+, ([^)]+)\)`)
	for _, f := range diagnoseJSONOf(t, crashed).Findings {
		if f.Code != "DDL_RECOVERY_FAILS" {
			continue
		}
		files := []string{f.File}
		_, rows, _ := strings.Cut(f.Message, "the copied rows stay in ")
		for _, k := range kept.FindAllStringSubmatch(rows, -1) {
			files = append(files, k[2])
		}
		for _, p := range files {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("DDL_RECOVERY_FAILS names %s, which is not in the crashed directory: %v", p, err)
			}
		}
	}
	j, v := diagnoseThenServer(t, base, crashed, &lab.Scenario{Options: ddlFailOptions})
	if !v.Started || !v.CrashRecovery {
		t.Fatalf("the server's own recovery: started=%v crash_recovery=%v", v.Started, v.CrashRecovery)
	}
	lost := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(v.Checks), "\n") {
		if tab, verdict, _ := strings.Cut(l, "\t"); verdict != "OK" {
			lost[tab] = true
		}
	}
	if (len(lost) > 0) != wantLoss {
		t.Fatalf("the server's own recovery lost %v; the crash was made for a loss: %v", lost, wantLoss)
	}
	var fails []finding.Finding
	for _, f := range j.Findings {
		if f.Code == "DDL_RECOVERY_FAILS" {
			fails = append(fails, f)
		} else if f.Severity == finding.Error {
			t.Errorf("diagnose: %s %s: %s", f.Code, f.File, f.Message)
		}
	}
	named := map[string]bool{}
	table := regexp.MustCompile(`cannot complete ALTER TABLE (\S+) `)
	for _, f := range fails {
		m := table.FindStringSubmatch(f.Message)
		if f.Severity != finding.Error || m == nil || !lost[m[1]] {
			t.Errorf("DDL_RECOVERY_FAILS (%s) names no table the server's CHECK TABLE fails (%v): %s", f.Severity, lost, f.Message)
			continue
		}
		named[m[1]] = true
	}
	for tab := range lost {
		if !named[tab] {
			t.Errorf("the server's CHECK TABLE fails %s; diagnose: %d DDL_RECOVERY_FAILS naming %v\nfindings: %+v", tab, len(fails), named, j.Findings)
		}
	}
	if len(fails) == 0 || t.Failed() {
		return
	}
	// The server on its recovered copy: what CHECK TABLE says and which partitions it keeps.
	a := filepath.Join(base, "A")
	srv := startRowsServer(t, a)
	dict := map[string]bool{}
	for _, n := range strings.Fields(string(srv.sql(t, "SELECT name FROM information_schema.innodb_sys_tables"))) {
		dict[n] = true
	}
	quoted := regexp.MustCompile(`CHECK TABLE (\S+) fails: ((?:"[^"]*"(?:, )?)+)`)
	for _, f := range fails {
		q := quoted.FindStringSubmatch(f.Message)
		if q == nil {
			t.Errorf("DDL_RECOVERY_FAILS quotes no CHECK TABLE message: %s", f.Message)
			continue
		}
		out := string(srv.sql(t, "CHECK TABLE "+q[1]))
		for _, m := range regexp.MustCompile(`"([^"]*)"`).FindAllStringSubmatch(q[2], -1) {
			if !strings.Contains(out, "\t"+m[1]+"\n") {
				t.Errorf("DDL_RECOVERY_FAILS quotes %q; the server's CHECK TABLE %s says:\n%s", m[1], q[1], out)
			}
		}
		_, rows, _ := strings.Cut(f.Message, "the copied rows stay in ")
		ks := kept.FindAllStringSubmatch(rows, -1)
		if len(ks) == 0 {
			t.Errorf("DDL_RECOVERY_FAILS names no partition keeping the rows: %s", f.Message)
		}
		for _, k := range ks {
			if !dict[k[1]] {
				t.Errorf("DDL_RECOVERY_FAILS: the rows stay in %s; the server's dictionary has no such table after its recovery", k[1])
			}
		}
	}
	srv.shutdown(t)
}
