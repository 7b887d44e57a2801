// Package regular says why a path that should be a regular file (a datafile, a redo log, an
// .isl target) is not one, in the words every command uses.
package regular

import (
	"fmt"
	"os"
)

// NotRegular is the error for a path that is not a regular file: it names the path and what
// it is instead.
func NotRegular(path string, m os.FileMode) error {
	what := "an irregular file"
	switch t := m.Type(); {
	case t&os.ModeDir != 0:
		what = "a directory"
	case t&os.ModeNamedPipe != 0:
		what = "a FIFO"
	case t&os.ModeSocket != 0:
		what = "a socket"
	case t&os.ModeCharDevice != 0:
		what = "a character device"
	case t&os.ModeDevice != 0:
		what = "a block device"
	}
	return fmt.Errorf("%s: not a regular file (%s)", path, what)
}
