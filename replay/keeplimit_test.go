package replay

import (
	"testing"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/logformat/redo"
)

// TestKeepLimit: the pre-pass keeps its decoding when the log after the checkpoint is short
// enough for decodedLimit to hold it, and not when it is longer (framed first, not decoded).
func TestKeepLimit(t *testing.T) {
	defer func(n int64) { decodedLimit = n }(decodedLimit)
	l, err := analysis.OpenLog(discovery.Layout{Datadir: "../fixtures/mariadb-10.11-crash"}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	sc, _, err := l.Scanner(redo.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	start := sc.LSN()
	for sc.Next() {
	}
	n := int64(sc.LSN() - start)
	decodedLimit = decodedPerLogByte * (n + 1)
	if got := keepLimit(l, redo.ScanOptions{}); got != decodedLimit {
		t.Errorf("a log of %d bytes, limit %d: keep %d", n, decodedLimit, got)
	}
	decodedLimit = decodedPerLogByte * n / 2
	if got := keepLimit(l, redo.ScanOptions{}); got != 0 {
		t.Errorf("a log of %d bytes, limit %d: keep %d, not 0", n, decodedLimit, got)
	}
}
