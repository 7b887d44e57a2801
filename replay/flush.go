package replay

import (
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"innoscope/analysis"
	"innoscope/discovery"
)

// flushRun is a run of consecutive pages of one tablespace that a flush writes with one
// pwritev (at most maxIOV pages).
type flushRun struct {
	ts    *tsFile
	ids   []analysis.PageID
	pages []*cached
	bufs  [][]byte
	seg   *segment
	off   int64
	// plain: whole pages of one file, none of them left out of the copy in a way that needs
	// materializing first: written by pwritev, on any goroutine. Otherwise page by page (write).
	plain bool
	err   error
}

// seal gives the run's changed pages their end LSN and checksum.
func (f *flushRun) seal() {
	for _, p := range f.pages {
		if p.dirty {
			discovery.SealPage(p.data, p.ts.flags, p.endLSN)
		}
	}
}

// flush writes every dirty cached page to the copy and empties the cache (one batch). The
// pages are independent of each other: runs of adjacent pages are sealed and written by
// several goroutines at once; what the runs change in the recovery's state is done after,
// in order.
func (r *recovery) flush() error {
	if err := r.waitEarly(); err != nil { // the pages handed over are written before their frames go
		return err
	}
	ids := make([]analysis.PageID, 0, len(r.cache))
	for id, p := range r.cache {
		if (p.dirty || p.restore) && !p.freed && p.data != nil {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool {
		if ids[i].Space != ids[j].Space {
			return ids[i].Space < ids[j].Space
		}
		return ids[i].Page < ids[j].Page
	})
	var runs []*flushRun
	for i := 0; i < len(ids); {
		f := &flushRun{ts: r.cache[ids[i]].ts}
		j := i
		for ; j < len(ids) && j-i < maxIOV && ids[j].Space == ids[i].Space && ids[j].Page == ids[i].Page+uint32(j-i); j++ {
			p := r.cache[ids[j]]
			f.pages, f.bufs = append(f.pages, p), append(f.bufs, p.data)
		}
		f.ids = ids[i:j]
		f.seg, f.off, f.plain = f.ts.plainRun(f.ids[0].Page, f.bufs)
		runs = append(runs, f)
		i = j
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), 4) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := next.Add(1) - 1; k < int64(len(runs)); k = next.Add(1) - 1 {
				if f := runs[k]; f.plain {
					f.seal()
					if f.err = pwritev(f.seg.f, f.bufs, f.off); f.err == nil {
						startWritebackRange(f.seg.f, f.off, int64(len(f.bufs))*int64(f.ts.phys))
					}
				}
			}
		}()
	}
	wg.Wait()
	for _, f := range runs {
		first, last := f.ids[0].Page, f.ids[len(f.ids)-1].Page
		if !f.plain {
			f.seal()
			for i, p := range f.bufs {
				if err := f.ts.write(first+uint32(i), p); err != nil {
					return err
				}
			}
		} else if f.err != nil {
			return fmt.Errorf("%s: offset %d: writing pages %d-%d: %w", f.seg.path, f.off, first, last, f.err)
		} else {
			f.ts.written += len(f.bufs)
			for i := range f.bufs {
				f.seg.def.wrote(f.off + int64(i)*int64(f.ts.phys))
			}
		}
		for i, id := range f.ids {
			if f.pages[i].dirty {
				r.applied[id] = true
			}
			r.written[id] = true
		}
	}
	r.cache, r.last = map[analysis.PageID]*cached{}, nil
	r.frames.reset() // every cached frame was dropped
	r.res.Batches++
	r.startEarly()
	return nil
}

// plainRun says where pages first, first+1, ... of t go (their file and offset) and whether
// they can be written with one pwritev: whole pages (t.phys bytes) of one file, none of them
// to materialize first (deferredFile.state).
func (t *tsFile) plainRun(first uint32, pages [][]byte) (*segment, int64, bool) {
	s, off := t.locate(first)
	last, _ := t.locate(first + uint32(len(pages)) - 1)
	plain := s != nil && last == s
	for i, p := range pages {
		plain = plain && len(p) == t.phys && s.def.state(off+int64(i)*int64(t.phys), int64(t.phys)) != mixed
	}
	return s, off, plain
}
