package finding

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
)

// Where is what an error says of its place: the file, the byte offset in it and the LSN,
// each when known.
type Where struct {
	File   string
	Offset int64  // -1: not known
	LSN    uint64 // 0: not known
}

// Locator is an error that knows its place (a format error of the redo log).
type Locator interface {
	Where() Where
}

// Locate is where err happened: from an error in its chain that knows its place (Locator);
// else the file (and "offset N") the message starts with ("/d/ib_logfile0: offset 4096: ..."),
// as the datafile readers write it; else the file of an OS error it wraps (*fs.PathError).
// false when it says nothing of a file.
func Locate(err error) (Where, bool) {
	var l Locator
	if errors.As(err, &l) {
		return l.Where(), true
	}
	msg := err.Error()
	if f := fileOf(msg); f != "" {
		w := Where{File: f, Offset: -1}
		if off, ok := offsetOf(msg[len(f)+2:]); ok {
			w.Offset = off
		}
		return w, true
	}
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) && pe.Path != "" { // "stat /x: no such file"
		f := pe.Path
		if a, err := filepath.Abs(f); err == nil {
			f = a
		}
		return Where{File: f, Offset: -1}, true
	}
	return Where{}, false
}

// offsetOf is the byte offset a message names right after its file ("offset N: ...").
func offsetOf(rest string) (int64, bool) {
	num, _, ok := strings.Cut(strings.TrimPrefix(rest, "offset "), ":")
	if !ok || !strings.HasPrefix(rest, "offset ") {
		return 0, false
	}
	n, err := strconv.ParseInt(num, 10, 64)
	return n, err == nil && n >= 0
}

// fileOf is the path an error message starts with ("/d/ib_logfile0: ..."), or "".
func fileOf(msg string) string {
	if !strings.HasPrefix(msg, "/") {
		return ""
	}
	if i := strings.Index(msg, ": "); i > 0 && !strings.Contains(msg[:i], " ") {
		return msg[:i]
	}
	return ""
}
