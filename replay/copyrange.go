package replay

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// rangeChunk is the most one copy_file_range call is asked to copy (progress is said between).
const rangeChunk = 64 << 20

// span copies the bytes [sp.Off, sp.Off+sp.Len) of in (up to its end) to the same place in
// out with copy_file_range: the kernel copies them without passing them through this process,
// or shares the blocks where the file system has reflinks (btrfs, XFS). Where the call is not
// available (an old kernel, two file systems it cannot copy between) the rest is read and
// written (spanRW), and all-zero blocks become holes. The caller skips the source's holes.
func (cp *copier) span(in, out *os.File, sp Span) error {
	if !cp.noRange {
		done, err := copyRange(in, out, sp, cp.progress)
		if err == nil {
			return nil
		}
		if !rangeUnsupported(err) {
			return err
		}
		cp.noRange = true
		sp.Off, sp.Len = sp.Off+done, sp.Len-done
	}
	return cp.spanRW(in, out, sp)
}

// copyRange copies sp with copy_file_range; it returns the bytes copied.
func copyRange(in, out *os.File, sp Span, progress func(int64)) (int64, error) {
	rc, err := in.SyscallConn()
	if err != nil {
		return 0, err
	}
	wc, err := out.SyscallConn()
	if err != nil {
		return 0, err
	}
	var done int64
	var cerr, werr error
	ferr := rc.Control(func(rfd uintptr) {
		werr = wc.Control(func(wfd uintptr) {
			for done < sp.Len {
				roff, woff := sp.Off+done, sp.Off+done
				n, err := unix.CopyFileRange(int(rfd), &roff, int(wfd), &woff, int(min(sp.Len-done, rangeChunk)), 0)
				if errors.Is(err, syscall.EINTR) {
					continue
				}
				if err != nil {
					cerr = err
					return
				}
				if n == 0 {
					return // the source ends here
				}
				done += int64(n)
				if progress != nil {
					progress(int64(n))
				}
			}
		})
	})
	if ferr != nil {
		return done, ferr
	}
	if werr != nil {
		return done, werr
	}
	return done, cerr
}

// rangeUnsupported reports the errors of copy_file_range that mean "not here": copy otherwise.
func rangeUnsupported(err error) bool {
	for _, e := range []error{syscall.ENOSYS, syscall.EXDEV, syscall.EOPNOTSUPP, syscall.EINVAL, syscall.EPERM, syscall.EBADF} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// startWriteback asks the kernel to start writing f's dirty pages to disk without waiting for
// them (sync_file_range SYNC_FILE_RANGE_WRITE): Copy.Sync then finds most of them written. It
// is only a hint: an error changes nothing.
func startWriteback(f *os.File) {
	if c, err := f.SyscallConn(); err == nil {
		c.Control(func(fd uintptr) { unix.SyncFileRange(int(fd), 0, 0, unix.SYNC_FILE_RANGE_WRITE) })
	}
}

// startWritebackRange is startWriteback for n bytes at off.
func startWritebackRange(f *os.File, off, n int64) {
	if c, err := f.SyscallConn(); err == nil {
		c.Control(func(fd uintptr) { unix.SyncFileRange(int(fd), off, n, unix.SYNC_FILE_RANGE_WRITE) })
	}
}
