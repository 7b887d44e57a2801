package logformat_test

import (
	"reflect"
	"testing"

	. "innoscope/logformat"
	. "innoscope/logformat/logformattest"
)

// TestSummarizeParallelIsSequential: the parallel Summarize (framing here, decoding in workers,
// counts merged in log order) gives what the sequential one gives on a log of several batches,
// also when a malformed record (which no server writes) in a later batch ends the scan: nothing
// after it counts, and the scanner stops where Next stops.
func TestSummarizeParallelIsSequential(t *testing.T) {
	b, err := NewBuilder(16<<20, 12288, "MariaDB test")
	if err != nil {
		t.Fatal(err)
	}
	b.SetCheckpoint(0, 12288, 12288)
	b.SetCheckpoint(1, 12288, 12288)
	b.AppendMTR(FileCheckpointRecord(12288))
	payload := make([]byte, 200)
	var bad uint64
	for i := 0; b.LSN() < 12288+5<<20; i++ {
		rec := PageRecord(Write, false, uint32(5+i%3), uint32(i%1000), append(AppendVarint(nil, 100), payload...))
		rec = append(rec, PageRecord(Write, true, 0, 0, append(AppendVarint(nil, 10), 1, 2, 3))...)
		if i == 12000 {
			rec = PageRecord(Reserved, false, 5, 3, []byte{1})
			bad, _ = b.AppendMTR(rec)
			continue
		}
		b.AppendMTR(rec)
	}
	img := b.Bytes()
	l := mustOpen(t, img)
	type result struct {
		St     Stats
		Err    error
		LSN    uint64
		Stop   StopReason
		Detail string
		Off    int64
		SErr   string
	}
	run := func(img []byte, from, to uint64) result {
		l := mustOpen(t, img)
		sc := l.Scan(from, ScanOptions{ToLSN: to})
		st, err := Summarize(sc, 12288)
		r := result{St: st, Err: err, LSN: sc.LSN()}
		r.Stop, r.Detail, r.Off = sc.Stop()
		if e := sc.StopError(); e != nil {
			r.SErr = e.Error()
		}
		return r
	}
	// A scan that ends just before the malformed one (ToLSN) stands for a clean log.
	for _, c := range []struct {
		name     string
		img      []byte
		from, to uint64
	}{{"malformed in a later batch", img, 12288, 0}, {"clean, to a limit", img, 12288, bad}, {"from the middle", img, 12288 + 1<<20, 0}} {
		from := c.from
		if from != 12288 {
			// the first mini-transaction start after c.from
			sc := l.Scan(12288, ScanOptions{})
			for sc.Next() && sc.LSN() < c.from {
			}
			from = sc.LSN()
		}
		par := run(c.img, from, c.to)
		var seq result
		SerialSummarize(func() { seq = run(c.img, from, c.to) })
		if !reflect.DeepEqual(par, seq) {
			t.Errorf("%s: parallel %+v\nsequential %+v", c.name, par, seq)
		}
		if c.to == 0 && (par.Stop != StopMalformed || par.LSN != bad || par.St.MTRs < 5000) {
			t.Errorf("%s: stop %s at %d (malformed MTR at %d), %d MTRs", c.name, par.Stop, par.LSN, bad, par.St.MTRs)
		}
	}
}
