package logformat

import (
	"errors"
	"fmt"
	"innoscope/finding"
)

// ErrUnsupported is wrapped by errors about logs that are recognised but not decoded yet
// (older MariaDB and MySQL formats, encrypted logs).
var ErrUnsupported = errors.New("not supported yet")

// ErrHeaderChecksum is wrapped by Open's error for a header block whose CRC-32C fails
// (OpenDamagedHeader reads such a log all the same).
var ErrHeaderChecksum = errors.New("invalid log header checksum")

// FormatError reports bytes that do not decode, naming the file and where in it.
type FormatError struct {
	File   string // path or name of the log file
	Offset int64  // byte offset in the file, or -1 when not known
	LSN    uint64 // log sequence number at the fault, or 0 when not relevant
	Msg    string
	Err    error // wrapped cause, e.g. ErrUnsupported or an I/O error
}

func (e *FormatError) Error() string {
	s := e.File
	if e.Offset >= 0 {
		s += fmt.Sprintf(": offset %d", e.Offset)
	}
	if e.LSN != 0 {
		s += fmt.Sprintf(" (LSN %d)", e.LSN)
	}
	s += ": " + e.Msg
	if e.Err != nil && !errors.Is(e.Err, ErrUnsupported) && !errors.Is(e.Err, ErrHeaderChecksum) {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *FormatError) Unwrap() error { return e.Err }

// Where is the place of the error (finding.Locator): its file, byte offset and LSN.
func (e *FormatError) Where() finding.Where {
	return finding.Where{File: e.File, Offset: e.Offset, LSN: e.LSN}
}
