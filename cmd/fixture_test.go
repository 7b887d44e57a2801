package cmd

import (
	"path/filepath"
	"testing"

	"innoscope/internal/lab"
)

// TestBundledFixture checks `log stats` on the committed real crash log against what the
// server printed when scripts/make-fixtures.sh made it (fixtures/mariadb-10.11-crash).
func TestBundledFixture(t *testing.T) {
	dir := filepath.Join(lab.Root(), "fixtures", "mariadb-10.11-crash")
	v, err := lab.ReadVerdict(filepath.Join(dir, "server-verdict.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var st statsJSON
	runJSON(t, &st, "log", "stats", "--json", dir)
	if !v.CrashRecovery || st.CheckpointLSN != v.CheckpointLSN || st.EndLSN != v.EndLSN || !st.CrashRecovery {
		t.Errorf("innoscope: checkpoint %d, end %d, recovery %v; server: checkpoint %d, end %d, recovery %v",
			st.CheckpointLSN, st.EndLSN, st.CrashRecovery, v.CheckpointLSN, v.EndLSN, v.CrashRecovery)
	}
	if st.RecordsByType["FILE_CREATE"] != 1 || st.RecordsByType["FILE_RENAME"] != 1 || st.MalformedRecords != 0 {
		t.Errorf("records %v, malformed %d", st.RecordsByType, st.MalformedRecords)
	}
}
