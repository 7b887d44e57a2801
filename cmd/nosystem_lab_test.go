package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"innoscope/finding"
	"innoscope/replay"
)

// TestMissingSystemTablespaceAgainstServer: ibdata1 deleted from a crashed directory whose log
// is there. MariaDB 10.11 refuses to start ("redo log file './ib_logfile0' exists. Creating
// system tablespace with existing redo log file is not recommended"); innoscope said "mariadbd
// will start, but tables will fail: UNREADABLE_DATAFILE", and recover's refusal named no way
// out. Now diagnose's verdict is the refusal (MISSING_FILE quoting the server's line, with what
// can be done), verify fails, and recover and recover --salvage refuse with the same next step,
// before anything is copied.
func TestMissingSystemTablespaceAgainstServer(t *testing.T) {
	d := damage(t, "dml", func(t *testing.T, dir string) {
		if err := os.Remove(filepath.Join(dir, "ibdata1")); err != nil {
			t.Fatal(err)
		}
	})
	said := regexp.MustCompile(`redo log file '[^']+' exists\. Creating system tablespace with existing redo log file is not recommended`).FindString(d.errLog)
	if d.server.Started || said == "" {
		t.Fatalf("the server started, or refused without the line about the redo log: %+v", d.server)
	}
	j, code := d.diagnose(t)
	fs := findings(j, "MISSING_FILE")
	if code != ExitFindings || len(fs) != 1 || fs[0].Severity != finding.Error || filepath.Base(fs[0].File) != "ibdata1" ||
		!strings.Contains(fs[0].Message, said) {
		t.Errorf("diagnose: exit %d, MISSING_FILE %+v; the server says %q", code, fs, said)
	}
	if u := findings(j, "UNREADABLE_DATAFILE"); len(u) != 0 {
		t.Errorf("UNREADABLE_DATAFILE beside the refusal: %+v", u)
	}
	out, _, _ := run("diagnose", d.dir)
	if first, _, _ := strings.Cut(out, "\n"); !strings.HasPrefix(first, "mariadbd will refuse to start: MISSING_FILE") {
		t.Errorf("verdict %q", first)
	}
	vout, verrs, vcode := run("verify", "--json", "--tmpdir", d.base, d.dir)
	var vj replay.Verification
	if err := json.Unmarshal([]byte(vout), &vj); err != nil || vj.OK || vcode != ExitFindings {
		t.Errorf("verify: exit %d ok=%v %v\n%s", vcode, vj.OK, err, verrs)
	}
	for _, salvage := range []bool{false, true} {
		args := []string{"recover", d.dir, "--into", filepath.Join(d.base, "copy")}
		if salvage {
			args = append(args, "--salvage")
		}
		_, errs, code := run(args...)
		if code != ExitError || !strings.Contains(errs, said) || !strings.Contains(errs, "IMPORT TABLESPACE") {
			t.Errorf("%v: exit %d, want 2 with the server's refusal and a next step: %s", args, code, errs)
		}
		if _, err := os.Stat(filepath.Join(d.base, "copy")); err == nil {
			t.Errorf("%v refused only after it had made the copy", args)
		}
	}
}
