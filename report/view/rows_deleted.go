package view

import (
	"fmt"
	"io"

	"innoscope/finding"
)

// RowsHint says an info finding of `rows` (DELETED_ROWS_ON_DISK) on stderr, in one line.
func RowsHint(stderr io.Writer, f *finding.Finding) {
	if f != nil {
		fmt.Fprintf(stderr, "innoscope: %s %s: %s: %s\n", f.Severity, f.Code, f.File, f.Message)
	}
}
