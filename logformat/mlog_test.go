package logformat_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	. "innoscope/logformat"
	. "innoscope/logformat/logformattest"
)

// mysqlRedo opens the real MySQL 8.0.33 redo file of ../shared/peer-fixtures.
func mysqlRedo(t testing.TB) *BlockLog {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "..", "shared", "peer-fixtures", "mysql-8.0.33-docker-sample", "#ib_redo10")
	f, err := os.Open(p)
	if err != nil {
		t.Skipf("peer fixture not here: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	fi, _ := f.Stat()
	l, err := OpenBlockLog(f, fi.Size(), p)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestMySQLRecords decodes every record of the real MySQL 8.0.33 file, from the first
// mini-transaction that starts in it to the end of its written data.
//
// How the counts below were cross-checked: the decoder only establishes each record's length,
// so a single wrong length would shift every later boundary. The server writes, in the header
// of every 512-byte block, the offset of the first mini-transaction that starts in it
// (first_rec_group). The test requires, for each of the file's blocks, that the first
// mini-transaction start the decoder finds in the block is exactly that offset, and that a
// block where the decoder finds none says 0; and that decoding ends exactly where the written
// data ends (the last block's data length). With 22,050 mini-transactions over 2,445 blocks
// those are thousands of independent checks on the decoded lengths. The first bytes were also
// read by hand: 3e 1d 00 02 81 81 43 ... is MLOG_TABLE_DYNAMIC_META for table 29, version 0,
// AUTO_INCREMENT 385, followed by MLOG_REC_INSERT.
func TestMySQLRecords(t *testing.T) {
	l := mysqlRedo(t)
	var starts []uint64
	single := 0
	sc, err := l.ScanRecords(0, func(m *MLogMTR) error {
		starts = append(starts, m.LSN)
		if m.Records[0].Single {
			single++
		}
		return nil
	})
	if err != nil || sc.Stop != StopZero || sc.EndLSN != sc.DataEndLSN {
		t.Fatalf("scan: %v; stopped %s (%s) at %d, data ends at %d", err, sc.Stop, sc.StopDetail, sc.EndLSN, sc.DataEndLSN)
	}
	want := map[MLogType]int{
		MLog1Byte: 437, MLog2Bytes: 5066, MLog4Bytes: 6844, MLog8Bytes: 1177, MLogRecSecDeleteMark: 962,
		MLogUndoInsert: 9047, MLogUndoEraseEnd: 13, MLogUndoInit: 33, MLogUndoHdrReuse: 29, MLogUndoHdrCreate: 157,
		MLogWriteString: 444, MLogMultiRecEnd: 1539, MLogInitFilePage2: 59, MLogTableDynamicMeta: 208,
		MLogRecInsert: 1173, MLogRecClustDeleteMark: 212, MLogRecDelete: 1170, MLogRecUpdateInPlace: 8676,
		MLogPageReorganize: 2,
	}
	for typ, n := range want {
		if sc.ByType[typ] != n {
			t.Errorf("%s: %d records, want %d", typ, sc.ByType[typ], n)
		}
	}
	if len(sc.ByType) != len(want) || sc.MTRs != 22050 || sc.Records != 37248 || single+sc.ByType[MLogMultiRecEnd] != sc.MTRs {
		t.Errorf("%d types, %d mini-transactions (%d single), %d records", len(sc.ByType), sc.MTRs, single, sc.Records)
	}
	checked, i := 0, 0
	for _, b := range sc.Blocks {
		if b.LSN+BlockSize <= sc.StartLSN {
			continue // before decoding started
		}
		for i < len(starts) && starts[i] < b.LSN {
			i++
		}
		first := uint16(0)
		if i < len(starts) && starts[i] < b.LSN+BlockSize {
			first = uint16(starts[i] - b.LSN)
		}
		if b.FirstRecGroup == b.DataLen && first == 0 {
			first = b.DataLen // the server's "not yet catenated" marker in the last block
		}
		if first != b.FirstRecGroup {
			t.Errorf("block at LSN %d: first_rec_group %d, first decoded mini-transaction at %d", b.LSN, b.FirstRecGroup, first)
		}
		checked++
	}
	if checked < 2400 {
		t.Errorf("only %d blocks checked", checked)
	}
	t.Logf("%d mini-transactions, %d records, %d blocks' first_rec_group agree", sc.MTRs, sc.Records, checked)
}

// FuzzMLog decodes arbitrary bytes as an MLOG record: an error or a length within the input,
// never a panic.
func FuzzMLog(f *testing.F) {
	f.Add([]byte{0x3e, 0x1d, 0x00, 0x02, 0x81, 0x81})
	f.Add([]byte{0x43, 0x05, 0x03, 0x01, 0x05, 0x00, 0x02, 0x00, 0x01, 0x80, 0x04, 0x00, 0x70, 0x0b})
	f.Add([]byte{0xc6, 0x81, 0x02, 0x03, 0x01, 0x01, 0xf0, 0xff, 0xff, 0xff, 0xff, 0x00})
	f.Add([]byte{0x22, 0x07, 0x00, 0x00, 0x06, 'a', '.', 'i', 'b', 'd', 0, 0x00, 0x02, 'b', 0})
	f.Fuzz(func(t *testing.T, p []byte) {
		for d := DialectMySQL8028; d <= DialectLegacy; d++ {
			rec, why := parseMLog(p, d)
			if why == "" && (rec.Len <= 0 || rec.Len > len(p)) {
				t.Fatalf("dialect %d: length %d of %d bytes", d, rec.Len, len(p))
			}
		}
	})
}

// buildMLogFile makes a MySQL 8.0.30+ file with page records across several blocks and a
// rename chain (layouts: mtr0log.cc mlog_write_initial_log_record_low, fil0fil.cc
// fil_op_write_log; mach0data.cc mach_write_compressed).
func buildMLogFile(t testing.TB) (img []byte, mtrLSNs []uint64) {
	t.Helper()
	b, err := NewMLogBuilder(8*BlockSize*1000, "MySQL 8.0.33")
	if err != nil {
		t.Fatal(err)
	}
	str := func(n int) []byte { // MLOG_WRITE_STRING body: offset, length, bytes
		body := []byte{0, 100, byte(n >> 8), byte(n)}
		return append(body, make([]byte, n)...)
	}
	add := func(recs ...[]byte) { mtrLSNs = append(mtrLSNs, b.AddMTR(recs...)) }
	add(MLogFileRecord(MLogFileCreate, 7, "./db/a.ibd", ""), MLogPageRecord(MLogInitFilePage2, 7, 0, nil))
	add(MLogPageRecord(MLogWriteString, 7, 3, str(700))) // longer than a block
	add(MLogFileRecord(MLogFileRename, 7, "./db/a.ibd", "./db/b.ibd"))
	add(MLogPageRecord(MLog2Bytes, 0x12345, 70000, []byte{0, 24, 0x81, 0x02}),
		MLogPageRecord(MLog8Bytes, 7, 1, []byte{0, 16, 0xc1, 0x02, 0x03, 1, 2, 3, 4}))
	add(MLogFileRecord(MLogFileRename, 7, "./db/b.ibd", "./db/c.ibd"))
	add(MLogFileRecord(MLogFileCreate, 8, "./db/d.ibd", ""))
	add(MLogPageRecord(MLogUndoInsert, 0, 5, append([]byte{0, 3}, 9, 9, 9)))
	add(MLogFileRecord(MLogFileDelete, 8, "./db/d.ibd", ""))
	return b.Bytes(2048+16*BlockSize, mtrLSNs[0]), mtrLSNs
}

// TestMLogCrafted decodes a crafted file: every mini-transaction at the LSN it was written at,
// records split across blocks, file names, and the end of the data.
func TestMLogCrafted(t *testing.T) {
	img, want := buildMLogFile(t)
	l, err := OpenBlockLog(bytesReaderAt(img), int64(len(img)), "crafted")
	if err != nil {
		t.Fatal(err)
	}
	var got []uint64
	var names []string
	sc, err := l.ScanRecords(0, func(m *MLogMTR) error {
		got = append(got, m.LSN)
		for _, r := range m.Records {
			if r.Type.IsFile() {
				names = append(names, fmt.Sprintf("%s %d %s>%s", r.Type, r.Space, r.Name, r.NewName))
			}
		}
		return nil
	})
	if err != nil || !reflect.DeepEqual(got, want) || sc.EndLSN != sc.DataEndLSN || sc.Records != 12 {
		t.Fatalf("err %v, mtrs at %v want %v, end %d of %d, %d records", err, got, want, sc.EndLSN, sc.DataEndLSN, sc.Records)
	}
	wantNames := []string{"MLOG_FILE_CREATE 7 ./db/a.ibd>", "MLOG_FILE_RENAME 7 ./db/a.ibd>./db/b.ibd",
		"MLOG_FILE_RENAME 7 ./db/b.ibd>./db/c.ibd", "MLOG_FILE_CREATE 8 ./db/d.ibd>", "MLOG_FILE_DELETE 8 ./db/d.ibd>"}
	if !reflect.DeepEqual(names, wantNames) {
		t.Errorf("file records %q", names)
	}
	// An unknown record type inside the data ends the scan as a corrupt log, naming the LSN.
	bad := append([]byte(nil), img...)
	bad[2048+12] = 5 // no MLOG type 5
	binary.BigEndian.PutUint32(bad[2048+508:], CRC32C(bad[2048:2048+508]))
	l, err = OpenBlockLog(bytesReaderAt(bad), int64(len(bad)), "bad")
	if err != nil {
		t.Fatal(err)
	}
	if sc, err := l.ScanRecords(0, nil); err == nil || sc.Stop != StopMalformed || sc.MTRs != 0 {
		t.Errorf("damaged type: %v, %s after %d mini-transactions", err, sc.Stop, sc.MTRs)
	}
	// innodb_redo_log_encrypt's key information at 1024: refused, as encrypted.
	enc := append([]byte(nil), img...)
	copy(enc[1024:], "lCC")
	if _, err := OpenBlockLog(bytesReaderAt(enc), int64(len(enc)), "enc"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("encrypted redo: %v", err)
	}
}

type bytesReaderAt []byte

func (b bytesReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// TestComp32Forms: comp32's paths (one byte; five bytes at hand; near the end) read every
// first byte and length of buffer as the general path does.
func TestComp32Forms(t *testing.T) {
	for first := 0; first < 256; first++ {
		for n := 1; n <= 6; n++ {
			p := []byte{byte(first), 0xa5, 0x3c, 0xf1, 0x07, 0x99}[:n]
			v1, i1, s1, v2, i2, s2 := Comp32Both(p)
			if v1 != v2 || i1 != i2 || s1 != s2 {
				t.Errorf("% x: comp32 %d at %d (short %v), general %d at %d (short %v)", p, v1, i1, s1, v2, i2, s2)
			}
		}
	}
}

// sameAsGatheredFirst checks that ScanRecords of l, decoding while its blocks are walked (sc,
// err), gives what it gives with every block gathered before the decoding starts.
func sameAsGatheredFirst(t testing.TB, l *BlockLog, sc MLogScan, err error) {
	t.Helper()
	var seq MLogScan
	var serr error
	GatheredFirst(func() { seq, serr = l.ScanRecords(0, nil) })
	if (err == nil) != (serr == nil) || (err != nil && err.Error() != serr.Error()) || !reflect.DeepEqual(sc, seq) {
		t.Fatalf("decoding while walking: %+v, %v; after the walk: %+v, %v", sc, err, seq, serr)
	}
}

// TestMySQLRecordsWhileWalking: the real MySQL 8.0.33 file decoded while its blocks are walked
// gives every mini-transaction (LSNs, records) that decoding after the walk gives.
func TestMySQLRecordsWhileWalking(t *testing.T) {
	l := mysqlRedo(t)
	scan := func() (MLogScan, []MLogMTR, error) {
		var ms []MLogMTR
		sc, err := l.ScanRecords(0, func(m *MLogMTR) error {
			c := *m
			c.Records = append([]MLogRecord(nil), m.Records...)
			ms = append(ms, c)
			return nil
		})
		return sc, ms, err
	}
	sc, ms, err := scan()
	var seq MLogScan
	var mseq []MLogMTR
	var serr error
	GatheredFirst(func() { seq, mseq, serr = scan() })
	if err != nil || serr != nil || !reflect.DeepEqual(sc, seq) || !reflect.DeepEqual(ms, mseq) || len(ms) == 0 {
		t.Fatalf("while walking: %d mini-transactions, %v; after the walk: %d, %v", len(ms), err, len(mseq), serr)
	}
	t.Logf("%d mini-transactions, %d records alike", sc.MTRs, sc.Records)
}

// TestMySQLRecordsWhileWalkingOnDamage: the real MySQL 8.0.33 file with bytes of its records
// changed (the blocks' CRCs made valid again, so that the decoder meets them): decoding while
// the blocks are walked ends where and as decoding after the walk does, error and all, for 60
// such files.
func TestMySQLRecordsWhileWalkingOnDamage(t *testing.T) {
	real := mysqlRedo(t)
	img, err := io.ReadAll(io.NewSectionReader(BlockLogReader(real), 0, real.Size))
	if err != nil {
		t.Fatal(err)
	}
	blocks := (len(img) - MySQLFileHdrSize) / BlockSize
	rng := rand.New(rand.NewPCG(17, 42))
	malformed := 0
	for i := 0; i < 60; i++ {
		b := append([]byte(nil), img...)
		for k := 1 + rng.IntN(3); k > 0; k-- {
			blk := b[MySQLFileHdrSize+rng.IntN(blocks)*BlockSize:][:BlockSize]
			blk[12+rng.IntN(496)] ^= byte(1 + rng.IntN(255))
			binary.BigEndian.PutUint32(blk[508:], CRC32C(blk[:508]))
		}
		l, err := OpenBlockLog(bytesReaderAt(b), int64(len(b)), fmt.Sprintf("damaged copy %d", i))
		if err != nil {
			continue
		}
		sc, err := l.ScanRecords(0, nil)
		if err != nil {
			malformed++
		}
		sameAsGatheredFirst(t, l, sc, err)
	}
	t.Logf("60 damaged copies, %d of them malformed where decoding stops", malformed)
	if malformed == 0 {
		t.Error("no copy stopped at a malformed record: the damage does not reach the decoder")
	}
}
