package logformat_test

import (
	"hash/crc32"
	"os"
	"testing"

	. "innoscope/logformat"
)

// BenchmarkLog measures parsing a real redo log named by $INNOSCOPE_BENCH_LOG (scripts/bench-log.sh
// makes one of >= 256 MiB with the real server) against the reference of reading the same byte
// range with the same buffer size and computing CRC-32C over it, in the same process.
func BenchmarkLog(b *testing.B) {
	path := os.Getenv("INNOSCOPE_BENCH_LOG")
	if path == "" {
		b.Skip("set INNOSCOPE_BENCH_LOG to an ib_logfile0 (scripts/bench-log.sh)")
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	l, _, err := Open(f, fi.Size(), path)
	if err != nil {
		b.Fatal(err)
	}
	// A log that has not wrapped can be parsed from its first LSN: that covers every record the
	// server wrote, not only those after the checkpoint.
	from := l.Header.FirstLSN
	sc := l.Scan(from, ScanOptions{})
	for sc.Next() {
	}
	end := sc.LSN()
	if r, _, _ := sc.Stop(); r == StopMalformed || end-from < 256<<20 {
		b.Fatalf("log from %d ends at %d (%s): need >= 256 MiB of valid records", from, end, r)
	}
	n := int64(end - from)
	b.Run("read+crc32c", func(b *testing.B) {
		b.SetBytes(n)
		buf := make([]byte, 8<<20)
		tab := crc32.MakeTable(crc32.Castagnoli)
		for i := 0; i < b.N; i++ {
			var crc uint32
			for lsn := from; lsn < end; {
				m := uint64(len(buf))
				if end-lsn < m {
					m = end - lsn
				}
				if err := l.ReadAt(buf[:m], lsn); err != nil {
					b.Fatal(err)
				}
				crc = crc32.Update(crc, tab, buf[:m])
				lsn += m
			}
			_ = crc
		}
	})
	b.Run("scan", func(b *testing.B) {
		b.SetBytes(n)
		for i := 0; i < b.N; i++ {
			sc := l.Scan(from, ScanOptions{})
			recs := 0
			for sc.Next() {
				recs += len(sc.MTR().Records)
			}
			if sc.LSN() != end {
				b.Fatal("short scan")
			}
			b.ReportMetric(float64(recs), "records/op")
		}
	})
	b.Run("stats", func(b *testing.B) {
		b.SetBytes(n)
		for i := 0; i < b.N; i++ {
			if _, err := Summarize(l.Scan(from, ScanOptions{}), 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkMLog measures decoding the real MySQL 8.0.33 file (block checksums, de-blocking and
// every MLOG record, from its first mini-transaction to the end of its data), looped to at
// least 256 MiB per operation, next to reading the same file bytes and computing CRC-32C over
// them in the same process. scripts/bench-mlog.sh runs it beside BenchmarkLog (MariaDB).
func BenchmarkMLog(b *testing.B) {
	l := mysqlRedo(b)
	sc, err := l.ScanRecords(0, nil)
	if err != nil {
		b.Fatal(err)
	}
	n := int64(sc.DataEndLSN - l.Header.FirstLSN) // the file bytes holding the data
	loops := int((256<<20)/n) + 1
	b.Run("mysql-decode", func(b *testing.B) {
		b.SetBytes(n * int64(loops))
		for i := 0; i < b.N; i++ {
			for k := 0; k < loops; k++ {
				if _, err := l.ScanRecords(0, nil); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("mysql-read+crc32c", func(b *testing.B) {
		b.SetBytes(n * int64(loops))
		buf := make([]byte, n)
		for i := 0; i < b.N; i++ {
			for k := 0; k < loops; k++ {
				if _, err := BlockLogReader(l).ReadAt(buf, mysqlFileHdrSize); err != nil {
					b.Fatal(err)
				}
				_ = CRC32C(buf)
			}
		}
	})
}
