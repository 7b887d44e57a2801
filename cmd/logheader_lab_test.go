package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// TestLogHeaderTablePrintsFindings: on a log of 512-byte blocks (a real MariaDB 10.5 crash)
// whose selected checkpoint block has a flipped byte, `log header` must print as a table the
// findings its --json gives (before, the table form of a block log printed none of them).
func TestLogHeaderTablePrintsFindings(t *testing.T) {
	s := lab.Get105(t, "dml105")
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
