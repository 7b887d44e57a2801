package cmd

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/finding"
	"innoscope/logformat"
	"innoscope/logformat/logformattest"
)

// TestMySQLBlockLog reads the real MySQL 8.0.33 redo file: the header and both checkpoint blocks
// verify, recovery's checkpoint is the larger one, every block from the start LSN verifies
// (checksum, block number, epoch), and the walk stops at the last written block, after which the
// file holds only zeros. The expected values come from the file's own bytes (start LSN at 8,
// checkpoint LSNs at 512+8 and 1536+8), not from innoscope.
func TestMySQLBlockLog(t *testing.T) {
	p := peerFixture(t, "mysql-8.0.33-docker-sample/#ib_redo10")
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var h headerJSON
	runJSON(t, &h, "log", "header", "--json", p)
	be := binary.BigEndian
	start, cp1, cp2 := be.Uint64(raw[8:]), be.Uint64(raw[512+8:]), be.Uint64(raw[1536+8:])
	want := cp1
	if cp2 > want {
		want = cp2
	}
	if h.Format != "MySQL 8.0.30+" || h.Creator != "MySQL 8.0.33" || h.FirstLSN != start || !h.HeaderCRCValid ||
		h.CheckpointLSN == nil || *h.CheckpointLSN != want || len(h.Checkpoints) != 2 || !h.Checkpoints[0].Valid || !h.Checkpoints[1].Valid {
		t.Fatalf("header %+v (checkpoints %d, %d)", h, cp1, cp2)
	}
	b := h.Blocks
	if b == nil || b.StopReason != string(logformat.StopZero) {
		t.Fatalf("blocks %+v", b)
	}
	last := int64(2048 + (b.Count-1)*512)
	if b.StopOffset != last || b.EndLSN != start+uint64(last-2048)+uint64(be.Uint16(raw[last+4:])) {
		t.Errorf("blocks %+v, last block at %d", b, last)
	}
	for i := last + 512; i < int64(len(raw)); i++ {
		if raw[i] != 0 {
			t.Fatalf("byte %d after the last block is %#x: the walk stopped before the end of the written data", i, raw[i])
		}
	}
	t.Logf("%d blocks, data ends at LSN %d; checkpoint %d", b.Count, b.EndLSN, want)
}

// TestMySQLRecordsCLI: `log stats` and `log records` on the real MySQL 8.0.33 file. From the
// checkpoint (the end of its data: the server shut down cleanly) nothing is to be recovered;
// from the first mini-transaction in the file everything decodes, with the counts
// logformat.TestMySQLRecords cross-checks against the blocks' first_rec_group fields.
func TestMySQLRecordsCLI(t *testing.T) {
	p := peerFixture(t, "mysql-8.0.33-docker-sample/#ib_redo10")
	var st statsJSON
	runJSON(t, &st, "log", "stats", "--json", p)
	if st.MTRCount != 0 || st.CrashRecovery || st.EndLSN != st.CheckpointLSN || len(st.Findings) != 0 {
		t.Errorf("from the checkpoint: %+v", st)
	}
	runJSON(t, &st, "log", "stats", "--json", "--from-lsn", "1", p)
	if st.MTRCount != 22050 || st.RecordCount != 37248 || st.RecordsByType["MLOG_REC_UPDATE_IN_PLACE"] != 8676 ||
		st.EndLSN != st.CheckpointLSN || st.StopReason != string(logformat.StopZero) || st.PagesTouched == 0 {
		t.Errorf("whole file: %+v", st)
	}
	out, _, code := run("log", "records", "--json", "--from-lsn", "1", "--type", "MLOG_REC_INSERT,MLOG_TABLE*", p)
	if n := strings.Count(out, "\n"); code != ExitClean || n != 1173+208 {
		t.Errorf("records: exit %d, %d lines", code, n)
	}
}

// TestMySQLFileRecordsMap: a MySQL 8.0.30+ file built byte by byte (logformattest.MLogBuilder:
// log0constants.h block layout, fil_op_write_log file records) with a create, two renames, and
// a create then delete: `map` gives the history, `--at-lsn` the name before the second rename,
// and `log stats` from the checkpoint at the first record predicts crash recovery.
func TestMySQLFileRecordsMap(t *testing.T) {
	b, err := logformattest.NewMLogBuilder(512*8000, "MySQL 8.0.33")
	if err != nil {
		t.Fatal(err)
	}
	first := b.AddMTR(logformattest.MLogFileRecord(logformat.MLogFileCreate, 7, "./db/a.ibd", ""),
		logformattest.MLogPageRecord(logformat.MLogInitFilePage2, 7, 0, nil))
	b.AddMTR(logformattest.MLogFileRecord(logformat.MLogFileRename, 7, "./db/a.ibd", "./db/b.ibd"))
	second := b.AddMTR(logformattest.MLogFileRecord(logformat.MLogFileRename, 7, "./db/b.ibd", "./db/c.ibd"))
	b.AddMTR(logformattest.MLogFileRecord(logformat.MLogFileCreate, 8, "./db/d.ibd", ""))
	b.AddMTR(logformattest.MLogFileRecord(logformat.MLogFileDelete, 8, "./db/d.ibd", ""))
	dir := t.TempDir()
	p := filepath.Join(dir, "#ib_redo8000")
	if err := os.WriteFile(p, b.Bytes(2048+8*512, first), 0o644); err != nil {
		t.Fatal(err)
	}
	m := mapOf(t, p)
	if len(m) != 2 || m[0].ID != 7 || m[0].Name != "./db/c.ibd" || m[0].Deleted || len(m[0].Events) != 3 ||
		strings.Join(m[0].Names, ",") != "./db/a.ibd,./db/b.ibd,./db/c.ibd" || m[1].ID != 8 || !m[1].Deleted {
		t.Errorf("map %+v", m)
	}
	if m := mapOf(t, "--at-lsn", fmt.Sprint(second), p); m[0].Name != "./db/b.ibd" || len(m) != 1 {
		t.Errorf("map before the second rename: %+v", m)
	}
	var st statsJSON
	runJSON(t, &st, "log", "stats", "--json", p)
	if !st.CrashRecovery || st.MTRCount != 5 || st.StartLSN != first || st.EndLSN != b.EndLSN() || st.PageRecords != 1 {
		t.Errorf("stats %+v", st)
	}
}

// TestMySQLRedoDirectory: a data directory whose #innodb_redo holds a log spread over several
// #ib_redoN files (built by logformattest.MLogBuilder, 4 blocks of data each, a spare
// #ib_redoN_tmp beside them): `log stats` and `map` of the directory read across the files,
// mini-transactions and records that straddle two files included; one file alone ends where
// it ends.
func TestMySQLRedoDirectory(t *testing.T) {
	b, err := logformattest.NewMLogBuilder(512*9000, "MySQL 8.0.33")
	if err != nil {
		t.Fatal(err)
	}
	first := b.AddMTR(logformattest.MLogFileRecord(logformat.MLogFileCreate, 7, "./db/a.ibd", ""))
	body := append([]byte{0, 100, 0x03, 0x20}, make([]byte, 800)...) // MLOG_WRITE_STRING of 800 bytes
	for i := 0; i < 6; i++ {
		b.AddMTR(logformattest.MLogPageRecord(logformat.MLogWriteString, 7, uint32(3+i), body),
			logformattest.MLogPageRecord(logformat.MLog2Bytes, 7, uint32(3+i), []byte{0, 24, 0x81, 0x02}))
	}
	b.AddMTR(logformattest.MLogFileRecord(logformat.MLogFileRename, 7, "./db/a.ibd", "./db/b.ibd"))
	dir := t.TempDir()
	redo := filepath.Join(dir, "#innodb_redo")
	os.Mkdir(redo, 0o755)
	files := b.Files(2048+4*512, first)
	if len(files) < 3 {
		t.Fatalf("%d files", len(files))
	}
	for i, img := range files {
		if err := os.WriteFile(filepath.Join(redo, fmt.Sprintf("#ib_redo%d", 20+i)), img, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(redo, "#ib_redo99_tmp"), make([]byte, 4096), 0o644)
	var st statsJSON
	runJSON(t, &st, "log", "stats", "--json", dir)
	if st.MTRCount != 8 || st.RecordCount != 1+6*3+1 || st.StartLSN != first || st.EndLSN != b.EndLSN() || !st.CrashRecovery {
		t.Errorf("directory of %d files: %+v (end %d)", len(files), st, b.EndLSN())
	}
	if m := mapOf(t, dir); len(m) != 1 || m[0].Name != "./db/b.ibd" || len(m[0].Events) != 2 {
		t.Errorf("map across files: %+v", m)
	}
	runJSON(t, &st, "log", "stats", "--json", filepath.Join(redo, "#ib_redo20"))
	if st.MTRCount >= 8 || st.StopReason != string(logformat.StopZero) {
		t.Errorf("one file of the chain: %+v", st)
	}
}

// TestRingLogDirectory: data directories whose ib_logfile0 and ib_logfile1 hold a ring of an
// older format, built byte by byte by logformattest.MLogBuilder.Ring from the layouts of MySQL
// 5.6/5.7/8.0 and MariaDB 10.4 (log0log.h, log0recv.cc recv_find_max_checkpoint,
// fil0fil.cc fil_op_write_log, mtr0mtr.cc mtr_t::commit_checkpoint), wrapping from the second
// file to the first: `log header` names the format and the checkpoint, `log stats` predicts
// crash recovery, `map --from-lsn` gives the rename chain, `--at-lsn` the name before the
// second rename, and `map` from the checkpoint sees MLOG_FILE_NAME as the table's use.
func TestRingLogDirectory(t *testing.T) {
	for _, c := range []struct {
		format                uint32
		creator, name, vendor string
		create, rename        logformat.MLogType
		fileName              bool
	}{
		{logformat.FormatMySQL57, "MySQL 5.7.44", "MySQL 5.7", "MySQL", logformat.MLogFileCreate2, logformat.MLogFileRename2, true},
		{logformat.FormatMySQL80_19, "MySQL 8.0.27", "MySQL 8.0.19+", "MySQL", logformat.MLogFileCreate, logformat.MLogFileRename, false},
		{logformat.FormatMySQL80_28, "MySQL 8.0.29", "MySQL 8.0.28+", "MySQL", logformat.MLogFileCreate, logformat.MLogFileRename, false},
		{logformat.FormatMariaDB104, "MariaDB 10.4.34", "MariaDB 10.4", "MariaDB", logformat.MLogFileCreate2, logformat.MLogFileRename2, true},
		// Format 0 has no creator: MySQL 5.6 and MariaDB 10.0/10.1 look alike.
		{logformat.FormatLegacy, "", "MySQL 5.6 / MariaDB 10.0-10.1 (format 0)", "", logformat.MLogFileCreate, logformat.MLogFileRename, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var first, cp, second uint64
			build := func(withCheckpoint bool) (*logformattest.MLogBuilder, string) {
				b, err := logformattest.NewMLogBuilder(512*6000, c.creator)
				if err != nil {
					t.Fatal(err)
				}
				create := logformattest.MLogFileRecord(c.create, 9, "./db/a.ibd", "")
				if c.format == logformat.FormatLegacy {
					create = logformattest.MLogLegacyCreateRecord(9, "./db/a.ibd")
				}
				first = b.AddMTR(create, logformattest.MLogPageRecord(logformat.MLogIbufBitmapInit, 9, 1, nil))
				b.AddMTR(logformattest.MLogFileRecord(c.rename, 9, "./db/a.ibd", "./db/b.ibd"))
				cp = b.AddMTR(logformattest.MLogPageRecord(logformat.MLog2Bytes, 9, 3, []byte{0, 24, 0x81, 0x02}))
				if c.fileName {
					b.AddMTR(logformattest.MLogFileRecord(logformat.MLogFileName, 9, "./db/b.ibd", ""))
					if withCheckpoint {
						b.AddMTR(logformattest.MLogCheckpointRecord(cp))
					}
				}
				second = b.AddMTR(logformattest.MLogFileRecord(c.rename, 9, "./db/b.ibd", "./db/c.ibd"))
				body := append([]byte{0, 100, 0x03, 0x20}, make([]byte, 800)...) // MLOG_WRITE_STRING of 800 bytes
				b.AddMTR(logformattest.MLogPageRecord(logformat.MLogWriteString, 9, 4, body))
				dir := t.TempDir()
				for k, img := range b.Ring(c.format, 2, 2048+6*512, 10*512, cp, 42) {
					if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("ib_logfile%d", k)), img, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				return b, dir
			}
			if c.fileName {
				// Without MLOG_CHECKPOINT the server ignores the log and refuses to start.
				_, dir := build(false)
				out, _, code := run("log", "stats", "--json", dir)
				if code != ExitFindings || !strings.Contains(out, "MISSING_MLOG_CHECKPOINT") {
					t.Errorf("log without MLOG_CHECKPOINT: exit %d\n%s", code, out)
				}
			}
			b, dir := build(true)
			var h headerJSON
			runJSON(t, &h, "log", "header", "--json", dir)
			if h.Format != c.name || h.Creator != c.creator || h.Vendor != c.vendor || h.CheckpointLSN == nil || *h.CheckpointLSN != cp || h.Blocks == nil || h.Blocks.EndLSN != b.EndLSN() {
				t.Fatalf("header %+v (end %d)", h, b.EndLSN())
			}
			var st statsJSON
			runJSON(t, &st, "log", "stats", "--json", dir)
			if !st.CrashRecovery || st.StartLSN != cp || st.EndLSN != b.EndLSN() || st.PageRecords != 2 {
				t.Errorf("stats %+v", st)
			}
			m := mapOf(t, "--from-lsn", fmt.Sprint(first), dir)
			if len(m) != 1 || m[0].Name != "./db/c.ibd" || strings.Join(m[0].Names, ",") != "./db/a.ibd,./db/b.ibd,./db/c.ibd" {
				t.Errorf("map %+v", m)
			}
			if m := mapOf(t, "--from-lsn", fmt.Sprint(first), "--at-lsn", fmt.Sprint(second), dir); len(m) != 1 || m[0].Name != "./db/b.ibd" {
				t.Errorf("map before the second rename: %+v", m)
			}
			want := 1 // the rename after the checkpoint
			if c.fileName {
				want = 2 // and MLOG_FILE_NAME
			}
			if m := mapOf(t, dir); len(m) != 1 || len(m[0].Events) != want || m[0].Name != "./db/c.ibd" {
				t.Errorf("map from the checkpoint: %+v", m)
			}
			diagnoseOlder(t, dir, "db/c.ibd")
		})
	}
}

// TestPhys105Directory: a MariaDB 10.6 data directory's ib_logfile0 built byte by byte
// (logformattest.MLogBuilder.AddPhysMTR: 10.8 records ended by 0x00 in 512-byte blocks, as
// log0recv.cc of 10.5 parses them): `log header` names the format, `log stats` from the
// checkpoint finds the FILE_CHECKPOINT and predicts crash recovery, `log records` lists the
// records, `map --from-lsn` gives the rename chain; without the FILE_CHECKPOINT the server's
// refusal is predicted.
func TestPhys105Directory(t *testing.T) {
	var rename uint64
	build := func(withCheckpoint bool) (string, uint64, uint64, *logformattest.MLogBuilder) {
		b, err := logformattest.NewMLogBuilder(512*7000, "MariaDB 10.6.21")
		if err != nil {
			t.Fatal(err)
		}
		first := b.AddPhysMTR(logformattest.FileRecord(logformat.FileCreate, 5, "./db/t1.ibd", ""),
			logformattest.PageRecord(logformat.InitPage, false, 5, 0, nil))
		b.AddPhysMTR(logformattest.FileRecord(logformat.FileRename, 5, "./db/t1.ibd", "./db/t2.ibd"))
		cp := b.AddPhysMTR(logformattest.FileRecord(logformat.FileModify, 5, "./db/t2.ibd", ""))
		if withCheckpoint {
			b.AddPhysMTR(logformat.FileCheckpointRecord(cp))
		}
		b.AddPhysMTR(logformattest.PageRecord(logformat.Write, false, 5, 3, append(logformat.AppendVarint(nil, 100), make([]byte, 600)...)))
		rename = b.AddPhysMTR(logformattest.FileRecord(logformat.FileRename, 5, "./db/t2.ibd", "./db/t3.ibd"))
		dir := t.TempDir()
		img := b.Ring(logformat.FormatMariaDB105, 1, 2048+8*512, 6*512, cp, 9)[0]
		if err := os.WriteFile(filepath.Join(dir, "ib_logfile0"), img, 0o644); err != nil {
			t.Fatal(err)
		}
		return dir, first, cp, b
	}
	dir, first, cp, b := build(true)
	var h headerJSON
	runJSON(t, &h, "log", "header", "--json", dir)
	if h.Format != "MariaDB 10.5-10.7" || h.Vendor != "MariaDB" || h.CheckpointLSN == nil || *h.CheckpointLSN != cp || h.Blocks.EndLSN != b.EndLSN() {
		t.Fatalf("header %+v", h)
	}
	var st statsJSON
	runJSON(t, &st, "log", "stats", "--json", dir)
	if !st.CrashRecovery || st.StartLSN != cp || st.EndLSN != b.EndLSN() || st.MTRCount != 4 || st.FileCheckpointEndLSN == nil || st.PageRecords != 1 {
		t.Errorf("stats %+v", st)
	}
	out, _, code := run("log", "records", "--json", "--from-lsn", fmt.Sprint(first), dir)
	if code != ExitClean || strings.Count(out, "\n") != 7 || !strings.Contains(out, `"type":"FILE_CHECKPOINT"`) {
		t.Errorf("records: exit %d\n%s", code, out)
	}
	m := mapOf(t, "--from-lsn", fmt.Sprint(first), dir)
	if len(m) != 1 || strings.Join(m[0].Names, ",") != "./db/t1.ibd,./db/t2.ibd,./db/t3.ibd" {
		t.Errorf("map %+v", m)
	}
	if m := mapOf(t, "--from-lsn", fmt.Sprint(first), "--at-lsn", fmt.Sprint(rename), dir); len(m) != 1 || m[0].Name != "./db/t2.ibd" {
		t.Errorf("map before the second rename: %+v", m)
	}
	diagnoseOlder(t, dir, "db/t3.ibd")
	dir, _, _, _ = build(false)
	if out, _, code := run("log", "stats", "--json", dir); code != ExitFindings || !strings.Contains(out, "MISSING_FILE_CHECKPOINT") {
		t.Errorf("without FILE_CHECKPOINT: exit %d\n%s", code, out)
	}
}

// diagnoseOlder runs `diagnose` on a crafted directory of an older log format whose table was
// renamed after the checkpoint (at renameLSN, to a file ending in newName) and whose datafiles
// are all missing: the table's data is reported gone, with the rename's LSN, and the format note
// says which rules were applied.
func diagnoseOlder(t *testing.T, dir, newName string) {
	t.Helper()
	// The directory holds only the redo log: diagnose says LOG_ONLY (what the log names, the
	// file after the renames among it) beside the format note, and judges no file; the rename
	// chain itself is map's (checked above). Exit 1 only where a server refuses the log.
	out, errs, code := run("diagnose", "--json", dir)
	var d diagnoseJSON
	if err := json.Unmarshal([]byte(out), &d); err != nil || code != ExitFindings && code != ExitClean {
		t.Fatalf("diagnose: exit %d %v\n%s", code, err, errs)
	}
	var logOnly, note, refused bool
	for _, f := range d.Findings {
		logOnly = logOnly || f.Code == "LOG_ONLY" && strings.Contains(f.Message, "./"+newName)
		note = note || f.Code == "OLDER_LOG_FORMAT"
		refused = refused || f.Severity == finding.Error
		if f.Code == "PENDING_RENAME" || f.Code == "MISSING_FILE" {
			t.Errorf("a finding about files with no files here: %+v", f)
		}
	}
	if want := map[bool]int{true: ExitFindings, false: ExitClean}[refused]; !logOnly || !note || code != want {
		t.Errorf("diagnose: exit %d (want %d), findings %+v", code, want, d.Findings)
	}
	// recover replays MariaDB 10.8+ and 10.5-10.7 logs only, and needs the datafiles: it refuses
	// before it copies anything.
	into := filepath.Join(t.TempDir(), "copy")
	if _, errs, code := run("recover", dir, "--into", into); code != ExitError || !strings.Contains(errs, "only a redo log") {
		t.Errorf("recover of an older log: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(into); !os.IsNotExist(err) {
		t.Errorf("recover refused but made %s: %v", into, err)
	}
}

// TestMLogStatsVerdictAnyRange: `log stats` of an MLOG log says whether the server runs crash
// recovery, and whether it refuses the log, by the log from its checkpoint to its end, whatever
// range --from-lsn and --to-lsn count: `--from-lsn 1` said crash_recovery false with no
// UNCLEAN_SHUTDOWN where the scan from the checkpoint said true (and left MISSING_MLOG_CHECKPOINT
// out). On the real MySQL 8.0.33 file as it is (a clean shutdown: false every way) and with its
// checkpoint blocks moved back to a mini-transaction in the middle of the file (CRC-32C
// rewritten: true every way), and on MySQL 5.7 and MariaDB 10.4 rings built byte by byte, with
// and without the MLOG_CHECKPOINT their servers need.
func TestMLogStatsVerdictAnyRange(t *testing.T) {
	verdicts := func(t *testing.T, p string, ranges ...[]string) {
		t.Helper()
		var whole statsJSON
		out, errs, code := run("log", "stats", "--json", p)
		if err := json.Unmarshal([]byte(out), &whole); err != nil {
			t.Fatalf("log stats: exit %d: %v\n%s", code, err, errs)
		}
		refuses := ""
		for _, f := range whole.Findings {
			if f.Code == "MISSING_MLOG_CHECKPOINT" {
				refuses = f.Code
			}
		}
		for _, r := range ranges {
			var st statsJSON
			out, errs, c := run(append(append([]string{"log", "stats", "--json"}, r...), p)...)
			if err := json.Unmarshal([]byte(out), &st); err != nil {
				t.Fatalf("log stats %v: exit %d: %v\n%s", r, c, err, errs)
			}
			unclean, refused := false, ""
			for _, f := range st.Findings {
				unclean = unclean || f.Code == "UNCLEAN_SHUTDOWN"
				if f.Code == "MISSING_MLOG_CHECKPOINT" {
					refused = f.Code
				}
			}
			if st.CrashRecovery != whole.CrashRecovery || unclean != (whole.CrashRecovery && st.PageRecords > 0) || refused != refuses || c != code {
				t.Errorf("log stats %v: crash_recovery %v, UNCLEAN_SHUTDOWN %v, refusal %q, exit %d; from the checkpoint: %v, %q, exit %d (%d page records counted)",
					r, st.CrashRecovery, unclean, refused, c, whole.CrashRecovery, refuses, code, st.PageRecords)
			}
		}
	}
	t.Run("mysql-8.0.33", func(t *testing.T) {
		real := peerFixture(t, "mysql-8.0.33-docker-sample/#ib_redo10")
		verdicts(t, real, []string{"--from-lsn", "1"}, []string{"--from-lsn", "1", "--to-lsn", "32758000"})
		rs, _, _ := records105(t, "--from-lsn", "1", real)
		mid := rs[len(rs)/2].MTRLSN
		raw, err := os.ReadFile(real)
		if err != nil {
			t.Fatal(err)
		}
		for _, off := range []int{512, 1536} { // the checkpoint blocks: LSN at 8, CRC-32C at 508
			binary.BigEndian.PutUint64(raw[off+8:], mid)
			binary.BigEndian.PutUint32(raw[off+508:], logformat.CRC32C(raw[off:off+508]))
		}
		p := filepath.Join(t.TempDir(), "#ib_redo10")
		if err := os.WriteFile(p, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		var st statsJSON
		runJSON(t, &st, "log", "stats", "--json", p)
		if st.CheckpointLSN != mid || !st.CrashRecovery {
			t.Fatalf("checkpoint moved to %d: %+v", mid, st)
		}
		verdicts(t, p, []string{"--from-lsn", "1"}, []string{"--from-lsn", "1", "--to-lsn", fmt.Sprint(mid)}, []string{"--to-lsn", fmt.Sprint(mid + 1)})
	})
	for _, c := range []struct {
		name    string
		format  uint32
		creator string
	}{
		{"MySQL 5.7", logformat.FormatMySQL57, "MySQL 5.7.44"},
		{"MariaDB 10.4", logformat.FormatMariaDB104, "MariaDB 10.4.34"},
	} {
		for _, withCheckpoint := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/mlog_checkpoint=%v", c.name, withCheckpoint), func(t *testing.T) {
				b, err := logformattest.NewMLogBuilder(512*6000, c.creator)
				if err != nil {
					t.Fatal(err)
				}
				first := b.AddMTR(logformattest.MLogPageRecord(logformat.MLog2Bytes, 9, 3, []byte{0, 24, 0x81, 0x02}))
				cp := b.AddMTR(logformattest.MLogFileRecord(logformat.MLogFileName, 9, "./db/t.ibd", ""))
				if withCheckpoint {
					b.AddMTR(logformattest.MLogCheckpointRecord(cp))
				}
				for i := 0; i < 20; i++ {
					b.AddMTR(logformattest.MLogPageRecord(logformat.MLog2Bytes, 9, uint32(4+i), []byte{0, 24, 0x81, 0x02}))
				}
				dir := t.TempDir()
				for k, img := range b.Ring(c.format, 2, 2048+6*512, 512, cp, 7) {
					if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("ib_logfile%d", k)), img, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				verdicts(t, dir, []string{"--from-lsn", "1"}, []string{"--from-lsn", fmt.Sprint(first)}, []string{"--from-lsn", fmt.Sprint(first), "--to-lsn", fmt.Sprint(cp + 1)})
			})
		}
	}
}
