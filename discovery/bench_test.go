package discovery

import (
	"os"
	"testing"
)

// BenchmarkInspectVerify checks every page of the file named by INNOSCOPE_BENCH_IBD (made by
// scripts/bench-pages.sh); it is skipped without one.
func BenchmarkInspectVerify(b *testing.B) {
	path := os.Getenv("INNOSCOPE_BENCH_IBD")
	if path == "" {
		b.Skip("INNOSCOPE_BENCH_IBD not set")
	}
	t, err := OpenFile(path)
	if err != nil {
		b.Fatal(err)
	}
	defer t.Close()
	b.SetBytes(t.Size)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r, err := Inspect(t, InspectOptions{Verify: true, To: -1})
		if err != nil || len(r.Corrupt) != 0 {
			b.Fatal(err, r.Corrupt)
		}
	}
}
