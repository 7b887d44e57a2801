package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// TestLogHeaderTablePrintsFindings: on a log of 512-byte blocks (a real MariaDB 10.5 crash)
// whose selected checkpoint block has a flipped byte, `log header` must print as a table the
// findings its --json gives (before, the table form of a block log printed none of them).
func TestLogHeaderTablePrintsFindings(t *testing.T) {
	s := lab.MariaDB105.Get(t, "dml105")
	dir := t.TempDir()
	logPath := filepath.Join(dir, "ib_logfile0")
	b, err := os.ReadFile(filepath.Join(s.Crashed, "ib_logfile0"))
	if err != nil {
		t.Fatal(err)
	}
	var h headerJSON
	runJSON(t, &h, "log", "header", "--json", s.Crashed)
	sel := int64(-1)
	for _, c := range h.Checkpoints {
		if c.Selected {
			sel = c.Offset
		}
	}
	if sel < 0 || len(h.Findings) != 0 {
		t.Fatalf("the crash's header: selected checkpoint at %d, findings %+v", sel, h.Findings)
	}
	b[sel+4] ^= 0xff // inside the checkpoint's LSN field, covered by its checksum
	if err := os.WriteFile(logPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	runJSON(t, &h, "log", "header", "--json", logPath)
	if len(h.Findings) == 0 {
		t.Fatalf("no finding for a damaged selected checkpoint: %+v", h.Checkpoints)
	}
	out, _, _ := run("log", "header", logPath)
	flat := strings.Join(strings.Fields(strings.NewReplacer("│", " ", "\n", " ").Replace(out)), " ")
	for _, f := range h.Findings {
		if !strings.Contains(out, f.Code) || !strings.Contains(flat, strings.Join(strings.Fields(f.Message), " ")) {
			t.Errorf("the table lacks finding %s %q:\n%s", f.Code, f.Message, out)
		}
	}
}

// TestLogHeaderDamagedHeaderBlock: one bit of the header block's unused bytes flipped in a real
// crash's log. The real server refuses it ("Invalid log header checksum"); log header still shows
// the header and both checkpoints as the undamaged log's (they are intact), says the CRC is
// invalid, and reports LOG_UNREADABLE (exit 1), where it refused to show anything (new-user
// trial); diagnose says the server refuses.
func TestLogHeaderDamagedHeaderBlock(t *testing.T) {
	d := damage(t, "dml", func(t *testing.T, dir string) {
		p := filepath.Join(dir, "ib_logfile0")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b[100] ^= 1
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	})
	if d.server.Started || !strings.Contains(d.errLog, "Invalid log header checksum") {
		t.Fatalf("the server started (%v) or did not say the header checksum is invalid", d.server.Started)
	}
	var want, got headerJSON
	runJSON(t, &want, "log", "header", "--json", d.s.Crashed)
	out, errs, code := run("log", "header", "--json", d.dir)
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("log header: exit %d, %v: %s", code, err, errs)
	}
	if code != ExitFindings || got.HeaderCRCValid || !reflect.DeepEqual(got.Checkpoints, want.Checkpoints) ||
		len(got.Findings) == 0 || got.Findings[0].Code != "LOG_UNREADABLE" || !strings.Contains(got.Findings[0].Message, "Invalid log header checksum") {
		t.Errorf("log header: exit %d, crc valid %v, checkpoints %+v (undamaged: %+v), findings %+v", code, got.HeaderCRCValid, got.Checkpoints, want.Checkpoints, got.Findings)
	}
	if j, code := d.diagnose(t); code != ExitFindings || len(findings(j, "LOG_UNREADABLE")) != 1 {
		t.Errorf("diagnose: exit %d, %+v", code, j.Findings)
	}
}
