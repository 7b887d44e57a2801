package report

import (
	"encoding/json"
	"fmt"
	"io"

	"innoscope/finding"
)

// jsonError is what a failed command prints on stdout with --json.
type jsonError struct {
	Error  string  `json:"error"`
	File   *string `json:"file"`   // null when no file is concerned
	Offset *int64  `json:"offset"` // null when not known
	LSN    *uint64 `json:"lsn,omitempty"`
}

// JSONError prints err as one JSON object: its message, and the file, byte offset and LSN it
// names (finding.Locate), null where unknown.
func JSONError(w io.Writer, err error) {
	j := jsonError{Error: err.Error()}
	if at, ok := finding.Locate(err); ok {
		j.File = &at.File
		if at.Offset >= 0 {
			j.Offset = &at.Offset
		}
		if at.LSN != 0 {
			j.LSN = &at.LSN
		}
	}
	b, _ := json.Marshal(j)
	fmt.Fprintf(w, "%s\n", b)
}
