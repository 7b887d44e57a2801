package logformat

// Prefetch: a scanner that reads, checks and decodes ahead on another goroutine (another core),
// while its caller works on the mini-transactions already decoded (recover applies them). The
// goroutine is an ordinary sequential scan, so the mini-transactions, their order, where the
// scan stops and why are those of Next without it.

// pfBatch is a run of decoded mini-transactions whose bytes are copied into buf (their records'
// slices alias it); the last batch of a scan carries the state the scan ended in.
type pfBatch struct {
	buf  []byte
	recs []Record
	mtrs []MTR
	// spans[k] is where mtrs[k]'s records are in recs (recs may grow while the batch fills).
	spans [][2]int
	final bool
	end   Scanner // the producer's state at the end (final batches)
}

// prefetch is a scanner's decoding goroutine and what Next has taken from it.
type prefetch struct {
	ch   chan *pfBatch
	free chan *pfBatch
	quit chan struct{}
	cur  *pfBatch
	k    int
}

// Prefetch makes Next return mini-transactions decoded ahead by another goroutine, with the
// same results. The returned function ends that goroutine: call it when done with the scanner
// (the goroutine also ends by itself at the end of the log). It does nothing on a scanner of
// mini-transactions decoded beforehand (10.5-10.7 logs), or one that has already ended.
func (s *Scanner) Prefetch() (stop func()) {
	if s.log == nil || s.pf != nil || s.err != nil || s.stop != "" {
		return func() {}
	}
	pf := &prefetch{ch: make(chan *pfBatch, 4), free: make(chan *pfBatch, 8), quit: make(chan struct{})}
	p := &Scanner{log: s.log, opt: s.opt, lsn: s.lsn, limit: s.limit, bufLSN: s.bufLSN, bufN: s.bufN,
		buf: s.buf, mtrCount: s.mtrCount}
	s.buf, s.pf = nil, pf
	go p.produce(pf)
	stopped := false
	return func() {
		if !stopped {
			stopped = true
			close(pf.quit)
		}
	}
}

// produce decodes batches for pf until the end of the log or until pf.quit is closed.
func (p *Scanner) produce(pf *prefetch) {
	for {
		var b *pfBatch
		select {
		case b = <-pf.free:
			b.buf, b.recs, b.mtrs, b.spans = b.buf[:0], b.recs[:0], b.mtrs[:0], b.spans[:0]
		default:
			b = &pfBatch{buf: make([]byte, 0, pfBatchBytes+MaxMTRSize+16)}
		}
		for len(b.buf) < pfBatchBytes {
			q, i, ok := p.frame(true)
			if !ok {
				b.final = true
				break
			}
			n := i + 5
			off := len(b.buf)
			b.buf = append(b.buf, q[:n]...) // within the capacity: buf never moves
			p.mtr.Records = p.mtr.Records[:0]
			if at, why := p.decode(b.buf[off:off+i+1], i); why != "" {
				p.mtr.Records = p.mtr.Records[:0]
				p.end(StopMalformed, at, why)
				b.final = true
				break
			}
			b.spans = append(b.spans, [2]int{len(b.recs), len(b.recs) + len(p.mtr.Records)})
			b.recs = append(b.recs, p.mtr.Records...)
			b.mtrs = append(b.mtrs, MTR{LSN: p.lsn, EndLSN: p.lsn + uint64(n), CRC: uint32(q[i+1])<<24 | uint32(q[i+2])<<16 | uint32(q[i+3])<<8 | uint32(q[i+4])})
			p.lsn += uint64(n)
			p.mtrCount++
		}
		for k, sp := range b.spans {
			b.mtrs[k].Records = b.recs[sp[0]:sp[1]:sp[1]]
		}
		if b.final {
			b.end = Scanner{lsn: p.lsn, stop: p.stop, detail: p.detail, stopOff: p.stopOff, err: p.err, mtrCount: p.mtrCount}
		}
		select {
		case pf.ch <- b:
		case <-pf.quit:
			return
		}
		if b.final {
			return
		}
	}
}

// nextPrefetched is Next over the prefetching goroutine's batches.
func (s *Scanner) nextPrefetched() bool {
	pf := s.pf
	for pf.cur == nil || pf.k >= len(pf.cur.mtrs) {
		if pf.cur != nil {
			if pf.cur.final {
				e := &pf.cur.end
				s.lsn, s.stop, s.detail, s.stopOff, s.err, s.mtrCount = e.lsn, e.stop, e.detail, e.stopOff, e.err, e.mtrCount
				s.mtr.Records = nil
				return false
			}
			select {
			case pf.free <- pf.cur:
			default:
			}
		}
		pf.cur, pf.k = <-pf.ch, 0
	}
	s.mtr = pf.cur.mtrs[pf.k]
	pf.k++
	s.lsn = s.mtr.EndLSN
	s.mtrCount++
	return true
}

// pfBatchBytes is the size of the log bytes of one prefetched batch: small enough that the
// batches in flight (their decoded records take about 9 times their bytes) stay in cache.
const pfBatchBytes = 64 << 10
