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
	for _, l := range res.Lost {
		fmt.Fprintf(stderr, "innoscope: %s: page %d: %s: %d rows lost\n", res.File, l.Page, l.Reason, l.Rows)
	}
	if len(res.Lost) == 0 {
		return false
	}
	fmt.Fprintf(stderr, "innoscope: %s: %d rows printed, %d rows lost on %d pages\n", res.Table, res.Rows, res.LostRows, len(res.Lost))
	return true
}
