package logcheck

import (
	"bytes"
	"fmt"
	"testing"

	"innoscope/finding"
	"innoscope/logformat"
	"innoscope/logformat/logformattest"
)

// testLog is a log image from the Builder: a FILE_CHECKPOINT at the first LSN (the checkpoint)
// and n WRITE mini-transactions of distinct bytes after it; it returns their LSNs.
func testLog(t *testing.T, n int) (*logformat.Builder, []uint64) {
	t.Helper()
	b, err := logformat.NewBuilder(1<<20+logformat.StartOffset, logformat.StartOffset, "MariaDB 10.11.19")
	if err != nil {
		t.Fatal(err)
	}
	cp := b.LSN()
	b.AppendMTR(logformat.FileCheckpointRecord(cp))
	b.SetCheckpoint(0, cp, cp)
	var at []uint64
	for i := range n {
		at = append(at, b.LSN())
		b.AppendMTR(writeRecord(i))
	}
	return b, at
}

// writeRecord is a WRITE of 40 bytes unique to i.
func writeRecord(i int) []byte {
	data := logformat.AppendVarint(nil, 120)
	data = append(data, fmt.Sprintf("record %06d of a mini-transaction abcdefg", i)[:40]...)
	return logformattest.PageRecord(logformat.Write, false, 5, uint32(3+i%50), data)
}

// open opens the image and scans it from the checkpoint: the log, the stop reason and the LSN
// the scan stopped at.
func open(t *testing.T, img []byte) (*logformat.Log, logformat.StopReason, uint64) {
	t.Helper()
	l, _, err := logformat.Open(bytes.NewReader(img), int64(len(img)), "ib_logfile0")
	if err != nil {
		t.Fatal(err)
	}
	cp, _ := l.Checkpoint()
	sc := l.Scan(cp.LSN, logformat.ScanOptions{})
	for sc.Next() {
	}
	stop, _, _ := sc.Stop()
	return l, stop, sc.LSN()
}

// flip changes a data byte of the mini-transaction at lsn (its framing stays whole).
func flip(img []byte, l *logformat.Log, lsn uint64) { img[l.FileOffset(lsn+10)] ^= 0x40 }

// TestDamagedStaleTail: a log that ends as mariadbd's last write leaves it (a zero byte, then the
// rest of the 4 KiB block filled with the log buffer's stale bytes: the log 17 blocks earlier,
// whole mini-transactions among them), its last mini-transaction damaged. Those whole ones are
// no log written on past the damage: no Damage (LOG_END_DAMAGED instead).
func TestDamagedStaleTail(t *testing.T) {
	b, at := testLog(t, 1500)
	img := b.Bytes()
	l, _, end := open(t, img)
	off := l.FileOffset(end)
	blockEnd := (off/4096 + 1) * 4096
	copy(img[off+1:blockEnd], img[off+1-17*4096:blockEnd-17*4096])
	if _, stop, e := open(t, img); stop != logformat.StopZero || e != end {
		t.Fatalf("the undamaged log ends at %d (%s), want %d on its zero byte", e, stop, end)
	}
	last := at[len(at)-1]
	flip(img, l, last)
	l, stop, e := open(t, img)
	if stop != logformat.StopChecksum || e != last {
		t.Fatalf("scan stopped at %d (%s), want the damaged %d", e, stop, last)
	}
	if r, _ := l.Resync(last, resyncWindow); r == 0 {
		t.Fatal("no whole mini-transaction in the stale bytes: the test's log is not the case")
	}
	d, err := Damaged(l, stop, e, 0)
	if err != nil || d != nil {
		t.Fatalf("Damaged: %+v, %v; want none (stale bytes past the end)", d, err)
	}
	if f := EndFinding(l, "ib_logfile0", stop, "", -1, e); f == nil || f.Code != "LOG_END_DAMAGED" {
		t.Errorf("EndFinding: %+v, want LOG_END_DAMAGED", f)
	}
	if st, dist, err := StaleAfter(l, stop, e, 0); err != nil || st == nil || st.Resume <= end || dist != 17*4096 {
		t.Errorf("StaleAfter: %+v, %d, %v; want a run past the end %d, a copy 17 blocks back", st, dist, err, end)
	}
}

// TestDamagedWrittenOn: whole mini-transactions after a damaged one that are new log (no copy
// of older log) are Damage: in the same block (a warning) and over many blocks (an error).
func TestDamagedWrittenOn(t *testing.T) {
	for _, c := range []struct {
		name  string
		back  int // the damaged mini-transaction, counted from the last
		error bool
	}{{"within the block", 3, false}, {"many blocks", 1000, true}} {
		t.Run(c.name, func(t *testing.T) {
			b, at := testLog(t, 1500)
			img := b.Bytes()
			l, _, end := open(t, img)
			at = at[len(at)-c.back:]
			flip(img, l, at[0])
			l, stop, e := open(t, img)
			d, err := Damaged(l, stop, e, 0)
			if err != nil || d == nil || d.At != at[0] || d.Resume != at[1] || d.End != end || d.MTRs != c.back-1 {
				t.Fatalf("Damaged: %+v, %v; want the damage at %d, whole ones %d-%d", d, err, at[0], at[1], end)
			}
			cp, _ := l.Checkpoint()
			if f := DamageFinding("ib_logfile0", d, stop, "", cp); (f.Severity == finding.Error) != c.error {
				t.Errorf("LOG_DAMAGED %s: %s", f.Severity, f.Message)
			}
		})
	}
}

// TestDamagedOldCheckpointRecord: past the log's end (its last mini-transaction damaged), after
// zeros, whole mini-transactions of this pass that are no copy of the log but begin with a
// FILE_CHECKPOINT naming an LSN older than the checkpoint (an older log's bytes): the server's
// log after its checkpoint names none older, so this is no log written on past the damage.
// The same run without that record is Damage.
func TestDamagedOldCheckpointRecord(t *testing.T) {
	for _, old := range []bool{true, false} {
		b, _ := testLog(t, 200)
		cp := b.LSN() // a later checkpoint, which recovery starts from
		b.AppendMTR(logformat.FileCheckpointRecord(cp))
		b.SetCheckpoint(1, cp, cp)
		var last uint64
		for i := range 50 {
			last, _ = b.AppendMTR(writeRecord(50000 + i))
		}
		b.SetLSN(b.LSN() + 8192) // zeros, then an older log's bytes of the same pass
		if old {
			b.AppendMTR(logformat.FileCheckpointRecord(logformat.StartOffset))
		}
		for i := range 300 {
			b.AppendMTR(writeRecord(100000 + i))
		}
		img := b.Bytes()
		l, _, _ := open(t, img)
		flip(img, l, last)
		l, stop, e := open(t, img)
		if c, _ := l.Checkpoint(); c.LSN != cp || e != last {
			t.Fatalf("scan from %d stopped at %d (%s), want from %d to %d", c.LSN, e, stop, cp, last)
		}
		d, err := Damaged(l, stop, e, 0)
		if err != nil || (d == nil) != old {
			t.Errorf("old FILE_CHECKPOINT %v: Damaged %+v, %v", old, d, err)
		}
	}
}
