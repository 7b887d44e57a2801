package redo

import (
	"os"
	"syscall"

	"innoscope/internal/regular"
)

// openSized opens the regular file at p read-only, with its size. Anything else is refused
// without blocking (a FIFO is opened O_NONBLOCK and then refused): the rule of
// discovery.OpenRegular, which this package sits below.
func openSized(p string) (*os.File, int64, error) {
	if fi, err := os.Stat(p); err != nil {
		return nil, 0, err
	} else if !fi.Mode().IsRegular() {
		return nil, 0, regular.NotRegular(p, fi.Mode())
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = regular.NotRegular(p, fi.Mode())
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}
