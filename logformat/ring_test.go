package logformat_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"reflect"
	"testing"

	. "innoscope/logformat"
	. "innoscope/logformat/logformattest"
)

// ringCase is an older log format: its header, and the file record types its servers write.
type ringCase struct {
	name            string
	format          uint32
	creator         string
	dialect         MLogDialect
	create, rename  MLogType
	fileName        bool // MLOG_FILE_NAME and MLOG_CHECKPOINT (MySQL 5.7, MariaDB 10.2-10.4)
	extra           [][]byte
	extraTypes      []MLogType
	wantFormatNames string
}

// ringCases are built from the layouts in the upstream sources: MySQL 5.7 and 8.0
// (log0log.h header and checkpoint fields, log0recv.cc recv_find_max_checkpoint and
// recv_parse_or_apply_log_rec_body, mtr0log.cc mlog_parse_index, page0cur.cc
// page_cur_parse_insert_rec, fil0fil.cc fil_name_parse/fil_op_write_log), MariaDB 10.4
// (log0recv.cc, mtr0log.cc mtr_t::memset, page0zip.cc page_zip_parse_write_trx_id, fil0crypt.cc
// fil_parse_write_crypt_data).
func ringCases() []ringCase {
	// MLOG_COMP_REC_INSERT_8027: index of 3 fields (n_uniq 1, lengths 4, 6|NOT NULL, 0), then
	// the predecessor offset, the end segment length (5 << 1) and 5 bytes.
	compInsert := MLogPageRecord(MLogCompRecInsert8027, 5, 3, []byte{0, 3, 0, 1, 0, 4, 0x80, 6, 0, 0, 0, 99, 10, 1, 2, 3, 4, 5})
	// The same after instant ADD COLUMN: bit 15 of the field count, then 2 core fields.
	instantInsert := MLogPageRecord(MLogCompRecInsert8027, 5, 3, []byte{0x80, 3, 0, 2, 0, 1, 0, 4, 0x80, 6, 0, 0, 0, 99, 10, 1, 2, 3, 4, 5})
	// MLOG_REC_UPDATE_IN_PLACE_8027 on a REDUNDANT page (no index): flags, DB_TRX_ID position,
	// DB_ROLL_PTR, DB_TRX_ID, record offset, update vector of one 2-byte field.
	update := MLogPageRecord(MLogRecUpdateInPlace8027, 5, 4, []byte{0, 1, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 9, 0, 120, 0, 1, 3, 2, 0xab, 0xcd})
	mysql := [][]byte{compInsert, update}
	mysqlTypes := []MLogType{MLogCompRecInsert8027, MLogRecUpdateInPlace8027}
	crypt := MLogPageRecord(MLogFileWriteCryptData, 5, 0, append([]byte{0, 0, 0, 5, 0x27, 0x5e, 1, 16, 0, 0, 0, 1, 0, 0, 0, 1, 0}, make([]byte, 16)...))
	maria := [][]byte{instantInsert, update,
		MLogPageRecord(MLogMemset, 5, 3, []byte{0, 38, 0, 10, 0}),
		MLogPageRecord(MLogZipWriteTrxID, 5, 3, append([]byte{0, 120, 1, 0}, make([]byte, 13)...)),
		MLogPageRecord(MLogInitFreePage, 5, 9, nil), crypt}
	mariaTypes := []MLogType{MLogCompRecInsert8027, MLogRecUpdateInPlace8027, MLogMemset, MLogZipWriteTrxID, MLogInitFreePage, MLogFileWriteCryptData}
	meta := []byte{byte(MLogTableDynamicMeta), 0x1d, 0x00, 0x02, 0x81, 0x81}
	// MLOG_REC_INSERT (8.0.28+): index log version 1, COMPACT flag, 2 fields (n_uniq 1,
	// lengths 4 and 6|NOT NULL), then the insert as above.
	insert8028 := MLogPageRecord(MLogRecInsert, 5, 3, []byte{1, 1, 0, 2, 0, 1, 0, 4, 0x80, 6, 0, 99, 10, 1, 2, 3, 4, 5})
	return []ringCase{
		{"MySQL 5.7", FormatMySQL57, "MySQL 5.7.44", DialectMySQL57, MLogFileCreate2, MLogFileRename2, true, mysql, mysqlTypes, "MySQL 5.7"},
		{"MySQL 8.0.27", FormatMySQL80_19, "MySQL 8.0.27", DialectMySQL80, MLogFileCreate, MLogFileRename, false,
			append(mysql, meta), append(mysqlTypes, MLogTableDynamicMeta), "MySQL 8.0.19+"},
		// 8.0.28 and 8.0.29 still write the ring, with the new row operations (index log
		// version 1, mtr0log.cc mlog_parse_index of 8.0.28+).
		{"MySQL 8.0.29", FormatMySQL80_28, "MySQL 8.0.29", DialectMySQL8028, MLogFileCreate, MLogFileRename, false,
			[][]byte{insert8028, meta}, []MLogType{MLogRecInsert, MLogTableDynamicMeta}, "MySQL 8.0.28+"},
		{"MariaDB 10.2", FormatMySQL57, "MariaDB 10.2.44", DialectMariaDB, MLogFileCreate2, MLogFileRename2, true, maria, mariaTypes, "MariaDB 10.2"},
		{"MariaDB 10.3", FormatMariaDB103, "MariaDB 10.3.39", DialectMariaDB, MLogFileCreate2, MLogFileRename2, true, maria, mariaTypes, "MariaDB 10.3"},
		{"MariaDB 10.4", FormatMariaDB104, "MariaDB 10.4.34", DialectMariaDB, MLogFileCreate2, MLogFileRename2, true, maria, mariaTypes, "MariaDB 10.4"},
		// MySQL 5.6 (log0log.h, log0log.ic log_block_calc_checksum_innodb, fil0fil.cc
		// fil_op_write_log of 5.6: MLOG_FILE_CREATE without flags).
		{"MySQL 5.6", FormatLegacy, "", DialectLegacy, MLogFileCreate, MLogFileRename, false, mysql, mysqlTypes, "MySQL 5.6 / MariaDB 10.0-10.1 (format 0)"},
	}
}

// buildRing writes a log of case c: a table created, renamed twice with page records between
// (one record longer than a block), the checkpoint in the middle (with MLOG_FILE_NAME and
// MLOG_CHECKPOINT where the format has them), another table created and dropped. The data
// starts near the end of the second of two files and wraps to the first.
func buildRing(t testing.TB, c ringCase) (files [][]byte, mtrs []uint64, checkpoint uint64, b *MLogBuilder) {
	t.Helper()
	b, err := NewMLogBuilder(BlockSize*4000, c.creator)
	if err != nil {
		t.Fatal(err)
	}
	add := func(recs ...[]byte) uint64 {
		lsn := b.AddMTR(recs...)
		mtrs = append(mtrs, lsn)
		return lsn
	}
	create := func(space uint32, name string) []byte {
		if c.dialect == DialectLegacy { // no tablespace flags
			return MLogLegacyCreateRecord(space, name)
		}
		return MLogFileRecord(c.create, space, name, "")
	}
	initPage := MLogPageRecord(MLogInitFilePage2, 5, 0, nil)
	if c.dialect == DialectLegacy {
		initPage = MLogPageRecord(MLogInitFilePage, 5, 0, nil)
	}
	add(create(5, "./db/t1.ibd"), initPage)
	long := append([]byte{0, 100, 0x02, 0xbc}, make([]byte, 700)...)
	add(MLogPageRecord(MLogWriteString, 5, 3, long))
	add(MLogFileRecord(c.rename, 5, "./db/t1.ibd", "./db/t2.ibd"))
	checkpoint = add(c.extra...)
	if c.fileName {
		add(MLogFileRecord(MLogFileName, 5, "./db/t2.ibd", ""))
		add(MLogCheckpointRecord(checkpoint))
	}
	add(MLogPageRecord(MLog4Bytes, 5, 0, []byte{0, 50, 0xf0, 1, 2, 3, 4}))
	add(MLogFileRecord(c.rename, 5, "./db/t2.ibd", "./db/t3.ibd"))
	add(create(6, "./db/t4.ibd"))
	add(MLogFileRecord(MLogFileDelete, 6, "./db/t4.ibd", ""))
	// Two files of 8 data blocks each; the first block at data byte 13*512 (the second
	// file's sixth block), so the log wraps into the first file.
	files = b.Ring(c.format, 2, mysqlFileHdrSize+8*BlockSize, 13*BlockSize, checkpoint, 7)
	return files, mtrs, checkpoint, b
}

func ringCaseNamed(t testing.TB, name string) ringCase {
	for _, c := range ringCases() {
		if c.name == name {
			return c
		}
	}
	t.Fatalf("no ring case %q", name)
	return ringCase{}
}

func openRing(t testing.TB, files [][]byte) (*BlockLog, error) {
	t.Helper()
	var rs []io.ReaderAt
	var sizes []int64
	var names []string
	for k, f := range files {
		rs, sizes, names = append(rs, bytesReaderAt(f)), append(sizes, int64(len(f))), append(names, fmt.Sprintf("ib_logfile%d", k))
	}
	return OpenRingLog(rs, sizes, names)
}

// TestRingFormats decodes a crafted ring of each older format: detection from the header,
// the checkpoint, every mini-transaction at the LSN it was written at across the wrap, the
// dialect's record types, and the file records of the rename chain.
func TestRingFormats(t *testing.T) {
	for _, c := range ringCases() {
		t.Run(c.name, func(t *testing.T) {
			files, mtrs, checkpoint, b := buildRing(t, c)
			l, err := openRing(t, files)
			if err != nil {
				t.Fatal(err)
			}
			if l.Dialect != c.dialect || l.Header.FormatName != c.wantFormatNames || l.Selected != 1 || l.Checkpoints[l.Selected].LSN != checkpoint || l.Checkpoints[0].No != 7 {
				t.Fatalf("dialect %d, format %q, checkpoints %+v", l.Dialect, l.Header.FormatName, l.Checkpoints)
			}
			// By default the walk starts at the checkpoint's block.
			var got []uint64
			sc, err := l.ScanRecords(0, func(m *MLogMTR) error { got = append(got, m.LSN); return nil })
			if err != nil || len(got) == 0 || got[0] > checkpoint || sc.EndLSN != b.EndLSN() {
				t.Fatalf("from the checkpoint: %v, mtrs %v, end %d want %d", err, got, sc.EndLSN, b.EndLSN())
			}
			l.SetWalkStart(mtrs[0])
			got = got[:0]
			var names []string
			byType := map[MLogType]int{}
			sc, err = l.ScanRecords(0, func(m *MLogMTR) error {
				got = append(got, m.LSN)
				for _, r := range m.Records {
					byType[r.Type]++
					if r.Type.IsFile() {
						names = append(names, fmt.Sprintf("%s %d %s>%s", r.Type, r.Space, r.Name, r.NewName))
					}
					if r.Type == MLogCheckpoint && r.CheckpointLSN != checkpoint {
						t.Errorf("MLOG_CHECKPOINT of LSN %d", r.CheckpointLSN)
					}
				}
				return nil
			})
			if err != nil || !reflect.DeepEqual(got, mtrs) || sc.EndLSN != b.EndLSN() || sc.Stop != StopZero {
				t.Fatalf("%v: mtrs at %v want %v, end %d want %d (%s: %s)", err, got, mtrs, sc.EndLSN, b.EndLSN(), sc.Stop, sc.StopDetail)
			}
			for _, typ := range c.extraTypes {
				if byType[typ] != 1 {
					t.Errorf("%s decoded %d times", typ, byType[typ])
				}
			}
			want := []string{
				fmt.Sprintf("%s 5 ./db/t1.ibd>", c.create), fmt.Sprintf("%s 5 ./db/t1.ibd>./db/t2.ibd", c.rename),
				fmt.Sprintf("%s 5 ./db/t2.ibd>./db/t3.ibd", c.rename), fmt.Sprintf("%s 6 ./db/t4.ibd>", c.create),
				"MLOG_FILE_DELETE 6 ./db/t4.ibd>"}
			if c.fileName {
				want = append(want[:2], append([]string{"MLOG_FILE_NAME 5 ./db/t2.ibd>"}, want[2:]...)...)
			}
			if !reflect.DeepEqual(names, want) {
				t.Errorf("file records %q\nwant %q", names, want)
			}
		})
	}
}

// TestRingRefusals: a record type of another dialect is a corrupt log; an encrypted header,
// unequal file sizes and a damaged header are refused; a damaged checkpoint block leaves the
// other one in use.
func TestRingRefusals(t *testing.T) {
	c := ringCaseNamed(t, "MySQL 5.7") // MySQL 5.7: MariaDB's MLOG_MEMSET (63) is no type of its
	c.extra = append(c.extra, MLogPageRecord(MLogMemset, 5, 3, []byte{0, 38, 0, 10, 0}))
	files, mtrs, _, _ := buildRing(t, c)
	l, err := openRing(t, files)
	if err != nil {
		t.Fatal(err)
	}
	l.SetWalkStart(mtrs[0])
	if sc, err := l.ScanRecords(0, nil); err == nil || sc.Stop != StopMalformed || sc.MTRs != 3 {
		t.Errorf("MariaDB type in a MySQL 5.7 log: %v, %s after %d mini-transactions", err, sc.Stop, sc.MTRs)
	}
	files, _, checkpoint, _ := buildRing(t, ringCaseNamed(t, "MariaDB 10.4"))
	enc := append([]byte(nil), files[0]...)
	binary.BigEndian.PutUint32(enc[0:], FormatMariaDB104|FormatEncrypted)
	binary.BigEndian.PutUint32(enc[508:], CRC32C(enc[:508]))
	if _, err := openRing(t, [][]byte{enc, files[1]}); err == nil {
		t.Error("encrypted log accepted")
	}
	mysqlEnc, _, _, _ := buildRing(t, ringCaseNamed(t, "MySQL 8.0.27"))
	copy(mysqlEnc[0][1024:], "lCC") // innodb_redo_log_encrypt's key information
	if _, err := openRing(t, mysqlEnc); !errors.Is(err, ErrUnsupported) {
		t.Errorf("MySQL encrypted redo: %v", err)
	}
	if _, err := openRing(t, [][]byte{files[0], files[1][:len(files[1])-BlockSize]}); err == nil {
		t.Error("files of two sizes accepted")
	}
	bad := append([]byte(nil), files[0]...)
	bad[20]++
	if _, err := openRing(t, [][]byte{bad, files[1]}); err == nil {
		t.Error("damaged header accepted")
	}
	// MySQL 5.6: a byte changed in a block breaks its innodb checksum, and in a checkpoint
	// block its fold; the walk stops at that block, the other checkpoint is used.
	legacy := ringCaseNamed(t, "MySQL 5.6")
	lf, lmtrs, lcp, _ := buildRing(t, legacy)
	for k := range lf {
		lf[k] = append([]byte(nil), lf[k]...)
	}
	lf[0][mysqlCheckpoint2+9]++
	lf[1][mysqlFileHdrSize+5*BlockSize+100]++ // the first data block (data byte 13*512)
	l, err = openRing(t, lf)
	if err != nil || l.Selected != 0 || l.Checkpoints[1].Valid || l.Checkpoints[0].LSN != lcp {
		t.Fatalf("5.6 checkpoints: %v %+v", err, l.Checkpoints)
	}
	l.SetWalkStart(lmtrs[0])
	if sc, err := l.ScanBlocks(); err != nil || sc.Stop != StopChecksum || sc.Blocks != 0 {
		t.Errorf("5.6 damaged block: %v %+v", err, sc)
	}
	bad = append([]byte(nil), files[0]...)
	bad[mysqlCheckpoint2+9]++
	l, err = openRing(t, [][]byte{bad, files[1]})
	if err != nil || l.Selected != 0 || l.Checkpoints[1].Valid || l.Checkpoints[0].LSN != checkpoint {
		t.Errorf("damaged second checkpoint: %v, %+v", err, l.Checkpoints)
	}
}

// FuzzRing opens arbitrary bytes as a ring of two files (the input's halves) with every
// block's CRC-32C made valid, so that mutations reach the checkpoints, block headers and
// records; then walks and decodes it: an error or a bounded result, never a panic.
func FuzzRing(f *testing.F) {
	for _, c := range ringCases() {
		files, _, _, _ := buildRing(f, c)
		f.Add(append(append([]byte(nil), files[0]...), files[1]...))
	}
	b, _ := NewMLogBuilder(BlockSize*7000, "MariaDB 10.6.21")
	cp := b.AddPhysMTR(FileRecord(FileCreate, 5, "./db/t1.ibd", ""), PageRecord(InitPage, false, 5, 0, nil))
	b.AddPhysMTR(PageRecord(Write, false, 5, 3, append(AppendVarint(nil, 100), make([]byte, 600)...)), FileCheckpointRecord(cp))
	files := b.Ring(FormatMariaDB105, 2, mysqlFileHdrSize+4*BlockSize, 2*BlockSize, cp, 1)
	f.Add(append(append([]byte(nil), files[0]...), files[1]...))
	f.Fuzz(func(t *testing.T, img []byte) {
		if len(img) > 1<<20 || len(img)%(2*BlockSize) != 0 {
			return
		}
		for i := 0; i+BlockSize <= len(img); i += BlockSize {
			binary.BigEndian.PutUint32(img[i+508:], CRC32C(img[i:i+508]))
		}
		half := len(img) / 2
		l, err := openRing(t, [][]byte{img[:half], img[half:]})
		if err != nil {
			return
		}
		for _, from := range []uint64{0, l.Header.FirstLSN} {
			l.SetWalkStart(from)
			if l.Physical() {
				sc, err := l.PhysScanner(0, 16384)
				for err == nil && sc.Next() {
				}
				continue
			}
			sc, err := l.ScanRecords(0, nil)
			if err == nil && (sc.Stop == "" || uint64(len(sc.Blocks))*BlockSize > l.Capacity()) {
				t.Fatalf("scan %+v of a ring of %d bytes", sc, l.Capacity())
			}
			sameAsGatheredFirst(t, l, sc, err)
		}
	})
}

// TestPhys105 decodes a crafted MariaDB 10.5-10.7 log: 10.8 records (writer.go encoders, the
// same bytes as mtr0log.h of 10.5) ended by 0x00 inside the blocks of one ib_logfile0 ring,
// wrapping round the file; the checkpoint mini-transaction's FILE_CHECKPOINT, the rename
// chain, a WRITE longer than a block, and a malformed record that ends the log as corrupt.
func TestPhys105(t *testing.T) {
	b, err := NewMLogBuilder(BlockSize*7000, "MariaDB 10.6.21")
	if err != nil {
		t.Fatal(err)
	}
	var mtrs []uint64
	add := func(recs ...[]byte) uint64 { lsn := b.AddPhysMTR(recs...); mtrs = append(mtrs, lsn); return lsn }
	add(FileRecord(FileCreate, 5, "./db/t1.ibd", ""), PageRecord(InitPage, false, 5, 0, nil))
	add(PageRecord(Write, false, 5, 3, append(AppendVarint(nil, 100), make([]byte, 700)...)))
	add(FileRecord(FileRename, 5, "./db/t1.ibd", "./db/t2.ibd"))
	cp := add(PageRecord(Memset, false, 5, 3, append(AppendVarint(nil, 120), 3, 0)))
	add(FileRecord(FileModify, 5, "./db/t2.ibd", ""), FileCheckpointRecord(cp))
	add(FileRecord(FileRename, 5, "./db/t2.ibd", "./db/t3.ibd"))
	files := b.Ring(FormatMariaDB105, 1, mysqlFileHdrSize+6*BlockSize, 4*BlockSize, cp, 3)
	l, err := openRing(t, files)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Physical() || l.Header.FormatName != "MariaDB 10.5-10.7" || l.Selected != 1 || l.Checkpoints[1].LSN != cp {
		t.Fatalf("%+v", l)
	}
	l.SetWalkStart(mtrs[0])
	sc, err := l.PhysScanner(mtrs[0], 16384)
	if err != nil {
		t.Fatal(err)
	}
	var got []uint64
	var names []string
	fileCheckpoint := false
	for sc.Next() {
		m := sc.MTR()
		got = append(got, m.LSN)
		for i := range m.Records {
			r := &m.Records[i]
			if r.Type.IsFile() && r.Type != FileCheckpoint {
				names = append(names, fmt.Sprintf("%s %d %s>%s", r.Type, r.Space, r.Name(), r.NewName()))
			}
			fileCheckpoint = fileCheckpoint || r.Type == FileCheckpoint && r.CheckpointLSN == cp
		}
	}
	reason, _, _ := sc.Stop()
	if !reflect.DeepEqual(got, mtrs) || sc.LSN() != b.EndLSN() || reason != StopZero || sc.StopError() != nil || !fileCheckpoint {
		t.Fatalf("mtrs %v want %v, end %d want %d, %s", got, mtrs, sc.LSN(), b.EndLSN(), reason)
	}
	want := []string{"FILE_CREATE 5 ./db/t1.ibd>", "FILE_RENAME 5 ./db/t1.ibd>./db/t2.ibd", "FILE_MODIFY 5 ./db/t2.ibd>", "FILE_RENAME 5 ./db/t2.ibd>./db/t3.ibd"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("file records %q", names)
	}
	// A RESERVED record type in the last mini-transaction: a corrupt log at that record.
	b.AddPhysMTR([]byte{0x62, 0x05, 0x03})
	l, err = openRing(t, b.Ring(FormatMariaDB105, 1, mysqlFileHdrSize+6*BlockSize, 4*BlockSize, cp, 3))
	if err != nil {
		t.Fatal(err)
	}
	if sc, err = l.PhysScanner(0, 16384); err != nil {
		t.Fatal(err)
	}
	for sc.Next() {
	}
	if reason, _, _ := sc.Stop(); reason != StopMalformed || sc.StopError() == nil || sc.LSN() != b.EndLSN()-4 {
		t.Errorf("reserved type: %s, %v at %d", reason, sc.StopError(), sc.LSN())
	}
}
