package logformat

import (
	"os"
	"syscall"
)

// mapLog maps the log file into memory read-only, or returns nil (a reader that is not an
// *os.File, or a failed mmap: the caller reads instead). unmap undoes it once nothing refers
// to the mapping any more.
func mapLog(l *Log) []byte {
	f, ok := l.r.(*os.File)
	if !ok || l.Size <= StartOffset || int64(int(l.Size)) != l.Size {
		return nil
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, int(l.Size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil
	}
	_ = syscall.Madvise(m, syscall.MADV_SEQUENTIAL)
	return m
}

func unmap(m []byte) {
	if m != nil {
		_ = syscall.Munmap(m)
	}
}

// mapWindow makes the window the mapped bytes from s.lsn on, up to the end of the file or the
// scan's limit, when they hold a whole mini-transaction or reach the limit. Near the end of
// the file, where the ring wraps, it returns false: fill reads into a buffer then.
func (s *Scanner) mapWindow() bool {
	off := s.log.FileOffset(s.lsn)
	n := uint64(len(s.mapped)) - uint64(off)
	if rest := s.limit - s.lsn; n > rest {
		n = rest
	}
	if n < MaxMTRSize+16 && s.lsn+n < s.limit {
		return false
	}
	s.buf, s.bufLSN, s.bufN = s.mapped[off:off+int64(n)], s.lsn, int(n)
	return true
}
