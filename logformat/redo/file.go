package redo

import (
	"fmt"
	"os"
	"syscall"
)

// openSized opens the regular file at p read-only, with its size. Anything else is refused
// without blocking (a FIFO is opened O_NONBLOCK and then refused): the rule of
// discovery.OpenRegular, which this package sits below.
func openSized(p string) (*os.File, int64, error) {
	if fi, err := os.Stat(p); err != nil {
		return nil, 0, err
	} else if !fi.Mode().IsRegular() {
		return nil, 0, notRegular(p, fi.Mode())
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = notRegular(p, fi.Mode())
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// notRegular is the error for a path that is not a regular file: it names the path and what
// it is instead (the words of discovery.NotRegular).
func notRegular(path string, m os.FileMode) error {
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
