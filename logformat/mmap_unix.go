//go:build unix

package logformat

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapLog maps the log file read-only, when it is a file that can be mapped: the parallel
// Summarize then frames and checks the records in place (no read copies them), and unmap
// ends the mapping. It returns nil when the log is not such a file.
func mapLog(l *Log) (m []byte, unmap func()) {
	f, ok := l.r.(*os.File)
	if !ok || l.Size <= 0 || int64(int(l.Size)) != l.Size {
		return nil, nil
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(l.Size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil
	}
	return m, func() { _ = unix.Munmap(m) }
}
