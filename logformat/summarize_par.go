package logformat

import (
	"runtime"
	"sync"
)

// A parallel Summarize: the calling goroutine reads the log and checks the framing of each
// mini-transaction (lengths, sequence bit, CRC-32C: cheap, and sequential by nature), copying
// the mini-transactions into batches; workers decode the batches' records and count them; the
// counts are merged in log order, so that the result is the sequential one: a malformed record
// ends the scan where Next would have ended it, and nothing after it counts.

// batchBytes is the size of the record bytes of one batch.
const batchBytes = 1 << 20

// batch is a run of consecutive mini-transactions and what decoding them found.
type batch struct {
	seq  int
	buf  []byte   // the mini-transactions, each with its termination byte and CRC
	mtrs []mtrRef // where each starts in buf
	// Results.
	n        int // mini-transactions decoded (all, or those before the malformed one)
	records  int
	byType   [256]int
	bad      int    // records with Malformed set
	fcpEnd   uint64 // end LSN of the first MTR with FILE_CHECKPOINT(checkpoint LSN), 0 if none
	pages    []uint64
	stopAt   int    // the malformed MTR's index, -1 if none
	stopOff  int    // offset of the corrupt record within that MTR
	stopWhy  string // why
	firstLSN uint64
}

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
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := &Scanner{opt: sc.opt}
			for b := range todo {
				b.decode(d, checkpointLSN)
				done <- b
			}
		}()
	}
	// The merger: counts in order, stops counting at a malformed record.
	var byType [256]int
	var pages pageSet
	stopped := false
	var stopLSN uint64
	var stopOff int
	var stopWhy string
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
					st.Records += b.records
					st.Malformed += b.bad
					for t, c := range b.byType {
						byType[t] += c
					}
					if st.FileCheckpointEnd == 0 {
						st.FileCheckpointEnd = b.fcpEnd
					}
					for _, k := range b.pages {
						pages.add(k)
					}
					if b.stopAt >= 0 {
						stopped = true
						stopLSN, stopOff, stopWhy = b.mtrs[b.stopAt].lsn, b.stopOff, b.stopWhy
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
	seq := 0
	newBatch := func() *batch {
		var b *batch
		select {
		case b = <-free:
		default:
			b = &batch{buf: make([]byte, 0, batchBytes+MaxMTRSize+16)}
		}
		b.seq, b.buf, b.mtrs = seq, b.buf[:0], b.mtrs[:0]
		seq++
		return b
	}
	b := newBatch()
	for sc.err == nil && sc.stop == "" {
		p, i, ok := sc.frame()
		if !ok {
			break
		}
		n := i + 5
		b.mtrs = append(b.mtrs, mtrRef{off: len(b.buf), term: i, lsn: sc.lsn})
		b.buf = append(b.buf, p[:n]...)
		sc.lsn += uint64(n)
		sc.mtrCount++
		if len(b.buf) >= batchBytes {
			todo <- b
			b = newBatch()
		}
	}
	if len(b.mtrs) > 0 {
		todo <- b
	}
	close(todo)
	wg.Wait()
	close(done)
	<-merged
	if stopped {
		// The sequential scan ends at the malformed record, without an error.
		sc.err, sc.stop = nil, ""
		sc.lsn, sc.mtrCount = stopLSN, st.MTRs
		sc.mtr = MTR{LSN: stopLSN}
		sc.end(StopMalformed, stopOff, stopWhy)
	}
	return st.finish(sc, &byType, &pages)
}

// decode decodes and counts b's mini-transactions with the scanner d (its options and record
// slice only).
func (b *batch) decode(d *Scanner, checkpointLSN uint64) {
	b.n, b.records, b.bad, b.fcpEnd, b.pages, b.stopAt = 0, 0, 0, 0, b.pages[:0], -1
	b.byType = [256]int{}
	var last uint64
	for k, m := range b.mtrs {
		d.mtr.Records = d.mtr.Records[:0]
		if at, why := d.decode(b.buf[m.off:m.off+m.term+1], m.term); why != "" {
			b.stopAt, b.stopOff, b.stopWhy = k, at, why
			return
		}
		b.n++
		b.records += len(d.mtr.Records)
		for i := range d.mtr.Records {
			r := &d.mtr.Records[i]
			b.byType[r.Type]++
			if r.Malformed != "" {
				b.bad++
			}
			if r.Type == FileCheckpoint && r.CheckpointLSN == checkpointLSN && b.fcpEnd == 0 {
				b.fcpEnd = m.lsn + uint64(m.term) + 5
			}
			if !r.SamePage && r.Type < FileCreate {
				if key := uint64(r.Space)<<32 | uint64(r.Page); key+1 != last {
					b.pages = append(b.pages, key)
					last = key + 1
				}
			}
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
