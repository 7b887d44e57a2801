package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/finding"
	"innoscope/logformat"
	"innoscope/logformat/logformattest"
)

// TestMissingRedoFile: a MySQL 8.0.30+ log spread over #ib_redoN files (built by
// logformattest.MLogBuilder, as in TestMySQLRedoDirectory) of which one is absent. The scan said
// "the written data ends inside a mini-transaction"; it must name the missing file and the
// LSN it starts at, as the server does ("Missing redo log file ... (with start_lsn = L)").
func TestMissingRedoFile(t *testing.T) {
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
	const fileSize = 2048 + 4*512
	files := b.Files(fileSize, first)
	if len(files) < 3 {
		t.Fatalf("%d files", len(files))
	}
	for _, gone := range []int{1, len(files) - 1} { // a file in the middle; the newest one
		t.Run(fmt.Sprint("without file ", gone), func(t *testing.T) {
			dir := t.TempDir()
			redo := filepath.Join(dir, "#innodb_redo")
			os.Mkdir(redo, 0o755)
			for i, img := range files {
				if i != gone {
					if err := os.WriteFile(filepath.Join(redo, fmt.Sprintf("#ib_redo%d", 20+i)), img, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			missing := filepath.Join(redo, fmt.Sprintf("#ib_redo%d", 20+gone))
			start := uint64(0)
			if h, err := logformat.ParseHeader(files[gone], "img"); err == nil {
				start = h.FirstLSN
			}
			want := fmt.Sprintf("%s (start LSN %d)", missing, start)
			var st statsJSON
			runJSON(t, &st, "log", "stats", "--json", "--fail-on", "none", dir)
			if !strings.Contains(st.StopDetail, want) {
				t.Errorf("log stats: stop %s: %q, want it to name %s", st.StopReason, st.StopDetail, want)
			}
			if gone < len(files)-1 && !strings.Contains(st.StopDetail, "is missing") {
				t.Errorf("log stats: %q does not say the file is missing", st.StopDetail)
			}
			// A gap makes the server refuse to start: an error finding naming the file; a
			// newest file that is simply not there yet is the end of the log, no finding.
			gap := false
			for _, f := range st.Findings {
				if f.Code == "MISSING_REDO_FILE" && f.Severity == finding.Error && strings.Contains(f.Message, want) {
					gap = true
				}
			}
			if gap != (gone < len(files)-1) {
				t.Errorf("log stats: MISSING_REDO_FILE error %v with file %d of %d gone: %+v", gap, gone, len(files), st.Findings)
			}
			_, errs, _ := run("log", "records", "--json", dir)
			if !strings.Contains(errs, want) {
				t.Errorf("log records: end of log %q does not name %s", errs, want)
			}
		})
	}
}
