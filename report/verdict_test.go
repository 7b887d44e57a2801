package report

import (
	"bufio"
	"strings"
	"testing"
)

func TestVerdict(t *testing.T) {
	u := uint32(3)
	fs := []Finding{
		{Severity: Info, Code: "UNCLEAN_SHUTDOWN", File: "ib_logfile0"},
		{Severity: Error, Code: "CORRUPT_PAGE", File: "a.ibd"},
		{Severity: Error, Code: "SPACE_ID_MISMATCH", File: "b.ibd", SpaceID: &u},
		{Severity: Warning, Code: "ORPHAN_FILE", File: "c.ibd"},
		{Severity: Error, Code: "SPACE_ID_MISMATCH", File: "d.ibd"},
	}
	for _, c := range []struct {
		fs   []Finding
		o    Outcome
		want string
	}{
		{fs, Outcome{Pages: 2449}, "mariadbd will refuse to start: SPACE_ID_MISMATCH in 2 files and 1 other error"},
		{fs[:2], Outcome{}, "mariadbd will start, but tables will fail: CORRUPT_PAGE in 1 file"},
		{fs[3:4], Outcome{Pages: 2449}, "mariadbd will start and apply 2,449 pages, with warnings: ORPHAN_FILE in 1 file"},
		{fs[:1], Outcome{Pages: 2449}, "mariadbd will start and apply 2,449 pages"},
		{fs[:1], Outcome{Logged: true}, "mariadbd will start and apply the log to the pages its start-up reads"},
		{nil, Outcome{RollBack: 1, RowsToUndo: 716}, "mariadbd will start and roll back 1 transaction (716 row operations)"},
		{nil, Outcome{Pages: 3, RollBack: 2, RowsToUndo: 1500}, "mariadbd will start and apply 3 pages, then roll back 2 transactions (1,500 row operations)"},
		{nil, Outcome{After: "the replayed copy verified (10 pages)"}, "mariadbd will start: nothing to recover; the replayed copy verified (10 pages)"},
	} {
		if got := MakeVerdict(c.fs, c.o).Sentence; got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
	s := SortFindings(fs)
	want := []string{"SPACE_ID_MISMATCH", "SPACE_ID_MISMATCH", "CORRUPT_PAGE", "ORPHAN_FILE", "UNCLEAN_SHUTDOWN"}
	for i, f := range s {
		if f.Code != want[i] {
			t.Errorf("sorted %d: %s, want %s", i, f.Code, want[i])
		}
	}
}

func TestWrap(t *testing.T) {
	o := &Output{width: 30}
	for _, l := range wrapCell("a very long message with /a/path/that/is/longer/than/thirty/characters in it", 30) {
		if visibleLen(l) > o.width {
			t.Errorf("%q wider than 30", l)
		}
	}
	if got := Thousands(1234567); got != "1,234,567" {
		t.Errorf("Thousands: %s", got)
	}
}

// TestBlocksLabelANumberHead: a table too wide for the terminal prints each row as a block; a
// row whose second cell is a number is headed by its first cell with its header, the number on
// a labelled line (a checkpoint block printed "4096  646535" under no header: new-user trial).
func TestBlocksLabelANumberHead(t *testing.T) {
	var b strings.Builder
	w := bufio.NewWriter(&b)
	o := &Output{w: w, width: 40}
	o.blocks([]string{"BLOCK OFFSET", "CHECKPOINT LSN", "VALIDITY"}, [][]string{{"4096", "646535", "valid"}})
	o.blocks([]string{"SEVERITY", "CODE", "MESSAGE"}, [][]string{{"warning", "CHECKPOINT_REJECTED", "x"}})
	w.Flush()
	want := "block offset 4096\n  CHECKPOINT LSN  646535\n  VALIDITY        valid\n\nwarning  CHECKPOINT_REJECTED\n  MESSAGE  x\n\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestProgressLabelFits: the progress line's label is cut in its middle to the room the
// terminal leaves (an 83-character line wrapped on an 80-column terminal: new-user trial).
func TestProgressLabelFits(t *testing.T) {
	l := "reading /work/trial-s11/copies/a/very/long/path/to/the/data/directory/ibdata1"
	got := fitLabel(l, 40)
	if len([]rune(got)) != 40 || !strings.HasPrefix(got, "reading /work") || !strings.HasSuffix(got, "/ibdata1") {
		t.Errorf("fitLabel: %q", got)
	}
	if fitLabel("short", 40) != "short" || fitLabel(l, 0) != l {
		t.Error("a label that fits, or no limit, changed")
	}
}
