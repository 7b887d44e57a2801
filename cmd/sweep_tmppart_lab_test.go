package cmd

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"innoscope/discovery"
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
// (which the server on innoscope's copy left behind). The judge is the server's own recovery of
// each: the server on innoscope's copy must start without crash recovery, log no [ERROR] its own
// recovery did not, give the same CHECK TABLE and CHECKSUM TABLE, and leave the same files and
// the same live SYS_TABLES rows (names and space ids) as its own recovery.
func TestSweep1089TmpPartitionRolledBack(t *testing.T) {
	for _, name := range []string{"tmp_partition", "tmp_partition_create"} {
		t.Run(name, func(t *testing.T) { sweep1089(t, lab.Get(t, name)) })
	}
}

// sweep1089 recovers scenario s with innoscope and judges the copy by the server's own recovery.
func sweep1089(t *testing.T, s *lab.Scenario) {
	before := lab.HashTree(t, s.Crashed)
	cp := filepath.Join(t.TempDir(), "copy")
	out, errs, code := run("recover", s.Crashed, "--into", cp)
	if code != ExitClean {
		t.Fatalf("recover: exit %d\n%s\n%s", code, out, errs)
	}
	if !reflect.DeepEqual(before, lab.HashTree(t, s.Crashed)) {
		t.Errorf("%s changed", s.Crashed)
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
	if got, want := dbFiles(t, cp), dbFiles(t, server); !reflect.DeepEqual(got, want) {
		t.Errorf("files of db/ after the server ran on the copy: %v\nafter its own recovery: %v", got, want)
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

// dbFiles lists the files of dir/db.
func dbFiles(t *testing.T, dir string) []string {
	es, err := os.ReadDir(filepath.Join(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// liveTables maps the live SYS_TABLES rows of dir's system tablespace under db/ to their space id.
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
		if !r.Deleted && strings.HasPrefix(r.Name, "db/") {
			out[r.Name] = r.SpaceID
		}
	}
	return out
}
