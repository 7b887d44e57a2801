package logformat

import (
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
	buf   []byte   // win.buf: the mini-transactions, each with its termination byte and CRC
	mtrs  []mtrRef // where each starts in buf
	bytes int      // their size
	// Results.
	n       int // mini-transactions decoded (all, or those before the failing one)
	t       tally
	fcpEnd  uint64     // end LSN of the first MTR with FILE_CHECKPOINT(checkpoint LSN), 0 if none
	stopAt  int        // the failing MTR's index, -1 if none
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

// mtrRef is a mini-transaction in a batch: its offset in buf, its termination byte's offset
// from there, its LSN.
type mtrRef struct {
	off, term int
	lsn       uint64
}

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
						stopLSN, stopOff, stopWhy, stopReason = b.mtrs[b.stopAt].lsn, b.stopOff, b.stopWhy, b.stop
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
		b.seq, b.win, b.buf, b.mtrs, b.bytes = seq, nil, sc.buf, b.mtrs[:0], 0
		if sameStart(sc.buf, cur.buf) { // a read window, not the mapping
			b.win = cur
			cur.refs.Add(1)
		}
		seq++
		return b
	}
	b := newBatch()
	for sc.err == nil && sc.stop == "" && !halt.Load() {
		_, i, ok := sc.frame(false)
		if !ok {
			break
		}
		if !sameStart(b.buf, sc.buf) { // fill went on in another window
			todo <- b
			b = newBatch()
		}
		for {
			n := i + 5
			b.mtrs = append(b.mtrs, mtrRef{off: int(sc.lsn - sc.bufLSN), term: i, lsn: sc.lsn})
			b.bytes += n
			sc.lsn += uint64(n)
			sc.mtrCount++
			if b.bytes >= batchBytes {
				todo <- b
				b = newBatch()
			}
			if i, ok = sc.frameNext(); !ok {
				break
			}
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

// decode checks and counts b's mini-transactions with the scanner d (its options only).
func (b *batch) decode(d *Scanner, checkpointLSN uint64) {
	t := &b.t
	b.n, b.fcpEnd, b.stopAt = 0, 0, -1
	t.reset(checkpointLSN)
	pageSize := uint32(d.opt.PageSize)
	for k, m := range b.mtrs {
		p := b.buf[m.off:]
		if why := checkCRC(p, m.term); why != "" {
			b.stopAt, b.stop, b.stopOff, b.stopWhy = k, StopChecksum, m.term+1, why
			return
		}
		mark := t.mark()
		if countMTR(p, m.term, pageSize, t) {
			b.n++
			continue
		}
		t.undoCount(mark, p, m.term, pageSize)
		t.fcp = false
		if at, why := d.decodeTo(p[:m.term+1], m.term, t); why != "" {
			t.undo(mark, d, p[:m.term+1], m.term)
			b.stopAt, b.stop, b.stopOff, b.stopWhy = k, StopMalformed, at, why
			return
		}
		b.n++
		if t.fcp && b.fcpEnd == 0 {
			b.fcpEnd = m.lsn + uint64(m.term) + 5
		}
	}
}

// parallelWorkers is how many decoding workers Summarize uses: none (sequential) on one CPU.
func parallelWorkers() int {
	n := runtime.GOMAXPROCS(0)
	if n < 2 {
		return 0
	}
	return min(n, 4)
}
