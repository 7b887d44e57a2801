package cmd

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDiagnoseFileRenamedByHand: a table file the log changes, renamed by hand (db/t2.ibd to
// db/t2_backup.ibd). The real server refuses, naming the space id and the file it looked for;
// diagnose's MISSING_FILE names the same, and the file that carries that id with the way out
// (rename back, or recover --salvage); the renamed file's ORPHAN_FILE says the log names its
// space id elsewhere (it said no dictionary entry or log record refers to it: new-user trial).
func TestDiagnoseFileRenamedByHand(t *testing.T) {
	d := damage(t, "dml", func(t *testing.T, dir string) {
		mv(t, filepath.Join(dir, "db/t2.ibd"), filepath.Join(dir, "db/t2_backup.ibd"))
	})
	m := regexp.MustCompile(`Tablespace (\d+) was not found at (\S+?\.ibd)`).FindStringSubmatch(d.errLog)
	if d.server.Started || m == nil {
		t.Fatalf("the server started (%v) or did not say which tablespace it did not find", d.server.Started)
	}
	id, _ := strconv.ParseUint(m[1], 10, 32)
	j, code := d.diagnose(t)
	missing, orphan := findings(j, "MISSING_FILE"), findings(j, "ORPHAN_FILE")
	if code != ExitFindings || len(missing) != 1 || missing[0].SpaceID == nil || uint64(*missing[0].SpaceID) != id ||
		!strings.HasSuffix(missing[0].File, strings.TrimPrefix(m[2], ".")) {
		t.Fatalf("diagnose: exit %d, MISSING_FILE %+v; the server did not find space %d at %s", code, missing, id, m[2])
	}
	if !strings.Contains(missing[0].Message, "t2_backup.ibd carries space "+m[1]) || !strings.Contains(missing[0].Message, "recover --salvage") {
		t.Errorf("MISSING_FILE does not name the file carrying space %d and the salvage: %s", id, missing[0].Message)
	}
	if len(orphan) != 1 || strings.Contains(orphan[0].Message, "no dictionary entry or log record") || !strings.Contains(orphan[0].Message, m[2]) {
		t.Errorf("ORPHAN_FILE %+v; the log names space %d %s", orphan, id, m[2])
	}
}
