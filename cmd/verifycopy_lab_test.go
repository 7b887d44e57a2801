package cmd

import (
	"innoscope/discovery"
	"innoscope/internal/lab"
	"innoscope/logformat"
	"innoscope/replay"
	"os"
	"path/filepath"
	"testing"
)

// TestVerifyCopyChecks runs the checks verify makes of its replayed copy on real directories:
// the crashed directory itself (its log still holds records past the checkpoint) is
// COPY_LOG_NOT_CLEAN, and the server's own recovered, cleanly shut down directory passes.
func TestVerifyCopyChecks(t *testing.T) {
	s := lab.Get(t, "dml")
	check := func(dir string, end uint64) map[string]bool {
		got := map[string]bool{}
		replay.CheckCopy(dir, discovery.Layout{Datadir: dir}, end, func(code, file, msg string) {
			got[code] = true
			t.Logf("%s %s: %s", code, file, msg)
		})
		return got
	}
	if got := check(s.Crashed, s.Verdict.EndLSN); !got["COPY_LOG_NOT_CLEAN"] || len(got) != 1 {
		t.Errorf("crashed directory: %v, want COPY_LOG_NOT_CLEAN only", got)
	}
	server := filepath.Join(s.Dir, "server")
	f, err := os.Open(filepath.Join(server, "ib_logfile0"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	l, _, err := logformat.Open(f, fi.Size(), f.Name())
	if err != nil {
		t.Fatal(err)
	}
	cp, _ := l.Checkpoint()
	if got := check(server, cp.LSN); len(got) != 0 {
		t.Errorf("the server's recovered directory: %v", got)
	}
}
