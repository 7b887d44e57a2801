package cmd

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// serverRollback is the line the server prints at start-up about the transactions its crash
// recovery resurrects.
var serverRollback = regexp.MustCompile(`(\d+) transaction\(s\) which must be rolled back or cleaned up in total (\d+) row operations to undo`)

// TestRollbackForecast compares diagnose's rollback forecast (ROLLBACK_PENDING and the JSON's
// rollback) with what the real server printed when it recovered the same crash: on the lab
// crashes cut inside a DDL transaction, and on a crash killed while a large and a small
// transaction were open and an XA transaction was prepared (cmd/testdata/rollback-crash.sh).
func TestRollbackForecast(t *testing.T) {
	for _, name := range []string{"tmp_partition", "tmp_partition_create", "tmp_partition_dd"} {
		t.Run(name, func(t *testing.T) {
			s := lab.Get(t, name)
			where, _ := splitOptions(s.Options)
			checkForecast(t, s.Crashed, s.Verdict.ErrLog, where)
		})
	}
	t.Run("mid-transaction", func(t *testing.T) {
		lab.Require(t)
		out := t.TempDir()
		if b, err := exec.Command("bash", filepath.Join("testdata", "rollback-crash.sh"), out).CombinedOutput(); err != nil {
			t.Fatalf("rollback-crash.sh: %v\n%s", err, b)
		}
		crashed := filepath.Join(out, "crashed")
		cp := filepath.Join(t.TempDir(), "copy")
		lab.CopyDir(t, crashed, cp)
		v := filepath.Join(t.TempDir(), "verdict")
		b, err := exec.Command("bash", filepath.Join(lab.Root(), "scripts", "mariadb-lab.sh"), "verdict", cp, v,
			"--innodb-log-file-size=64M").CombinedOutput()
		if err != nil {
			t.Fatalf("lab verdict: %v\n%s", err, b)
		}
		f := checkForecast(t, crashed, v+".err", nil)
		if f.Rollback == nil || f.Rollback.Prepared != 1 || f.Rollback.Transactions != 3 {
			t.Errorf("the crash should leave 3 transactions, 1 prepared: %+v", f.Rollback)
		}
	})
}

// checkForecast runs diagnose on dir and compares its forecast with the server's error log.
func checkForecast(t *testing.T, dir, errLog string, where []string) diagnoseJSON {
	t.Helper()
	b, err := os.ReadFile(errLog)
	if err != nil {
		t.Fatal(err)
	}
	m := serverRollback.FindStringSubmatch(string(b))
	if m == nil {
		t.Fatalf("%s: the server printed no rollback line", errLog)
	}
	n, _ := strconv.Atoi(m[1])
	rows, _ := strconv.ParseUint(m[2], 10, 64)
	var d diagnoseJSON
	out, errs, code := run(append([]string{"diagnose", "--json", "--skip-pages", dir}, where...)...)
	if code == ExitError {
		t.Fatalf("diagnose: exit %d\n%s", code, errs)
	}
	if err := jsonUnmarshalString(out, &d); err != nil {
		t.Fatal(err)
	}
	if d.Rollback == nil || d.Rollback.Transactions != n || d.Rollback.RowsToUndo != rows {
		t.Errorf("forecast %+v; the server: %d transaction(s), %d row operations to undo", d.Rollback, n, rows)
	}
	found := false
	for _, f := range d.Findings {
		if f.Code == "ROLLBACK_PENDING" {
			found = strings.Contains(f.Message, m[0])
			t.Logf("%s", f.Message)
		}
	}
	if !found {
		t.Errorf("no ROLLBACK_PENDING finding quoting %q", m[0])
	}
	return d
}

// jsonUnmarshalString decodes s into v.
func jsonUnmarshalString(s string, v any) error { return json.Unmarshal([]byte(s), v) }
