package replay

import (
	"fmt"
	"os"
	"sync"

	"innoscope/analysis"
	"innoscope/discovery"
)

// Early writes: a page whose last mini-transaction (RecoverOptions.last, from the decoding the
// pre-pass kept) has just been applied changes no more, so it is sealed and written to the
// copy by another goroutine while the replay goes on, instead of waiting for the flush at the
// end of the batch (the other core is free while the replay applies what was decoded
// beforehand). What the flush does in the recovery's state for such a page is done when it is
// handed over (on the replay's goroutine, in order): it is recorded as written, and its unit
// as no longer left out of the copy (so that materializing never covers it); the flush skips
// it. Only whole pages of one file, of a tablespace whose flags are known (they do not change
// again) and not truncated by the log, are written so; every flush waits for the writes
// handed over before it (it may reuse their frames) and so does every file operation after
// the replay.

// earlyPage is a page handed over: its frame, sealed with its end LSN when dirty, written at
// off of f.
type earlyPage struct {
	f      *os.File
	path   string
	no     uint32
	off    int64
	data   []byte
	flags  discovery.Flags
	endLSN uint64
	seal   bool
}

// earlyWriter is the goroutine writing the pages handed over, and its first error.
type earlyWriter struct {
	ch   chan earlyPage
	wg   sync.WaitGroup
	err  error
	used bool
}

// startEarly starts the writer (none without the pages' last mini-transactions).
func (r *recovery) startEarly() {
	if r.opt.last == nil || r.readOnly {
		return
	}
	w := &earlyWriter{ch: make(chan earlyPage, 1024)}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		var batch []earlyPage
		for p := range w.ch {
			batch = append(batch[:0], p)
		more: // what else is there already, for runs of adjacent pages written by one pwritev
			for len(batch) < maxIOV {
				select {
				case q, ok := <-w.ch:
					if !ok {
						break more
					}
					batch = append(batch, q)
				default:
					break more
				}
			}
			if w.err == nil {
				w.err = writeEarly(batch)
			}
		}
	}()
	r.early = w
}

// waitEarly waits for every page handed over to be written; the writer's error, if any.
func (r *recovery) waitEarly() error {
	w := r.early
	if w == nil {
		return nil
	}
	r.early = nil
	close(w.ch)
	w.wg.Wait()
	return w.err
}

// handEarly hands p (the page id), whose last mini-transaction has just been applied, over to
// the writer when it can be written so.
func (r *recovery) handEarly(p *cached, id analysis.PageID) {
	if r.early == nil || !(p.dirty || p.restore) || p.freed || p.data == nil || !p.ts.flagsSet || len(p.data) != p.ts.phys {
		return
	}
	if _, trimmed := r.an.Trims[id.Space]; trimmed {
		return
	}
	s, off := p.ts.locate(p.no)
	if s == nil || s.def.state(off, int64(p.ts.phys)) == mixed {
		return
	}
	r.early.ch <- earlyPage{f: s.f, path: s.path, no: p.no, off: off, data: p.data, flags: p.ts.flags, endLSN: p.endLSN, seal: p.dirty}
	s.def.wrote(off)
	p.ts.written++
	if p.dirty {
		r.applied[id] = true
	}
	r.written[id] = true
	p.dirty, p.restore = false, false
	r.res.early++
}

// writeEarly seals the pages of batch and writes them, runs of adjacent pages of one file with
// one pwritev.
func writeEarly(batch []earlyPage) error {
	bufs := make([][]byte, 0, len(batch))
	for i := 0; i < len(batch); {
		p := batch[i]
		bufs = bufs[:0]
		j := i
		for ; j < len(batch) && batch[j].f == p.f && batch[j].off == p.off+int64(len(bufs))*int64(len(p.data)) && len(batch[j].data) == len(p.data); j++ {
			q := batch[j]
			if q.seal {
				discovery.SealPage(q.data, q.flags, q.endLSN)
			}
			bufs = append(bufs, q.data)
		}
		if err := pwritev(p.f, bufs, p.off); err != nil {
			return fmt.Errorf("%s: offset %d: writing pages %d-%d: %w", p.path, p.off, p.no, batch[j-1].no, err)
		}
		startWritebackRange(p.f, p.off, int64(len(bufs))*int64(len(p.data)))
		i = j
	}
	return nil
}
