package logformat

import (
	"errors"
	"sync/atomic"
)

// gatherPipe is a walk of a block log's blocks on a goroutine of its own into buffers sized for
// every block the log can hold, published as it goes: the MLOG decoding reads what is published
// while the walk reads and checks the next blocks (on the second core).
type gatherPipe struct {
	base    uint64
	data    []byte  // the record bytes, whole capacity; written only by the walk
	blocks  []Block // the blocks, whole capacity; written only by the walk
	nData   atomic.Int64
	nBlocks atomic.Int64
	wake    chan struct{} // a publication since the last receive (capacity 1)
	done    chan struct{} // closed after the last publication; bs and err are set then
	bs      BlockScan
	err     error
}

// pipeMaxBytes: a log that can hold more record bytes than this is gathered in one go, growing
// its buffer to the written data only (a large ring mostly unwritten). A variable for the tests.
var pipeMaxBytes int64 = 512 << 20

const (
	// pipePublishBlocks is how many blocks the walk gathers between publications (32 KiB).
	pipePublishBlocks = 64
)

// errGatherOverflow: the walk met more blocks than the files can hold (never for a valid log
// layout; the caller's capacity and the walk's disagree).
var errGatherOverflow = errors.New("more log blocks than the files hold")

// startGather starts the walk into buf (grown if it is too small); a log that can hold more
// than pipeMaxBytes of records is walked before it returns.
func (l *BlockLog) startGather(buf []byte) *gatherPipe {
	var n int64
	if l.ring != nil {
		n = int64(l.ring.capacity() / BlockSize)
	} else {
		for f := l; f != nil; f = f.next {
			n += max(0, (f.Size-mysqlFileHdrSize)/BlockSize)
		}
	}
	if n*blockPayload > pipeMaxBytes {
		// Gathered here and now, its buffer grown to the written data only.
		g, err := l.gatherInto(buf)
		p := &gatherPipe{base: g.base, data: g.data, blocks: g.blocks, done: make(chan struct{}), bs: g.bs, err: err}
		p.nData.Store(int64(len(g.data)))
		p.nBlocks.Store(int64(len(g.blocks)))
		close(p.done)
		return p
	}
	if int64(cap(buf)) < n*blockPayload {
		buf = make([]byte, n*blockPayload)
	}
	p := &gatherPipe{base: l.walkStart(), data: buf[:n*blockPayload], blocks: make([]Block, n),
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	go p.walk(l)
	return p
}

// walk gathers the blocks, publishing every pipePublishBlocks of them and at the end.
func (p *gatherPipe) walk(l *BlockLog) {
	defer close(p.done)
	nb, nd := 0, 0
	publish := func() {
		p.nBlocks.Store(int64(nb))
		p.nData.Store(int64(nd))
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
	overflow := false
	p.bs, p.err = l.walkBlocks(func(blk Block, b []byte) bool {
		rec := b[blockHeaderSize:min(int(blk.DataLen), BlockSize-4)]
		if nb == len(p.blocks) || nd+len(rec) > len(p.data) {
			overflow = true
			return false
		}
		p.blocks[nb] = blk
		nb++
		nd += copy(p.data[nd:], rec)
		if nb%pipePublishBlocks == 0 {
			publish()
		}
		return true
	})
	if overflow && p.err == nil {
		p.err = &FormatError{File: l.Name, Offset: -1, Msg: "gathering the record bytes", Err: errGatherOverflow}
	}
	publish()
}

// more waits until more than have record bytes are published or the walk has ended; it returns
// the bytes published and whether the walk has ended (then they are all).
func (p *gatherPipe) more(have int) ([]byte, bool) {
	for {
		select {
		case <-p.done:
			return p.data[:p.nData.Load()], true
		default:
		}
		if n := p.nData.Load(); n > int64(have) {
			return p.data[:n], false
		}
		select {
		case <-p.wake:
		case <-p.done:
		}
	}
}

// gathered waits for the walk's end and returns what it gathered.
func (p *gatherPipe) gathered() (*gathered, error) {
	<-p.done
	return &gathered{blocks: p.blocks[:p.nBlocks.Load()], data: p.data[:p.nData.Load()], bs: p.bs, base: p.base}, p.err
}

// startAt is gathered.startAt as soon as the published blocks decide it: the first block with
// a first_rec_group (from 0), or from's block; otherwise at the walk's end.
func (p *gatherPipe) startAt(l *BlockLog, from uint64) (int, string, error) {
	if from != 0 {
		if recordPos(p.base, from) {
			off := offAt(p.base, from)
			if data, _ := p.more(off); len(data) > off {
				return off, "", nil // before the end of the written data
			}
		}
	} else {
		for i := 0; ; {
			_, done := p.more(0)
			for nb := int(p.nBlocks.Load()); i < nb; i++ {
				if b := p.blocks[i]; b.FirstRecGroup != 0 {
					return offAt(p.base, b.LSN+uint64(b.FirstRecGroup)), "", nil
				}
			}
			if done {
				break
			}
			p.waitBlocks(i)
		}
	}
	g, _ := p.gathered()
	return g.startAt(l, from)
}

// waitBlocks waits until more than have blocks are published or the walk has ended.
func (p *gatherPipe) waitBlocks(have int) {
	for p.nBlocks.Load() <= int64(have) {
		select {
		case <-p.wake:
		case <-p.done:
			return
		}
	}
}
