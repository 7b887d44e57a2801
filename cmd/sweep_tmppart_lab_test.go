package cmd

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/internal/lab"
)

// TestSweep1089TmpPartitionRolledBack is crash-sweep seed 1089: the crash cut ALTER TABLE ...
// ADD PARTITION of a HASH table after ha_partition had renamed the file of a new partition from
// s2t1#P#p1#TMP#.ibd to s2t1#P#p1.ibd and before the rename's transaction committed. The
// server's own recovery opens the tablespace from the log under the new name; its rollback
// restores the SYS_TABLES row s2t1#P#p1#TMP# and renames the file back, and the DDL log then
// renames the partition forward again. innoscope's copy kept the file at the new name: the
// server on it (no crash recovery, so no tablespace from the log) found no file for the row the
// rollback restored ("Cannot open datafile for read-only: './db1/s2t1#P#p1#TMP#.ibd'") and lost
// the partition ("Failed to open table db1/s2t1#P#p1").
//
// The lab's tmp_partition scenario makes that crash with the real server at that exact point (it
// kills itself right after the rename of ph#P#p1#TMP#.ibd); tmp_partition_create right after it
// created the file ph#P#p1#TMP#.ibd, whose creation the rollback undoes by deleting the file
// (which the server on innoscope's copy left behind); tmp_partition_dd right after REORGANIZE
// PARTITION renamed the DATA DIRECTORY file pr#P#p1a#TMP#.ibd (the rollback moves the file and
// its .isl back). The judge is the server's own recovery of each: the server on innoscope's copy
// must start without crash recovery, log no [ERROR] its own recovery did not, give the same CHECK
// TABLE and CHECKSUM TABLE, and leave the same files (in the data directory and the external
// one; an .isl naming no file is not counted: the server's own recovery of tmp_partition_dd
// leaves pr#P#p1a#TMP#.isl behind after failing to write it again) and the same live SYS_TABLES
// rows (names and space ids) as its own recovery. The source never changes.
func TestSweep1089TmpPartitionRolledBack(t *testing.T) {
	for _, name := range []string{"tmp_partition", "tmp_partition_create", "tmp_partition_dd"} {
		t.Run(name, func(t *testing.T) { sweep1089(t, lab.Get(t, name)) })
	}
}

// TestSweep10026RenameAcrossDatabases is crash-sweep seed 10026 (--ddl-kill): the crash cut
// RENAME TABLE db2.s1t1 TO db1.s1t4, ..., db1.s1t4 TO db2.s1t3 of a DATA DIRECTORY table after
// the last file rename was logged. The server keeps such a file in its directory and gives it
// the new table's name (its log renamed DIR/db2/s1t1.ibd to DIR/db2/s1t4.ibd), and its rollback
// renames it back the same way; innoscope's rollback moved it to DIR/db1/s1t4.ibd, a directory
// that does not exist, and recover stopped (exit 2) where the server recovers. The lab's
// rename_dd_db makes the crash at that exact point (RENAME TABLE db2.x TO db.y, db.y TO db2.z,
// killed right after the file became DIR/db2/z.ibd); judged as sweep1089 judges.
func TestSweep10026RenameAcrossDatabases(t *testing.T) { sweep1089(t, lab.Get(t, "rename_dd_db")) }

// sweep1089 recovers scenario s with innoscope and judges the copy by the server's own recovery.
func sweep1089(t *testing.T, s *lab.Scenario) {
	var before []map[string]string
	for _, d := range sourceTrees(s) {
		before = append(before, lab.HashTree(t, d))
	}
	cp := filepath.Join(t.TempDir(), "copy")
	out, errs, code := run("recover", s.Crashed, "--into", cp)
	if code != ExitClean {
		t.Fatalf("recover: exit %d\n%s\n%s", code, out, errs)
	}
	for i, d := range sourceTrees(s) {
		if !reflect.DeepEqual(before[i], lab.HashTree(t, d)) {
			t.Errorf("%s changed", d)
		}
	}
	v := s.ServerVerdict(t, cp)
	t.Logf("server on the copy: started=%v crash_recovery=%v tables_ok=%v\n%s", v.Started, v.CrashRecovery, v.TablesOK, serverLines(t, v.ErrLog))
	if !v.Started || v.CrashRecovery || !v.TablesOK {
		t.Errorf("the server on innoscope's copy: started=%v crash_recovery=%v tables_ok=%v; after its own recovery:\n%s\non the copy:\n%s",
			v.Started, v.CrashRecovery, v.TablesOK, s.Checks(t), v.Checks)
	}
	if want := s.Checksums(t); v.Checksums != want {
		t.Errorf("CHECKSUM TABLE on the copy:\n%s\nafter the server's own recovery:\n%s", v.Checksums, want)
	}
	own := errorMessages(t, s.Verdict.ErrLog)
	for m := range errorMessages(t, v.ErrLog) {
		if !own[m] {
			t.Errorf("the server on the copy logged [ERROR] %s; its own recovery did not", m)
		}
	}
	server := filepath.Join(s.Dir, "server")
	// The server's own directory names its external files under the scenario's ext/, which now
	// leads to ext-crashed/; it recovered (and left its files in) ext-server/.
	root, err := filepath.EvalSymlinks(s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	serverLink := strings.NewReplacer(filepath.Join(root, "ext")+"/", filepath.Join(root, "ext-server")+"/")
	if got, want := dbFiles(t, cp, nil), dbFiles(t, server, serverLink); !reflect.DeepEqual(got, want) {
		t.Errorf("database files after the server ran on the copy: %v\nafter its own recovery: %v", got, want)
	}
	if ext, _ := filepath.Glob(cp + ".external/*"); len(ext) == 1 {
		if got, want := dbFiles(t, ext[0], nil), dbFiles(t, filepath.Join(s.Dir, "ext-server"), nil); !reflect.DeepEqual(got, want) {
			t.Errorf("files of the external db/ and db2/ after the server ran on the copy: %v\nafter its own recovery: %v", got, want)
		}
	}
	if got, want := liveTables(t, cp), liveTables(t, server); !reflect.DeepEqual(got, want) {
		t.Errorf("SYS_TABLES after the server ran on the copy: %v\nafter its own recovery: %v", got, want)
	}
}

// errorMessages are the [ERROR] messages of a server error log, without their time stamps.
func errorMessages(t *testing.T, errLog string) map[string]bool {
	b, err := os.ReadFile(errLog)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		if _, m, ok := strings.Cut(l, "[ERROR] "); ok {
			out[m] = true
		}
	}
	return out
}

// dbFiles lists the files of the databases db and db2 of dir (as db/name), without the .isl
// files that name no file (their targets rewritten by link, when not nil).
func dbFiles(t *testing.T, dir string, link *strings.Replacer) []string {
	var out []string
	for _, db := range []string{"db", "db2"} {
		es, err := os.ReadDir(filepath.Join(dir, db))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			if strings.HasSuffix(e.Name(), ".isl") {
				target, err := discovery.ReadISL(filepath.Join(dir, db, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				if link != nil {
					target = link.Replace(target)
				}
				if _, err := os.Stat(target); err != nil {
					continue
				}
			}
			out = append(out, db+"/"+e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// liveTables maps the live SYS_TABLES rows of dir's system tablespace under db/ and db2/ to their space id.
func liveTables(t *testing.T, dir string) map[string]uint32 {
	f, err := discovery.OpenFile(filepath.Join(dir, "ibdata1"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := discovery.ReadDictTables(f)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]uint32{}
	for _, r := range rows {
		if !r.Deleted && (strings.HasPrefix(r.Name, "db/") || strings.HasPrefix(r.Name, "db2/")) {
			out[r.Name] = r.SpaceID
		}
	}
	return out
}

// TestSweep10121InplaceAlterPartitioned is crash-sweep seed 10121: the crash cut ALTER TABLE
// ... ADD COLUMN ..., ALGORITHM=INSTANT of a partitioned table after the DDL log marked it
// "inplace" and before InnoDB committed it. The server's DDL recovery installs the new .frm
// anyway (it asks the partition engine, which has no version check), so the table has one
// column more in its .frm than in InnoDB and fails CHECK TABLE ("Corrupt") after the server's
// own recovery; diagnose said "will start and apply 17 pages" and recover exited 0. The lab's
// inplace_part makes the crash at that exact point (killat.so kills the server right after it
// wrote phase 3 to ddl_recovery.log). Judged per crash: diagnose has an FRM_COLUMNS_MISMATCH
// error for db.p exactly when CHECK TABLE of db.p failed after the server's own recovery, and
// recover exits 1 naming the table; the server on the copy gives the same CHECK TABLE results.
func TestSweep10121InplaceAlterPartitioned(t *testing.T) {
	judgeTableCut(t, "inplace_part", "db.p", "FRM_COLUMNS_MISMATCH")
}

// TestSweep13704InplaceIndexPartitioned is crash-sweep seed 13704 (--ddl-kill): the crash cut
// ALTER TABLE ... ADD INDEX of a partitioned table after the DDL log marked it "inplace". The
// server's DDL recovery installs the new .frm (3 indexes) while InnoDB's partitions, after
// crash recovery, have 2: the table fails ("contains 2 indexes inside InnoDB, which is different
// from the number of indexes 3 defined in the .frm file", a CHECK TABLE warning). diagnose said
// 0 errors, and recover exited 0 (its copy failed alike). The lab's inplace_part_index makes
// that cut (killat.so after phase 3 of ddl_recovery.log); judged per crash as seed 10121.
func TestSweep13704InplaceIndexPartitioned(t *testing.T) {
	judgeTableCut(t, "inplace_part_index", "db.p", "FRM_INDEXES_MISMATCH")
}

// TestSweep11550CreatePartitionedCut: crash-sweep seed 11550 cut CREATE TABLE ... LIKE of a
// partitioned table right after the new table's .frm was created, empty. The server's DDL
// recovery drops such a table through the partition engine, which reads the .frm first: the
// drop fails, the recovery leaves the .frm, and the table fails ("Incorrect information in
// file"). diagnose said only DDL_RECOVERY (info) and recover exited 0 before. The lab's
// create_part_frm makes that crash (killat.so right after the .frm's creation); the server's
// own recovery of it is the judge.
func TestSweep11550CreatePartitionedCut(t *testing.T) {
	judgeTableCut(t, "create_part_frm", "db.pl", "FRM_UNREADABLE")
}

// judgeTableCut judges a lab crash whose DDL cut leaves table failing after the server's own
// recovery (or not: per crash): diagnose has one error finding code naming it exactly when
// CHECK TABLE of it did not say OK (an error, or a warning as the sweep counts it), and no other
// error; recover exits 1 naming it, and on the copy the server fails the same tables (its
// message may differ: it warns once, to whichever statement opens the table first).
func judgeTableCut(t *testing.T, scenario, table, code string) {
	s := lab.Get(t, scenario)
	failed := !strings.Contains(s.Checks(t), table+"\tOK\n") // an error or a warning
	t.Logf("CHECK TABLE after the server's own recovery:\n%s", s.Checks(t))
	var j diagnoseJSON
	out, errs, exit := run("diagnose", "--json", s.Crashed)
	if err := json.Unmarshal([]byte(out), &j); err != nil || exit == ExitError {
		t.Fatalf("diagnose: exit %d, %v: %s", exit, err, errs)
	}
	fs := findings(j, code)
	if got := len(fs) == 1 && fs[0].Severity == finding.Error && strings.Contains(fs[0].Message, table+" "); got != failed {
		t.Errorf("diagnose: %s %+v; %s failed CHECK TABLE after the server's own recovery: %v", code, fs, table, failed)
	}
	if (j.Summary["error"] > 0) != failed {
		t.Errorf("diagnose: %d errors; %s failed after the server's own recovery: %v", j.Summary["error"], table, failed)
	}
	cp := filepath.Join(t.TempDir(), "copy")
	out, errs, exit = run("recover", s.Crashed, "--into", cp)
	if want := map[bool]int{true: ExitFindings, false: ExitClean}[failed]; exit != want || failed && !strings.Contains(out, table) {
		t.Fatalf("recover: exit %d, want %d\n%s\n%s", exit, want, out, errs)
	}
	v := s.ServerVerdict(t, cp)
	if !v.Started || v.CrashRecovery || !slices.Equal(failingChecks(v.Checks), failingChecks(s.Checks(t))) {
		t.Errorf("the server on the copy: started=%v crash_recovery=%v, CHECK TABLE:\n%s\nafter its own recovery:\n%s", v.Started, v.CrashRecovery, v.Checks, s.Checks(t))
	}
}
