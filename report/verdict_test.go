package report

import (
	"bufio"
	"strings"
	"testing"
)

func TestWrap(t *testing.T) {
	o := &Output{width: 30}
	for _, l := range wrapCell("a very long message with /a/path/that/is/longer/than/thirty/characters in it", 30) {
		if visibleLen(l) > o.width {
			t.Errorf("%q wider than 30", l)
		}
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
