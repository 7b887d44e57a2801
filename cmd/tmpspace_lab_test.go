package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/finding"
	"innoscope/replay"
)

// TestTemporaryTablespaceAgainstServer: a 0-byte or garbage ibtmp1 was an UNREADABLE_DATAFILE
// error ("mariadbd will start, but tables will fail"), verify FAILED and recover exited 1 (its
// copy's diagnosis saw the same file), while the server removes ibtmp1 and creates it anew at
// every start. Now it is one info finding, and diagnose, verify and recover have an error
// exactly when the server refused or a table failed CHECK TABLE on the same directory.
func TestTemporaryTablespaceAgainstServer(t *testing.T) {
	for _, c := range []struct {
		name    string
		content []byte
	}{
		{"empty", nil},
		{"garbage", bytes.Repeat([]byte{0xff}, 16384)}, // FSP flags 0xffffffff: no valid page size
	} {
		t.Run(c.name, func(t *testing.T) {
			d := damage(t, "dml", func(t *testing.T, dir string) {
				if err := os.WriteFile(filepath.Join(dir, "ibtmp1"), c.content, 0o660); err != nil {
					t.Fatal(err)
				}
			})
			if !d.server.Started || !strings.Contains(d.errLog, "Removed temporary tablespace data file") {
				t.Fatalf("the server did not start and recreate ibtmp1: %+v", d.server)
			}
			j, code := d.diagnose(t)
			fs := findings(j, "UNREADABLE_DATAFILE")
			if len(fs) != 1 || fs[0].Severity != finding.Info || filepath.Base(fs[0].File) != "ibtmp1" {
				t.Errorf("UNREADABLE_DATAFILE %+v, want one info finding on ibtmp1", fs)
			}
			lost := d.serverLost()
			if (j.Summary["error"] > 0) != lost || (code == ExitFindings) != lost {
				t.Errorf("diagnose: exit %d, %d errors; the server: started=%v tables ok=%v", code, j.Summary["error"], d.server.Started, d.server.TablesOK)
			}
			vout, verrs, vcode := run("verify", "--json", "--tmpdir", d.base, d.dir)
			var vj replay.Verification
			if err := json.Unmarshal([]byte(vout), &vj); err != nil || vj.OK == lost || (vcode == ExitFindings) != lost {
				t.Errorf("verify: exit %d ok=%v %v\n%s", vcode, vj.OK, err, verrs)
			}
			if rcode, errs := d.recover(t); (rcode == ExitFindings) != lost || rcode == ExitError {
				t.Errorf("recover: exit %d: %s", rcode, errs)
			}
		})
	}
}
