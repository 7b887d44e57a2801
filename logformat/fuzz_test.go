package logformat_test

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"

	. "innoscope/logformat"
	. "innoscope/logformat/logformattest"
)

// checkScan runs a scan to its end and checks the invariants every result must keep.
func checkScan(t *testing.T, l *Log, from uint64) {
	sc := l.Scan(from, ScanOptions{})
	prev := from
	for sc.Next() {
		m := sc.MTR()
		if m.LSN != prev || m.EndLSN <= m.LSN || m.EndLSN-m.LSN > MaxMTRSize+5 {
			t.Fatalf("mtr %d..%d after %d", m.LSN, m.EndLSN, prev)
		}
		for _, r := range m.Records {
			if r.Pos < 0 || r.Len <= 0 || uint64(r.Pos+r.Len) > m.EndLSN-m.LSN-5 {
				t.Fatalf("record %+v outside its mtr of %d bytes", r, m.EndLSN-m.LSN)
			}
			_ = r.Summary()
		}
		prev = m.EndLSN
	}
	if sc.LSN()-from > l.Capacity() {
		t.Fatalf("scanned %d bytes of a %d-byte ring", sc.LSN()-from, l.Capacity())
	}
	if r, _, _ := sc.Stop(); r == "" && sc.Err() == nil {
		t.Fatal("scan ended without a reason")
	}
}

// FuzzScan treats the input as the ring of a log (its first two bytes pick where in the ring the
// scan starts, so wrap-around is explored) and scans it.
func FuzzScan(f *testing.F) {
	b, _ := NewBuilder(StartOffset+512, StartOffset, "MariaDB fuzz")
	b.AppendMTR(FileCheckpointRecord(StartOffset))
	b.AppendMTR(PageRecord(Write, false, 5, 3, append(AppendVarint(nil, 100), 1, 2, 3)))
	b.AppendMTR(FileRecord(FileRename, 9, "./a.ibd", "./b.ibd"))
	f.Add(append([]byte{0, 0}, b.Bytes()[StartOffset:]...))
	f.Add([]byte{0, 3, 0x30, 0x00, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 || len(data) > 1<<20 {
			return
		}
		shift := uint64(binary.BigEndian.Uint16(data)) % uint64(len(data)-2)
		ring := data[2:]
		if len(ring) < sizeOfFileCheckpoint {
			ring = append(ring, make([]byte, sizeOfFileCheckpoint-len(ring))...)
		}
		img := make([]byte, StartOffset+len(ring))
		copy(img, header(FormatMariaDB108, "MariaDB fuzz"))
		copy(img[StartOffset:], ring)
		l, _, err := Open(bytes.NewReader(img), int64(len(img)), "fuzz")
		if err != nil {
			t.Fatal(err)
		}
		checkScan(t, l, StartOffset+shift)
	})
}

// FuzzOpen feeds whole files to Open (header and checkpoint blocks) and scans what opens.
func FuzzOpen(f *testing.F) {
	b, _ := NewBuilder(StartOffset+256, StartOffset, "MariaDB fuzz")
	b.SetCheckpoint(0, StartOffset, StartOffset)
	b.AppendMTR(FileCheckpointRecord(StartOffset))
	f.Add(b.Bytes())
	f.Add(header(6, "MySQL 8.0.33"))
	f.Fuzz(func(t *testing.T, img []byte) {
		if len(img) > 1<<20 {
			return
		}
		l, _, err := Open(bytes.NewReader(img), int64(len(img)), "fuzz")
		if d, _, derr := OpenDamagedHeader(bytes.NewReader(img), int64(len(img)), "fuzz"); derr == nil {
			d.HeaderCRC()
			if err == nil && !reflect.DeepEqual(d.Checkpoints, l.Checkpoints) {
				t.Fatalf("OpenDamagedHeader read other checkpoints than Open: %+v, %+v", d.Checkpoints, l.Checkpoints)
			}
		} else if err == nil {
			t.Fatalf("Open took what OpenDamagedHeader refuses: %v", derr)
		}
		if err != nil {
			return
		}
		if cp, ok := l.Checkpoint(); ok {
			checkScan(t, l, cp.LSN)
		}
	})
}

// FuzzVarint checks that decoding never reads past its input and that what decodes re-encodes
// to the same bytes.
func FuzzVarint(f *testing.F) {
	f.Add([]byte{0x80, 0x01})
	f.Add([]byte{0xf0, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, p []byte) {
		v, n := Varint(p)
		if n == 0 {
			return
		}
		if n > len(p) || !bytes.Equal(AppendVarint(nil, v), p[:n]) {
			t.Fatalf("% x: %#x in %d bytes re-encodes as % x", p, v, n, AppendVarint(nil, v))
		}
	})
}

// FuzzBlocks feeds MySQL 8.0.30+ redo file images to the header and block layers.
func FuzzBlocks(f *testing.F) {
	f.Add(blockFile(3, 44, 1))
	f.Fuzz(func(t *testing.T, img []byte) {
		if len(img) > 1<<20 {
			return
		}
		l, err := OpenBlockLog(bytes.NewReader(img), int64(len(img)), "fuzz")
		if err != nil {
			return
		}
		sc, err := l.ScanBlocks()
		if err == nil && (sc.Stop == "" || int64(sc.Blocks)*BlockSize > int64(len(img))) {
			t.Fatalf("scan %+v of %d bytes", sc, len(img))
		}
	})
}
