package replay

import (
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// slabChunk is the size of the blocks page frames are carved from.
const slabChunk = 4 << 20

// frameSlab hands out the page frames of one recovery, carved from large blocks: a page read or
// rebuilt costs no allocation of its own (tens of thousands of 16 KiB allocations cost more
// than reading the pages), and the blocks are used again for the next batch once a flush has
// dropped every cached page. A frame from get holds stale bytes: its user overwrites it whole.
type frameSlab struct {
	chunks [][]byte
	next   int    // the index in chunks of the block after cur
	cur    []byte // what is left of the block being carved
	prev   []byte // cur before the last get (putBack)
	pf     *prefaulted
}

// prepare starts allocating, on another goroutine, the blocks for n bytes of frames and
// touching their memory (the kernel's page faults and zeroing of hundreds of MiB cost as much
// as the reads into them): they are then ready when get needs them. get does not wait for
// them. done ends the goroutine.
func (s *frameSlab) prepare(n int64) (done func()) {
	s.pf = prefault(n)
	return s.pf.end
}

// prefaulted are blocks made ready by another goroutine: it makes them, one at a time, while
// any of the blocks asked for is left to make, and sends them on ready.
type prefaulted struct {
	ready chan []byte
	left  atomic.Int64
	stop  chan struct{}
}

// prefault allocates and touches the blocks for n bytes on another goroutine (nil: too few
// to bother).
func prefault(n int64) *prefaulted {
	k := (n + slabChunk - 1) / slabChunk
	if k < 2 {
		return nil
	}
	pf := &prefaulted{ready: make(chan []byte, k), stop: make(chan struct{})}
	pf.left.Store(k)
	go func() {
		for pf.left.Add(-1) >= 0 {
			c := newBlock()
			for i := 0; i < len(c); i += 4096 {
				c[i] = 0
			}
			select {
			case pf.ready <- c:
			case <-pf.stop:
				return
			}
		}
	}()
	return pf
}

// end stops the goroutine.
func (pf *prefaulted) end() {
	if pf != nil {
		close(pf.stop)
	}
}

// block returns a new block: a prepared one if there is one ready, else one of its own (and
// the goroutine makes one fewer).
func (s *frameSlab) block() []byte {
	if s.pf != nil {
		select {
		case c := <-s.pf.ready:
			return c
		default:
			s.pf.left.Add(-1)
		}
	}
	return newBlock()
}

// newBlock allocates a block, asking the kernel for huge pages for it (Linux's transparent huge
// pages in their madvise mode): one page fault for each 2 MiB of frames instead of 512, which
// for hundreds of MiB of page images cost as much as reading them. The advice only changes
// how the memory is backed; a kernel that refuses it backs it as before.
func newBlock() []byte {
	c := make([]byte, slabChunk)
	_ = unix.Madvise(c, unix.MADV_HUGEPAGE)
	return c
}

// get returns a frame of n bytes (its contents undefined).
func (s *frameSlab) get(n int) []byte {
	if n > slabChunk {
		return make([]byte, n)
	}
	if len(s.cur) < n {
		if s.next == len(s.chunks) {
			s.chunks = append(s.chunks, s.block())
		}
		s.cur = s.chunks[s.next]
		s.next++
	}
	f := s.cur[:n:n]
	s.prev, s.cur = s.cur, s.cur[n:]
	return f
}

// putBack returns f, the frame get returned last, when it is no longer used.
func (s *frameSlab) putBack(f []byte) {
	if len(f) > 0 && len(s.prev) >= len(f) && &s.prev[0] == &f[0] {
		s.cur, s.prev = s.prev, nil
	}
}

// reset makes every block free again: no frame handed out so far may be used after it.
func (s *frameSlab) reset() { s.next, s.cur, s.prev = 0, nil, nil }

// maxIOV is the most buffers one pwritev call takes (IOV_MAX on Linux).
const maxIOV = 1024

// pwritev writes bufs one after the other at off in f; a short write is finished by WriteAt.
func pwritev(f *os.File, bufs [][]byte, off int64) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var n int
	var werr error
	if err := rc.Control(func(fd uintptr) {
		for {
			n, werr = unix.Pwritev(int(fd), bufs, off)
			if werr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if werr != nil {
		return werr
	}
	for _, b := range bufs {
		if n >= len(b) {
			n -= len(b)
			off += int64(len(b))
			continue
		}
		if _, err := f.WriteAt(b[n:], off+int64(n)); err != nil {
			return err
		}
		off += int64(len(b))
		n = 0
	}
	return nil
}
