package logformat_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	. "innoscope/logformat"
	. "innoscope/logformat/logformattest"
)

// These tests use crafted bytes for what real logs (tested in cmd against the real server)
// cannot show: record types a release server never writes, damaged framing, other formats.

func TestVarintRoundTripAndBoundaries(t *testing.T) {
	for _, v := range []uint32{0, 1, 0x7f, 0x80, 0x407f, 0x4080, 0x20407f, 0x204080, 0x1020407f,
		0x10204080, 0xfffffffe} {
		enc := AppendVarint(nil, v)
		got, n := Varint(enc)
		if got != v || n != len(enc) || VarintLen(enc[0]) != n {
			t.Errorf("%#x: encoded % x, decoded %#x in %d bytes", v, enc, got, n)
		}
	}
	// Boundaries announced by the first byte, from mtr0types.h's table.
	for _, c := range []struct {
		b []byte
		v uint32
		n int
	}{{[]byte{0x7f}, 127, 1}, {[]byte{0x80, 0x00}, 128, 2}, {[]byte{0xbf, 0xff}, 16511, 2},
		{[]byte{0xc0, 0, 0}, 16512, 3}, {[]byte{0xe0, 0, 0, 0}, 2113664, 4},
		{[]byte{0xf0, 0, 0, 0, 0}, 270549120, 5}} {
		if v, n := Varint(c.b); v != c.v || n != c.n {
			t.Errorf("% x: got %d/%d want %d/%d", c.b, v, n, c.v, c.n)
		}
	}
	for _, bad := range [][]byte{nil, {0xf8}, {0xff, 0, 0, 0, 0, 0}, {0x80}, {0xf7, 0xff, 0xff, 0xff, 0xff}} {
		if _, n := Varint(bad); n != 0 {
			t.Errorf("% x decoded", bad)
		}
	}
}

func header(format uint32, creator string) []byte {
	b := make([]byte, HeaderSize)
	binary.BigEndian.PutUint32(b, format)
	binary.BigEndian.PutUint64(b[8:], 12288)
	copy(b[16:], creator)
	binary.BigEndian.PutUint32(b[508:], CRC32C(b[:508]))
	return b
}

func TestParseHeaderFormats(t *testing.T) {
	cases := []struct {
		format    uint32
		creator   string
		name      string
		supported bool
		encrypted bool
	}{
		{FormatMariaDB108, "MariaDB 10.11.19", "MariaDB 10.8+", true, false},
		{FormatMariaDB105, "MariaDB 10.6.12", "MariaDB 10.5-10.7", false, false},
		{FormatMariaDB105 | FormatEncrypted, "MariaDB 10.6.12", "MariaDB 10.5-10.7", false, true},
		{FormatMariaDB104, "MariaDB 10.4.30", "MariaDB 10.4", false, false},
		{FormatMariaDB103 | FormatEncrypted, "MariaDB 10.3.39", "MariaDB 10.3", false, true},
		{1, "MariaDB 10.2.44", "MariaDB 10.2", false, false},
		{1, "MySQL 5.7.44", "MySQL 5.7", false, false},
		{4, "MySQL 8.0.25", "MySQL 8.0.19+", false, false},
		{6, "MySQL 8.0.33", "MySQL 8.0.30+", false, false},
	}
	for _, c := range cases {
		h, err := ParseHeader(header(c.format, c.creator), "f")
		if err != nil || h.FormatName != c.name || h.Supported != c.supported || h.Encrypted != c.encrypted {
			t.Errorf("%#x %q: %+v, %v", c.format, c.creator, h, err)
		}
	}
	if _, err := ParseHeader(header(0xdeadbeef, ""), "f"); err == nil {
		t.Error("unknown format accepted")
	}
	if _, err := ParseHeader(make([]byte, 100), "f"); err == nil || !strings.Contains(err.Error(), "offset 100") {
		t.Errorf("short header: %v", err)
	}
}

// newLog builds a 1 MiB log with valid checkpoints at first LSN and opens it.
func newLog(t *testing.T, mtrs ...[]byte) (*Log, *Builder) {
	t.Helper()
	b, err := NewBuilder(1<<20, 12288, "MariaDB test")
	if err != nil {
		t.Fatal(err)
	}
	b.SetCheckpoint(0, 12288, 12288)
	b.SetCheckpoint(1, 12288, 12288)
	for _, m := range mtrs {
		b.AppendMTR(m)
	}
	l := mustOpen(t, b.Bytes())
	return l, b
}

func mustOpen(t *testing.T, img []byte) *Log {
	t.Helper()
	l, _, err := Open(bytes.NewReader(img), int64(len(img)), "test")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func scanAll(l *Log, from uint64) ([]MTR, *Scanner) {
	sc := l.Scan(from, ScanOptions{})
	var out []MTR
	for sc.Next() {
		m := *sc.MTR()
		m.Records = append([]Record(nil), m.Records...)
		out = append(out, m)
	}
	return out, sc
}

func TestCheckpointRules(t *testing.T) {
	b, _ := NewBuilder(1<<20, 20000, "MariaDB test")
	b.SetCheckpoint(0, 30000, 30000)
	b.SetCheckpoint(1, 30000, 30010) // equal LSNs: the later block wins, as in the server
	l := mustOpen(t, b.Bytes())
	if l.Selected != 1 {
		t.Errorf("selected %d", l.Selected)
	}
	b.SetCheckpoint(1, 10000, 10000) // below the first LSN
	img := b.Bytes()
	img[4096+60] ^= 1 // CRC of block 0
	l = mustOpen(t, img)
	if l.Selected != -1 || !strings.Contains(l.Checkpoints[0].Reason, "CRC") ||
		!strings.Contains(l.Checkpoints[1].Reason, "below the file's first LSN") {
		t.Errorf("%+v", l.Checkpoints)
	}
}

func TestEveryRecordType(t *testing.T) {
	write := PageRecord(Write, false, 5, 3, append(AppendVarint(nil, 100), 1, 2, 3))
	sameWrite := PageRecord(Write, true, 0, 0, append(AppendVarint(nil, 2), 9)) // at 105
	memset := PageRecord(Memset, true, 0, 0, append(AppendVarint(AppendVarint(nil, 1), 8), 0xab))
	memmove := PageRecord(Memmove, true, 0, 0, AppendVarint(AppendVarint(AppendVarint(nil, 0), 4), 7)) // -4
	long := PageRecord(Write, false, 7, 9, append(AppendVarint(nil, 200), bytes.Repeat([]byte{7}, 300)...))
	ext := func(sub ExtSubtype, rest ...byte) []byte {
		return PageRecord(Extended, false, 5, 4, append([]byte{byte(sub)}, rest...))
	}
	mtr := bytes.Join([][]byte{
		write, sameWrite, memset, memmove, long,
		PageRecord(FreePage, false, 5, 10, nil),
		PageRecord(InitPage, false, 5, 11, nil),
		ext(InitRowFormatDynamic), ext(UndoInit), ext(UndoAppend, 1, 2, 3, 4),
		ext(InsertHeapDynamic, 99, 8, 2, 3, 0xaa, 0xbb),
		ext(InsertReuseDynamic, 99, 5, 8, 2, 3, 0xaa),
		ext(InsertReuseRedundant, 99, 8, 2, 3, 0xaa),
		ext(DeleteRowFormatDynamic, 99, 6, 20),
		ext(DeleteRowFormatRedundant, 120),
		PageRecord(Extended, false, 2, 640, []byte{byte(TrimPages)}),
		PageRecord(Option, false, 5, 4, []byte{1, 0xde, 0xad, 0xbe, 0xef}),
		// After a page record, 0xf1 0x00 is a same-page OPTION record, not padding.
		{0xf1, 0x00},
	}, nil)
	// Padding is recognised only where no page record precedes it in the mini-transaction.
	padding := []byte{0xf1, 0x00, 0xf2, 0x00, 0x00}
	files := bytes.Join([][]byte{
		FileRecord(FileCreate, 12, "./db/a.ibd", ""),
		FileRecord(FileRename, 12, "./db/a.ibd", "./db/b.ibd"),
		FileRecord(FileModify, 12, "./db/b.ibd", ""),
		FileRecord(FileDelete, 12, "./db/b.ibd", ""),
	}, nil)
	l, _ := newLog(t, FileCheckpointRecord(12288), mtr, files, padding)
	ms, sc := scanAll(l, 12288)
	if len(ms) != 4 || sc.Err() != nil {
		r, d, _ := sc.Stop()
		t.Fatalf("%d mtrs, stop %s %s, err %v", len(ms), r, d, sc.Err())
	}
	if ms[0].Records[0].CheckpointLSN != 12288 {
		t.Errorf("FILE_CHECKPOINT %+v", ms[0].Records[0])
	}
	recs := ms[1].Records
	want := []string{"WRITE", "WRITE", "MEMSET", "MEMMOVE", "WRITE", "FREE_PAGE", "INIT_PAGE",
		"EXTENDED", "EXTENDED", "EXTENDED", "EXTENDED", "EXTENDED", "EXTENDED", "EXTENDED", "EXTENDED",
		"EXTENDED", "OPTION", "OPTION"}
	if len(recs) != len(want) {
		t.Fatalf("%d records", len(recs))
	}
	for i, r := range recs {
		if r.Type.String() != want[i] || r.Malformed != "" {
			t.Errorf("record %d: %s %q (%s)", i, r.Type, r.Malformed, r.Summary())
		}
	}
	if r := recs[1]; !r.SamePage || r.Space != 5 || r.Page != 3 || r.Offset != 105 {
		t.Errorf("same-page WRITE %+v", r)
	}
	if r := recs[2]; r.Offset != 107 || r.Length != 8 || !bytes.Equal(r.Data, []byte{0xab}) {
		t.Errorf("MEMSET %+v", r)
	}
	if r := recs[3]; r.Offset != 115 || r.Length != 4 || r.Source != 111 {
		t.Errorf("MEMMOVE %+v", r)
	}
	if r := recs[4]; r.Offset != 200 || len(r.Data) != 300 || r.Space != 7 {
		t.Errorf("long WRITE %+v", r)
	}
	if r := recs[11]; r.Ext != (Ext{PrevRec: 99, Shift: 5, EncHdr: 8, HdrC: 2, DataC: 3}) {
		t.Errorf("INSERT_REUSE_DYNAMIC %+v", r.Ext)
	}
	if r := recs[13]; r.Ext.PrevRec != 99 || r.Ext.HdrC != 6 || r.Ext.DataC != 20 {
		t.Errorf("DELETE_ROW_FORMAT_DYNAMIC %+v", r)
	}
	if r := recs[15]; r.ExtSub() != TrimPages || r.Page != 640 {
		t.Errorf("TRIM_PAGES %+v", r)
	}
	if r := recs[16]; r.Sub != 1 || len(r.Data) != 4 {
		t.Errorf("OPTION %+v", r)
	}
	f := ms[2].Records
	if f[1].Name() != "./db/a.ibd" || f[1].NewName() != "./db/b.ibd" || f[3].Type != FileDelete || f[0].Space != 12 {
		t.Errorf("file records %+v", f)
	}
	if p := ms[3].Records; len(p) != 2 || p[0].Type != Padding || p[1].Type != Padding {
		t.Errorf("padding %+v", p)
	}
	if r, _, _ := sc.Stop(); r != StopZero || sc.LSN() != ms[3].EndLSN {
		t.Errorf("stop %s at %d", r, sc.LSN())
	}
}

func TestMalformedRecordsStopLikeTheServer(t *testing.T) {
	cases := map[string][]byte{
		"RESERVED":                  PageRecord(Reserved, false, 5, 3, []byte{1}),
		"same_page INIT_PAGE":       append(PageRecord(InitPage, false, 5, 3, nil), 0x91, 0x00),
		"WRITE past the page end":   PageRecord(Write, false, 5, 3, append(AppendVarint(nil, 16380), 1, 2, 3, 4, 5)),
		"WRITE after FREE_PAGE":     append(PageRecord(FreePage, false, 5, 3, nil), PageRecord(Write, true, 0, 0, []byte{50, 1})...),
		"file name without .ibd":    FileRecord(FileCreate, 12, "./db/a.frm", ""),
		"file record for space 0":   FileRecord(FileModify, 0, "./db/a.ibd", ""),
		"rename without a new name": FileRecord(FileModify, 12, "./db/a.ibd\x00./db/b.ibd", ""),
		"page id only":              {0x31, 0x05},
	}
	for name, rec := range cases {
		l, _ := newLog(t, FileCheckpointRecord(12288), rec)
		ms, sc := scanAll(l, 12288)
		r, _, _ := sc.Stop()
		if len(ms) != 1 || r != StopMalformed || sc.StopError() == nil || sc.LSN() != ms[0].EndLSN {
			t.Errorf("%s: %d mtrs, stop %s", name, len(ms), r)
		}
		var fe *FormatError
		if !errors.As(sc.StopError(), &fe) || fe.LSN != ms[0].EndLSN {
			t.Errorf("%s: error %v", name, sc.StopError())
		}
	}
}

func TestFramingEnds(t *testing.T) {
	rec := PageRecord(Write, false, 5, 3, append(AppendVarint(nil, 100), 1, 2, 3))
	l, b := newLog(t, rec, rec)
	img := b.Bytes()
	ms, _ := scanAll(l, 12288)
	second := ms[1]
	// CRC: flip a data byte of the second mtr.
	c := append([]byte(nil), img...)
	c[l.FileOffset(second.LSN)+5] ^= 1
	if _, sc := scanAll(mustOpen(t, c), 12288); sc.LSN() != second.LSN {
		t.Errorf("checksum: ended at %d", sc.LSN())
	} else if r, _, _ := sc.Stop(); r != StopChecksum {
		t.Errorf("stop %s", r)
	}
	// Sequence bit: the termination byte of the second mtr says "second pass".
	c = append([]byte(nil), img...)
	c[l.FileOffset(second.EndLSN-5)] = 0
	if _, sc := scanAll(mustOpen(t, c), 12288); sc.LSN() != second.LSN {
		t.Errorf("sequence bit: ended at %d", sc.LSN())
	} else if r, _, _ := sc.Stop(); r != StopSequenceBit {
		t.Errorf("stop %s", r)
	}
	// Length: an invalid varint length.
	c = append([]byte(nil), img...)
	c[l.FileOffset(second.LSN)] = 0x30
	c[l.FileOffset(second.LSN)+1] = 0xf8
	if _, sc := scanAll(mustOpen(t, c), 12288); sc.LSN() != second.LSN {
		t.Errorf("length: ended at %d", sc.LSN())
	} else if r, _, _ := sc.Stop(); r != StopLength {
		t.Errorf("stop %s", r)
	}
}

// TestWrapAround writes mini-transactions across the end of a small ring, into the second
// pass (termination byte 0), and stops at the whole first-pass mini-transaction that follows
// (the ring holds exactly 40 of these 100-byte mini-transactions).
func TestWrapAround(t *testing.T) {
	size := int64(StartOffset + 4000)
	b, _ := NewBuilder(size, 12288, "MariaDB test")
	rec := PageRecord(Write, false, 5, 3, append(AppendVarint(nil, 100), bytes.Repeat([]byte{7}, 90)...))
	if len(rec)+5 != 100 {
		t.Fatalf("mtr size %d", len(rec)+5)
	}
	for i := 0; i < 60; i++ { // one and a half passes
		b.AppendMTR(rec)
	}
	end := b.LSN()
	start := end - 30*100 // 30 mtrs, the first 10 before the end of the file
	b.SetCheckpoint(0, start, start)
	l := mustOpen(t, b.Bytes())
	ms, sc := scanAll(l, start)
	if len(ms) != 30 || sc.LSN() != end {
		r, d, _ := sc.Stop()
		t.Fatalf("%d mtrs to %d (want 30 to %d): %s %s", len(ms), sc.LSN(), end, r, d)
	}
	if l.FileOffset(end) >= l.FileOffset(start) {
		t.Fatal("the test did not cross the end of the ring")
	}
	if r, _, _ := sc.Stop(); r != StopSequenceBit {
		t.Errorf("stop %s", r)
	}
	for _, m := range ms {
		if len(m.Records) != 1 || len(m.Records[0].Data) != 90 || m.Records[0].Offset != 100 {
			t.Fatalf("mtr at %d: %+v", m.LSN, m.Records)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	b, _ := NewBuilder(1<<20, 12288, "MariaDB test")
	img := b.Bytes()
	for name, c := range map[string]struct {
		img  []byte
		want string
	}{
		"empty":     {nil, "empty file"},
		"short":     {img[:600], "offset 600"},
		"crc":       {append(append([]byte{}, img[:100]...), append([]byte{1}, img[101:]...)...), "offset 508"},
		"encrypted": {encrypted(img), "encrypted"},
		"mysql":     {append(header(6, "MySQL 8.0.33"), make([]byte, 20000)...), "reads MariaDB 10.8+ logs only"},
	} {
		_, _, err := Open(bytes.NewReader(c.img), int64(len(c.img)), "f")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "f") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func encrypted(img []byte) []byte {
	c := append([]byte(nil), img...)
	c[48] = 1
	binary.BigEndian.PutUint32(c[508:], CRC32C(c[:508]))
	return c
}
