package redo

import (
	"errors"

	"innoscope/internal/regular"
	"innoscope/logformat"
)

// Ends reads the MariaDB 10.8+ log file at path (one innoscope wrote, e.g. a recovered copy's)
// to its end: the selected checkpoint's LSN and the end of the log.
func Ends(path string) (cpLSN, end uint64, err error) {
	f, err := regular.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	fi, _ := f.Stat()
	l, _, err := logformat.Open(f, fi.Size(), path)
	if err != nil {
		return 0, 0, err
	}
	cp, ok := l.Checkpoint()
	if !ok {
		return 0, 0, errors.New("no valid checkpoint")
	}
	sc := l.Scan(cp.LSN, logformat.ScanOptions{})
	for sc.Next() {
	}
	return cp.LSN, sc.LSN(), nil
}
