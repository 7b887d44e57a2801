package logformat

import (
	"encoding/binary"
	"runtime"
	"sync"
	"sync/atomic"
)

// A parallel Summarize: the calling goroutine reads the log and finds each mini-transaction's
// end (lengths and sequence bit: sequential by nature), making batches of mini-transactions
// that refer to the scanner's read buffer (a window: each read goes to a fresh one, and a
// window is reused once no batch refers to it); workers check their CRC-32C, decode their records and count them (without keeping
// them: a tally); the counts are merged in log order, so that the result is the sequential
// one: a checksum mismatch or a malformed record ends the scan where Next would have ended it,
// and nothing after it counts.

// batchBytes is the size of the record bytes of one batch.
const batchBytes = 1 << 20

// batch is a run of consecutive mini-transactions and what decoding them found.
type batch struct {
	seq   int
	win   *window
	buf   []byte // win.buf: the mini-transactions, each with its termination byte and CRC
	start int    // where the first starts in buf
	lsn   uint64 // its LSN
	count int    // how many there are (framed: the workers walk them again)
	bytes int    // their size
	// Results.
	n       int // mini-transactions decoded (all, or those before the failing one)
	t       tally
	fcpEnd  uint64     // end LSN of the first MTR with FILE_CHECKPOINT(checkpoint LSN), 0 if none
	stopAt  int        // the failing MTR's index, -1 if none
	stopLSN uint64     // its LSN
	stop    StopReason // why it fails: StopChecksum or StopMalformed
	stopOff int        // offset of the fault within that MTR
	stopWhy string     // why
}

// window is a read buffer of the scanner, with the number of its holders: the scanner
// while it reads into it, and the batches that refer to it.
type window struct {
	buf  []byte
	refs atomic.Int32
}

// sameStart says whether a and b start at the same byte.
func sameStart(a, b []byte) bool { return len(a) > 0 && len(b) > 0 && &a[0] == &b[0] }

// summarizeParallel is Summarize over a scanner of a 10.8+ log, in parallel.
func summarizeParallel(sc *Scanner, checkpointLSN uint64, workers int) (Stats, error) {
	st := Stats{StartLSN: sc.LSN(), ByType: map[Type]int{}}
	todo := make(chan *batch, 2*workers)
	done := make(chan *batch, 2*workers)
	free := make(chan *batch, 4*workers)
	wins := make(chan *window, 4*workers) // free windows
	release := func(w *window) {
		if w.refs.Add(-1) == 0 {
			select {
			case wins <- w:
			default:
			}
		}
	}
	var wg sync.WaitGroup
	var halt atomic.Bool // set when a batch stops the scan: the batches after it do not count
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := &Scanner{opt: sc.opt}
			for b := range todo {
				if halt.Load() {
					b.n, b.stopAt = 0, -1 // not counted: the merger has stopped
					b.t.reset(checkpointLSN)
				} else {
					b.decode(d, checkpointLSN)
				}
				if b.win != nil {
					release(b.win)
				}
				b.win, b.buf = nil, nil
				done <- b
			}
		}()
	}
	// The merger: counts in order, stops counting at a malformed record.
	var byType [256]int
	var pages pageSet
	stopped := false // read by the merger only; halt tells the others
	var stopLSN uint64
	var stopOff int
	var stopWhy string
	var stopReason StopReason
	merged := make(chan struct{})
	go func() {
		defer close(merged)
		next, waiting := 0, map[int]*batch{}
		for b := range done {
			waiting[b.seq] = b
			for waiting[next] != nil {
				b := waiting[next]
				delete(waiting, next)
				next++
				if !stopped {
					st.MTRs += b.n
					st.Records += b.t.records
					st.Malformed += b.t.bad
					for t, c := range b.t.byType {
						byType[t] += c
					}
					if st.FileCheckpointEnd == 0 {
						st.FileCheckpointEnd = b.fcpEnd
					}
					for _, k := range b.t.pages {
						pages.add(k)
					}
					if b.stopAt >= 0 {
						stopped = true
						halt.Store(true)
						stopLSN, stopOff, stopWhy, stopReason = b.stopLSN, b.stopOff, b.stopWhy, b.stop
					}
				}
				select {
				case free <- b:
				default:
				}
			}
		}
	}()
	// Framing, here.
	own := sc.buf
	cur := &window{buf: own}
	cur.refs.Store(1)
	defer func() {
		// The workers are done: the scanner gets its own buffer back.
		sc.buf, sc.bufLSN, sc.bufN, sc.swap = own, sc.lsn, 0, nil
	}()
	sc.swap = func([]byte) []byte {
		var w *window
		select {
		case w = <-wins:
		default:
			w = &window{buf: make([]byte, len(own))}
		}
		w.refs.Store(1)
		release(cur)
		cur = w
		return w.buf
	}
	seq := 0
	newBatch := func() *batch {
		var b *batch
		select {
		case b = <-free:
		default:
			b = &batch{}
		}
		b.seq, b.win, b.buf, b.count, b.bytes = seq, nil, sc.buf, 0, 0
		if sameStart(sc.buf, cur.buf) { // a read window, not the mapping
			b.win = cur
			cur.refs.Add(1)
		}
		seq++
		return b
	}
	b := newBatch()
	for sc.err == nil && sc.stop == "" && !halt.Load() {
		// One mini-transaction framed with every check (reading on when the window runs low),
		// then as many as follow in the window without that.
		_, i, ok := sc.frame(false)
		if !ok {
			break
		}
		if !sameStart(b.buf, sc.buf) { // fill went on in another window
			todo <- b
			b = newBatch()
		}
		if b.count == 0 {
			b.start, b.lsn = int(sc.lsn-sc.bufLSN), sc.lsn
		}
		b.count++
		b.bytes += i + 5
		sc.lsn += uint64(i + 5)
		sc.mtrCount++
		for {
			if b.bytes >= batchBytes {
				todo <- b
				b = newBatch()
			}
			n, bytes := sc.frameRun(batchBytes - b.bytes)
			if n == 0 {
				break
			}
			if b.count == 0 {
				b.start, b.lsn = int(sc.lsn-sc.bufLSN)-bytes, sc.lsn-uint64(bytes)
			}
			b.count += n
			b.bytes += bytes
		}
	}
	todo <- b // perhaps empty
	close(todo)
	wg.Wait()
	close(done)
	<-merged
	if stopped {
		// The sequential scan ends at the failing mini-transaction, without an error.
		sc.err, sc.stop = nil, ""
		sc.lsn, sc.mtrCount = stopLSN, st.MTRs
		sc.mtr = MTR{LSN: stopLSN}
		sc.end(stopReason, stopOff, stopWhy)
	}
	return st.finish(sc, &byType, &pages)
}

// frameRun is frame(false) without a call of fill, for the mini-transactions that follow s.lsn
// in the window, one after the other: it frames each that is well framed while the window
// holds all that fill would keep in it and no limit is near, until they make max bytes or
// more; where it stops, frame is to be called (it finds the same, or why the scan stops). It
// advances s.lsn and s.mtrCount past them and returns how many it framed and their bytes.
func (s *Scanner) frameRun(max int) (n, bytes int) {
	start := int(s.lsn - s.bufLSN)
	buf := s.buf[:s.bufN]
	// The window offsets where a mini-transaction may start (fill keeps MaxMTRSize+16 bytes
	// from a start on), and, below, where the sequence bit of the pass through the ring
	// changes: all limits as window offsets, so that the loops keep few values.
	stop := min(s.bufN-(MaxMTRSize+16)+1, start+max)
	if to := s.opt.ToLSN; to != 0 {
		if to <= s.lsn {
			return 0, 0
		}
		stop = min(stop, start+int(min(to-s.lsn, MaxMTRSize<<8)))
	}
	pass := (s.lsn - s.log.Header.FirstLSN) / s.log.Capacity()
	bit := byte(pass&1) ^ 1
	flip := start + int(min(s.log.Header.FirstLSN+(pass+1)*s.log.Capacity()-s.lsn, MaxMTRSize<<8))
	pos := start
	for pos < stop && buf[pos] > 1 {
		// mtrEnd's walk, for records of lengths up to 16,527 bytes (else frame walks it).
		e, end := pos, pos+MaxMTRSize // below end, e+16 < len(buf)
		for {
			if e >= end && (e >= len(buf) || buf[e] > 1) {
				return s.framed(start, pos, n)
			}
			c := buf[e]
			if c <= 1 {
				break
			}
			if c&0x0f != 0 {
				e += 1 + int(c&0x0f)
				continue
			}
			switch d := buf[e+1]; {
			case d < 0x80:
				e += 16 + int(d)
			case d < 0xc0:
				e += 16 + varint2Base + (int(d&0x3f)<<8 | int(buf[e+2]))
			default:
				return s.framed(start, pos, n)
			}
		}
		if e >= flip || e+5 > len(buf) { // frame works out the other bit
			break
		}
		if buf[e] != bit {
			break
		}
		pos = e + 5
		n++
	}
	return s.framed(start, pos, n)
}

// framed advances s past the n mini-transactions frameRun framed from the window offset
// start to pos, and returns n and their bytes.
func (s *Scanner) framed(start, pos, n int) (int, int) {
	s.lsn += uint64(pos - start)
	s.mtrCount += n
	return n, pos - start
}

// decode checks and counts b's mini-transactions with the scanner d (its options only).
func (b *batch) decode(d *Scanner, checkpointLSN uint64) {
	t := &b.t
	b.n, b.fcpEnd, b.stopAt = 0, 0, -1
	t.reset(checkpointLSN)
	pageSize := uint32(d.opt.PageSize)
	buf, off, n := b.buf, b.start, 0 // in locals: the loop keeps them in registers
	sse := haveSSE42
	for ; n < b.count; n++ {
		p := buf[off:]
		mark := t.mark()
		term, counted := countMTR(p, pageSize, t)
		if !counted {
			t.undoCount(mark, p, pageSize)
			term, _ = mtrEnd(p, 1)
		}
		want := binary.BigEndian.Uint32(p[term+1:])
		var crc uint32
		if sse && term < 1024 {
			crc = crc32cSSE42(p[:term]) // crc32cShort without its call
		} else {
			crc = crc32cShort(p[:term])
		}
		if crc != want {
			if counted {
				t.undoCount(mark, p, pageSize)
			}
			b.n, b.stopAt, b.stopLSN, b.stop, b.stopOff, b.stopWhy = n, n, b.lsn+uint64(off-b.start), StopChecksum, term+1, checkCRC(p, term)
			return
		}
		if !counted {
			t.fcp = false
			if at, why := d.decodeTo(p[:term+1], term, t); why != "" {
				t.undo(mark, d, p[:term+1], term)
				b.n, b.stopAt, b.stopLSN, b.stop, b.stopOff, b.stopWhy = n, n, b.lsn+uint64(off-b.start), StopMalformed, at, why
				return
			}
			if t.fcp && b.fcpEnd == 0 {
				b.fcpEnd = b.lsn + uint64(off-b.start+term) + 5
			}
		}
		off += term + 5
	}
	b.n = n
}

// parallelWorkers is how many decoding workers Summarize uses: none (sequential) on one CPU.
func parallelWorkers() int {
	n := runtime.GOMAXPROCS(0)
	if n < 2 {
		return 0
	}
	return min(n, 4)
}
