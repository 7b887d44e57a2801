package logformat_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	. "innoscope/logformat"
	. "innoscope/logformat/logformattest"
)

// TestSummarizeParallelIsSequential: the parallel Summarize (framing here, checksums and
// decoding in workers, counts merged in log order) gives what the sequential one gives on a log
// of several batches and read windows (with records of one- to three-byte length fields), also when a malformed record (which no server writes)
// or a checksum mismatch in a later batch ends the scan: nothing after it counts, and the
// scanner stops where Next stops.
func TestSummarizeParallelIsSequential(t *testing.T) {
	b, err := NewBuilder(16<<20, 12288, "MariaDB test")
	if err != nil {
		t.Fatal(err)
	}
	b.SetCheckpoint(0, 12288, 12288)
	b.SetCheckpoint(1, 12288, 12288)
	b.AppendMTR(FileCheckpointRecord(12288))
	payload := make([]byte, 200)
	var bad, crc uint64
	for i := 0; b.LSN() < 12288+5<<20; i++ {
		rec := PageRecord(Write, false, uint32(5+i%3), uint32(i%1000), append(AppendVarint(nil, 100), payload...))
		rec = append(rec, PageRecord(Write, true, 0, 0, append(AppendVarint(nil, 10), 1, 2, 3))...)
		if i == 6000 {
			// a record with a length field of three bytes (which the framer's fast walk leaves
			// to frame): a FILE_MODIFY of a long name
			b.AppendMTR(FileRecord(FileModify, 5, strings.Repeat("d/", 9000)+"t.ibd", ""))
		}
		if i == 12000 {
			rec = PageRecord(Reserved, false, 5, 3, []byte{1})
			bad, _ = b.AppendMTR(rec)
			continue
		}
		lsn, _ := b.AppendMTR(rec)
		if i == 9000 {
			crc = lsn
		}
	}
	img := b.Bytes()
	l := mustOpen(t, img)
	// The same log with a byte of a WRITE's data changed before the malformed record (the log
	// has not wrapped: an LSN is its file offset).
	img2 := append([]byte(nil), img...)
	img2[crc+8] ^= 0xff
	type result struct {
		St     Stats
		Err    error
		LSN    uint64
		Stop   StopReason
		Detail string
		Off    int64
		SErr   string
	}
	run := func(img []byte, from, to uint64, bufSize int) result {
		l := mustOpen(t, img)
		sc := l.Scan(from, ScanOptions{ToLSN: to, BufferSize: bufSize})
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
		stop     StopReason
		at       uint64
	}{{"malformed in a later batch", img, 12288, 0, StopMalformed, bad}, {"clean, to a limit", img, 12288, bad, StopLimit, bad},
		{"from the middle", img, 12288 + 1<<20, 0, StopMalformed, bad}, {"checksum mismatch", img2, 12288, 0, StopChecksum, crc}} {
		from := c.from
		if from != 12288 {
			// the first mini-transaction start after c.from
			sc := l.Scan(12288, ScanOptions{})
			for sc.Next() && sc.LSN() < c.from {
			}
			from = sc.LSN()
		}
		for _, bufSize := range []int{0, 2*MaxMTRSize + 64} { // 8 MiB, and 2 MiB windows
			par := run(c.img, from, c.to, bufSize)
			var seq result
			SerialSummarize(func() { seq = run(c.img, from, c.to, bufSize) })
			if !reflect.DeepEqual(par, seq) {
				t.Errorf("%s, buffer %d: parallel %+v\nsequential %+v", c.name, bufSize, par, seq)
			}
			if par.Stop != c.stop || par.LSN != c.at || par.St.MTRs < 5000 || c.from == 12288 && c.at > bad-1 && par.St.ByType[FileModify] != 1 {
				t.Errorf("%s, buffer %d: stop %s at %d (want %s at %d), %d MTRs", c.name, bufSize, par.Stop, par.LSN, c.stop, c.at, par.St.MTRs)
			}
		}
	}
}

// TestPrefetchIsSequential: a prefetching scanner returns the mini-transactions, records and
// stop of a plain one, on a log of several batches ending in a malformed record, and on one cut
// by a limit; stopping it early ends its goroutine.
func TestPrefetchIsSequential(t *testing.T) {
	b, err := NewBuilder(8<<20, 12288, "MariaDB test")
	if err != nil {
		t.Fatal(err)
	}
	b.SetCheckpoint(0, 12288, 12288)
	b.SetCheckpoint(1, 12288, 12288)
	b.AppendMTR(FileCheckpointRecord(12288))
	var bad uint64
	for i := 0; b.LSN() < 12288+3<<20; i++ {
		b.AppendMTR(PageRecord(Write, false, uint32(5+i%3), uint32(i%1000), append(AppendVarint(nil, 100), make([]byte, 150+i%50)...)))
	}
	bad, _ = b.AppendMTR(PageRecord(Reserved, false, 5, 3, []byte{1}))
	img := b.Bytes()
	for _, to := range []uint64{0, bad - 1000} {
		l := mustOpen(t, img)
		want, ws := scanAll(l, 12288)
		if to != 0 {
			want, ws = nil, l.Scan(12288, ScanOptions{ToLSN: to})
			for ws.Next() {
				m := *ws.MTR()
				m.Records = append([]Record(nil), m.Records...)
				want = append(want, m)
			}
		}
		sc := l.Scan(12288, ScanOptions{ToLSN: to})
		stop := sc.Prefetch()
		var got []MTR
		for sc.Next() {
			m := *sc.MTR()
			m.Records = append([]Record(nil), m.Records...)
			for i := range m.Records {
				m.Records[i].Data = append([]byte(nil), m.Records[i].Data...)
			}
			got = append(got, m)
		}
		stop()
		for i := range want {
			for j := range want[i].Records {
				want[i].Records[j].Data = append([]byte(nil), want[i].Records[j].Data...)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("to %d: %d MTRs prefetched, %d plain (or their records differ)", to, len(got), len(want))
		}
		gr, gd, go_ := sc.Stop()
		wr, wd, wo := ws.Stop()
		if gr != wr || gd != wd || go_ != wo || sc.LSN() != ws.LSN() || fmt.Sprint(sc.StopError()) != fmt.Sprint(ws.StopError()) {
			t.Errorf("to %d: prefetched stop %s %q %d at %d, plain %s %q %d at %d", to, gr, gd, go_, sc.LSN(), wr, wd, wo, ws.LSN())
		}
	}
	// Stopped early: the goroutine ends (the race detector and goleak-free run show no hang).
	sc := mustOpen(t, img).Scan(12288, ScanOptions{})
	stop := sc.Prefetch()
	sc.Next()
	stop()
}

// TestSummarizeFileRing: Summarize of a log file whose records wrap around the end of the ring
// gives what the sequential scan of the same bytes in memory gives, with read windows of either
// size.
func TestSummarizeFileRing(t *testing.T) {
	b, err := NewBuilder(4<<20, 12288, "MariaDB test")
	if err != nil {
		t.Fatal(err)
	}
	var starts []uint64
	for i := 0; b.LSN() < 12288+7<<20; i++ {
		lsn, _ := b.AppendMTR(PageRecord(Write, false, uint32(5+i%3), uint32(i%1000), append(AppendVarint(nil, 100), make([]byte, 100+i%300)...)))
		starts = append(starts, lsn)
	}
	end := b.LSN()
	from := starts[len(starts)-1]
	for _, s := range starts {
		if s >= end-(4<<20-12288)+4096 { // the oldest mini-transaction the ring still holds
			from = s
			break
		}
	}
	b.SetCheckpoint(0, from, from)
	b.SetCheckpoint(1, from, from)
	img := b.Bytes()
	path := filepath.Join(t.TempDir(), "ib_logfile0")
	if err := os.WriteFile(path, img, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fl, _, err := Open(f, int64(len(img)), "test")
	if err != nil {
		t.Fatal(err)
	}
	for _, bufSize := range []int{0, 2*MaxMTRSize + 64} {
		sc := fl.Scan(from, ScanOptions{BufferSize: bufSize})
		par, perr := Summarize(sc, from)
		var seq Stats
		var serr error
		ss := mustOpen(t, img).Scan(from, ScanOptions{BufferSize: bufSize})
		SerialSummarize(func() { seq, serr = Summarize(ss, from) })
		if !reflect.DeepEqual(par, seq) || perr != nil || serr != nil || sc.LSN() != ss.LSN() {
			t.Errorf("buffer %d: file %+v (%v)\nsequential %+v (%v)", bufSize, par, perr, seq, serr)
		}
		if par.EndLSN != end || par.EndLSN-par.StartLSN < 3<<20 {
			t.Errorf("buffer %d: scanned %d..%d, want to %d across the wrap", bufSize, par.StartLSN, par.EndLSN, end)
		}
	}
}
