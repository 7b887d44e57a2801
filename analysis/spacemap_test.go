package analysis

import (
	"bytes"
	"testing"

	"innoscope/logformat"
	"innoscope/logformat/logformattest"
)

// TestMapRenameChain builds a log with a create, a rename chain, a page record and a delete,
// and checks the map at every point. (Real logs are tested in cmd against the server.)
func TestMapRenameChain(t *testing.T) {
	b, _ := logformat.NewBuilder(1<<20, 12288, "MariaDB test")
	b.SetCheckpoint(0, 12288, 12288)
	var lsn []uint64
	for _, rec := range [][]byte{
		logformat.FileCheckpointRecord(12288),
		append(logformattest.FileRecord(logformat.FileCreate, 7, "./db/a.ibd", ""), logformattest.PageRecord(logformat.InitPage, false, 7, 0, nil)...),
		logformattest.FileRecord(logformat.FileRename, 7, "./db/a.ibd", "./db/b.ibd"),
		logformattest.FileRecord(logformat.FileRename, 7, "./db/b.ibd", "./db/c.ibd"),
		append(logformattest.FileRecord(logformat.FileModify, 8, "./db/x.ibd", ""), logformattest.PageRecord(logformat.Write, false, 8, 3, []byte{100, 1})...),
		logformattest.FileRecord(logformat.FileDelete, 8, "./db/x.ibd", ""),
	} {
		s, _ := b.AppendMTR(rec)
		lsn = append(lsn, s)
	}
	img := b.Bytes()
	l, _, err := logformat.Open(bytes.NewReader(img), int64(len(img)), "test")
	if err != nil {
		t.Fatal(err)
	}
	at := func(a uint64) *Analysis {
		an, err := Analyze(l.Scan(12288, logformat.ScanOptions{}), a, 12288)
		if err != nil {
			t.Fatal(err)
		}
		return an
	}
	a := at(0)
	s7, s8 := a.Map.Spaces[7], a.Map.Spaces[8]
	if s7.Name != "./db/c.ibd" || s7.Deleted || len(s7.Events) != 3 || len(s7.Names) != 3 {
		t.Errorf("space 7: %+v", s7)
	}
	if s7.Events[1].LSN != lsn[2] || s7.Events[1].Kind != Rename || s7.Events[1].NewName != "./db/b.ibd" {
		t.Errorf("rename event %+v, want LSN %d", s7.Events[1], lsn[2])
	}
	if !s8.Deleted || s8.Name != "./db/x.ibd" {
		t.Errorf("space 8: %+v", s8)
	}
	if read := a.Pages[PageID{7, 0}]; read || !a.Pages[PageID{8, 3}] || a.PageRecords != 2 {
		t.Errorf("pages %v, %d page records: INIT_PAGE means no read, WRITE alone means a read", a.Pages, a.PageRecords)
	}
	if a.FileCheckpointEnd != lsn[1] {
		t.Errorf("FILE_CHECKPOINT ends at %d, want %d", a.FileCheckpointEnd, lsn[1])
	}
	if s := at(lsn[3]).Map.Spaces[7]; s.Name != "./db/b.ibd" {
		t.Errorf("before the second rename: %s", s.Name)
	}
	if _, ok := at(lsn[4]).Map.Spaces[8]; ok {
		t.Error("space 8 is in the map before its first record")
	}
}
