package replay

import (
	"fmt"
	"path/filepath"
	"testing"

	"innoscope/discovery"
	"innoscope/internal/lab"
	"innoscope/logformat/redo"
)

// TestDecodedSameCopy: the replay of the mini-transactions the pre-pass decoded and kept
// (redo.Decoded), which writes each page once its last mini-transaction is applied (early.go),
// makes, byte for byte, the copy the replay makes by decoding the log again and writing pages
// in batches only (the path of a log whose decoding is more than the memory allowed), with one
// batch and with many,
// on crashes of the real server with DDL, DATA DIRECTORY tables, undo truncation, compressed
// and 4k pages.
func TestDecodedSameCopy(t *testing.T) {
	defer func(n int64) { decodedLimit = n }(decodedLimit)
	for _, name := range []string{"dml", "ddl", "ddl_churn", "data_directory", "undo", "compressed", "compressed_new_4k", "alter_force", "instant"} {
		t.Run(name, func(t *testing.T) {
			s := lab.Get(t, name)
			tmp := t.TempDir()
			run := func(dir string, limit, cache int64) *Outcome {
				decodedLimit = limit
				p, err := Open(discovery.Layout{Datadir: s.Crashed}, redo.ScanOptions{})
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				if kept := p.decoded != nil; kept != (limit > 0) {
					t.Fatalf("limit %d: decoding kept: %v", limit, kept)
				}
				o, err := p.Run(RunOptions{Target: filepath.Join(tmp, dir), CacheBytes: cache})
				if err != nil {
					t.Fatal(err)
				}
				return o
			}
			for _, cache := range []int64{0, 1 << 20} {
				again, kept := fmt.Sprintf("again-%d", cache), fmt.Sprintf("kept-%d", cache)
				ref := run(again, 0, cache)
				o := run(kept, 1<<30, cache)
				if o.Result.MTRs != ref.Result.MTRs || o.Result.RecordsApplied != ref.Result.RecordsApplied ||
					o.Result.RecordsSkipped != ref.Result.RecordsSkipped || o.Result.EndLSN != ref.Result.EndLSN {
					t.Errorf("cache %d: kept: %d mini-transactions, %d records applied, %d skipped, end %d; decoded again: %d, %d, %d, %d", cache,
						o.Result.MTRs, o.Result.RecordsApplied, o.Result.RecordsSkipped, o.Result.EndLSN,
						ref.Result.MTRs, ref.Result.RecordsApplied, ref.Result.RecordsSkipped, ref.Result.EndLSN)
				}
				for _, sub := range []string{"", ExternalSuffix} {
					sameTree(t, filepath.Join(tmp, again)+sub, filepath.Join(tmp, kept)+sub)
				}
				if ref.Result.early != 0 || o.Result.early == 0 {
					t.Errorf("cache %d: %d pages written early decoding again, %d keeping the decoding", cache, ref.Result.early, o.Result.early)
				}
				t.Logf("cache %d: %d batches, %d pages applied (%d written early), same copy", cache, o.Result.Batches, o.Result.PagesApplied, o.Result.early)
			}
		})
	}
}
