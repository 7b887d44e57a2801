package replay

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"innoscope/discovery"
	"innoscope/logformat/redo"
)

// TestProfileRecover runs Open and Run on the crashed directory INNOSCOPE_PROFILE_RECOVER
// names (scripts/bench-recover.sh leaves one in /tmp/innoscope-bench-recover/crashed), into a
// temporary copy, and logs the phase times: a harness for `go test -cpuprofile`. Skipped
// without the variable.
func TestProfileRecover(t *testing.T) {
	dir := os.Getenv("INNOSCOPE_PROFILE_RECOVER")
	if dir == "" {
		t.Skip("INNOSCOPE_PROFILE_RECOVER names no crashed data directory")
	}
	t0 := time.Now()
	p, err := Open(discovery.Layout{Datadir: dir}, redo.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	open := time.Since(t0)
	into := filepath.Join(t.TempDir(), "copy")
	o, err := p.Run(RunOptions{Target: into})
	if err != nil {
		t.Fatal(err)
	}
	r := o.Result
	t.Logf("open %.2f s; seconds %v; %d mtrs, %d records applied, %d pages read, %d pages applied, %d batches",
		open.Seconds(), o.Seconds, r.MTRs, r.RecordsApplied, r.PagesRead, r.PagesApplied, r.Batches)
}
