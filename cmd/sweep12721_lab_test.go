package cmd

import (
	"innoscope/internal/lab"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweep12721RenameDataDirectorySameName is crash-sweep seed 12721 (--ddl-kill): RENAME
// TABLE db1.s2t1 TO db2.s2t1 of a DATA DIRECTORY table had committed before the crash. The
// server keeps such a file where it is when the rename leaves its file name unchanged, and
// writes no link for the new name; the log named no file of the table after the checkpoint,
// so the server's recovery did not open it, and the table failed after it ("Could not find a
// valid tablespace file for db2/s2t1"). diagnose read SYS_TABLES from disk, where the row still
// had the old name with its link, and said "will start" (recover's copy, whose dictionary is
// replayed, named the table). The lab's rename_dd_same makes that crash (RENAME TABLE db.x TO
// db2.x after a checkpoint, a change to another table, the kill); judged per crash by the
// server's own recovery (judgeTableCut). `recover --salvage` puts the file where the server
// looks for it: the server on that copy starts, every table passes CHECK TABLE, and db2.x has
// the CHECKSUM TABLE the live server gave db.x before the rename.
func TestSweep12721RenameDataDirectorySameName(t *testing.T) {
	s := lab.Get(t, "rename_dd_same")
	t.Logf("SYS_TABLES on disk: %v (db/x: the crash kept the rename in the log only)", liveTables(t, s.Crashed))
	judgeTableCut(t, "rename_dd_same", "db2.x", "MISSING_FILE")
	cp := filepath.Join(t.TempDir(), "salvaged")
	out, errs, code := run("recover", "--salvage", s.Crashed, "--into", cp)
	if code != ExitClean {
		t.Fatalf("recover --salvage: exit %d\n%s\n%s", code, out, errs)
	}
	v := s.ServerVerdict(t, cp)
	if !v.Started || v.CrashRecovery || !v.TablesOK {
		t.Errorf("the server on the salvaged copy: started=%v crash_recovery=%v tables_ok=%v\n%s", v.Started, v.CrashRecovery, v.TablesOK, v.Checks)
	}
	b, err := os.ReadFile(filepath.Join(s.Dir, "renamed_checksum.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(string(b)); !strings.Contains(v.Checksums, want) {
		t.Errorf("CHECKSUM TABLE on the salvaged copy:\n%s\nthe live server's before the rename: %s", v.Checksums, want)
	}
}
