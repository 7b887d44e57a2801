package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/logformat"
	"innoscope/logformat/logformattest"
)

// TestLogChangesOtherFormat: a log of another format than MariaDB 10.8+ (here a MariaDB 10.5
// ring of 512-byte blocks) is refused with exit 2, the log named and the next step given;
// a bad --format or --reverse without sql is refused before the log is read.
func TestLogChangesOtherFormat(t *testing.T) {
	b, err := logformattest.NewMLogBuilder(512*6000, "MariaDB 10.5.23")
	if err != nil {
		t.Fatal(err)
	}
	last := b.AddPhysMTR(logformattest.PageRecord(logformat.Write, false, 5, 3, append(logformat.AppendVarint(nil, 100), make([]byte, 30)...)))
	dir := t.TempDir()
	for k, img := range b.Ring(logformat.FormatMariaDB105, 2, 2048+8*512, 3*512, last, 42) {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("ib_logfile%d", k)), img, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, errs, code := run("log", "changes", dir)
	if code != ExitError || out != "" || !strings.Contains(errs, "ib_logfile0") || !strings.Contains(errs, "MariaDB 10.8+") ||
		!strings.Contains(errs, "log records") {
		t.Errorf("log changes on a 10.5 log: exit %d, stdout %q, stderr %s", code, out, errs)
	}
	for _, args := range [][]string{{"--format", "csv"}, {"--reverse"}} {
		if _, errs, code := run(append([]string{"log", "changes", dir}, args...)...); code != ExitError || !strings.Contains(errs, "--format") {
			t.Errorf("log changes %v: exit %d, %s", args, code, errs)
		}
	}
}
