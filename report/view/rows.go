package view

import (
	"fmt"
	"io"

	"innoscope/rows"
)

// RowsLost says on stderr what `rows` noted and what it could not print; it tells whether rows
// were lost.
func RowsLost(stderr io.Writer, res *rows.Result) bool {
	for _, n := range res.Notes {
		fmt.Fprintf(stderr, "innoscope: %s: %s\n", res.File, n)
	}
	unknown := false
	for _, l := range res.Lost {
		if l.Unknown {
			unknown = true
			fmt.Fprintf(stderr, "innoscope: %s: page %d: %s (how many is not known)\n", res.File, l.Page, l.Reason)
			continue
		}
		fmt.Fprintf(stderr, "innoscope: %s: page %d: %s: %d rows lost\n", res.File, l.Page, l.Reason, l.Rows)
	}
	if len(res.Lost) == 0 {
		return false
	}
	lost := fmt.Sprintf("%d rows lost on %d pages", res.LostRows, len(res.Lost))
	if unknown {
		lost = fmt.Sprintf("%d rows lost on the pages read and more on the missing pages (how many is not known)", res.LostRows)
	}
	fmt.Fprintf(stderr, "innoscope: %s: %d rows printed, %s\n", res.Table, res.Rows, lost)
	return true
}
