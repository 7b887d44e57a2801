package rows

import (
	"runtime"
	"sync"
)

// parallelMin is the number of leaf pages from which Walk decodes them on every CPU (a
// variable for the tests).
var parallelMin = 8

// leafBatch is a run of leaf pages decoded by a worker: their rows (their values in arena,
// each column's [start, end) in spans, start -1 for NULL; or, with reader.format, the rows
// formatted in arena) and what reading them added to the result.
type leafBatch struct {
	i, j  int // the leaves' places in the tree's order: [i, j)
	arena []byte
	spans []int
	rows  int
	res   Result
	// meta is the place of a leaf of the run that held a metadata record (0: none): the
	// batch holds the leaves before it only.
	meta int
	err  error
	done chan struct{}
}

// leavesPerBatch is how many leaves a worker decodes in one run: each run costs the hand-offs
// between goroutines, which one leaf alone does not pay for (a variable for the tests).
var leavesPerBatch = 16

// walkLeaves emits the rows of leaves in the tree's order. With many leaves and more than one
// CPU, the first leaf is read here (its metadata record of an instant ALTER sets the layout
// every other page is decoded with) and the others in runs by one worker per CPU, each with its
// own buffers, over the shared file (positional reads); their rows and losses are emitted in
// the tree's order, exactly as the serial walk emits them.
func (r *reader) walkLeaves(leaves []uint32, fn func(Row) error) error {
	workers := runtime.GOMAXPROCS(0)
	if len(leaves) < parallelMin || workers < 2 {
		for i := range leaves {
			if err := r.treeLeaf(leaves, i, fn); err != nil {
				return err
			}
		}
		return nil
	}
	if err := r.treeLeaf(leaves, 0, fn); err != nil {
		return err
	}
	n := 2*workers + 2 // runs in flight: the next one to emit is always among them
	free := make(chan *leafBatch, n)
	for k := 0; k < n; k++ {
		free <- &leafBatch{done: make(chan struct{}, 1)}
	}
	per := leavesPerBatch
	jobs, order, stop := make(chan *leafBatch, n), make(chan *leafBatch, n), make(chan struct{})
	go func() {
		defer close(order)
		defer close(jobs)
		for i := 1; i < len(leaves); i += per {
			var b *leafBatch
			select {
			case b = <-free:
			case <-stop:
				return
			}
			b.i, b.j = i, min(i+per, len(leaves))
			order <- b // never blocks: at most n batches exist
			jobs <- b  // nor this
		}
	}()
	var wg sync.WaitGroup
	for k := 0; k < workers; k++ {
		lay := *r.lay // metadataLayout replaces its field list
		w := &reader{t: r.t, f: r.f, lay: &lay, meta: r.meta}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range jobs {
				w.run(r, leaves, b)
				b.done <- struct{}{}
			}
		}()
	}
	from, err := r.emit(order, free, fn)
	if err != nil || from > 0 {
		close(stop)
	}
	wg.Wait() // the workers read r.f, which Walk closes
	if err != nil || from == 0 {
		return err
	}
	// A leaf after the first held a metadata record (a damaged page: the server keeps it on
	// the first leaf only); the serial walk lets it change the layout of the leaves after it,
	// so from that leaf on the walk is serial.
	for i := from; i < len(leaves); i++ {
		if err := r.treeLeaf(leaves, i, fn); err != nil {
			return err
		}
	}
	return nil
}

// run decodes the leaves of b with w, a worker's reader (r: the walk's own), stopping at a
// leaf that held a metadata record (b.meta) or failed (b.err).
func (w *reader) run(r *reader, leaves []uint32, b *leafBatch) {
	b.res, b.meta, b.err = Result{}, 0, nil
	b.arena, b.spans, b.rows = b.arena[:0], b.spans[:0], 0
	add := func(row Row) error {
		if r.format != nil {
			b.arena = r.format(b.arena, row)
			b.rows++
			return nil
		}
		for _, v := range row {
			if v == nil {
				b.spans = append(b.spans, -1, -1)
				continue
			}
			b.spans = append(b.spans, len(b.arena))
			b.arena = append(b.arena, v...)
			b.spans = append(b.spans, len(b.arena))
		}
		b.rows++
		return nil
	}
	var leaf Result
	for i := b.i; i < b.j; i++ {
		arena, spans, rows := len(b.arena), len(b.spans), b.rows
		leaf = Result{}
		w.res = &leaf
		err := w.treeLeaf(leaves, i, add)
		if !sameSlice(w.meta, r.meta) || !sameSlice(w.lay.flds, r.lay.flds) {
			// this leaf is read again by the serial walk: none of it is emitted here
			b.arena, b.spans, b.rows, b.meta = b.arena[:arena], b.spans[:spans], rows, i
			return
		}
		b.res.addPage(&leaf)
		if err != nil {
			b.err = err
			return
		}
	}
}

// sameSlice says whether a and b are the same slice (not equal contents: the same array).
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// emit merges the workers' batches into r.res and gives their rows to fn, in order. It stops
// at a leaf that held a metadata record, after emitting the leaves before it, and returns its
// place (0: every leaf was emitted).
func (r *reader) emit(order <-chan *leafBatch, free chan<- *leafBatch, fn func(Row) error) (int, error) {
	w := len(r.t.Cols)
	row := make(Row, w)
	for b := range order {
		<-b.done
		r.res.addPage(&b.res)
		if r.format != nil { // the rows as the worker formatted them
			r.res.Rows += int64(b.rows)
			if _, err := r.out.Write(b.arena); err != nil {
				return 0, err
			}
		} else {
			for k := 0; k < b.rows; k++ {
				r.res.Rows++
				if err := fn(rowOf(row, b.arena, b.spans[2*w*k:])); err != nil {
					return 0, err
				}
			}
		}
		if b.err != nil {
			return 0, b.err
		}
		if b.meta > 0 {
			return b.meta, nil
		}
		free <- b
	}
	return 0, nil
}

// addPage adds what reading one more leaf added to b (every field a leaf adds to but Rows,
// which the emitter counts as it gives them to fn).
func (r *Result) addPage(b *Result) {
	r.Pages += b.Pages
	r.Lost = append(r.Lost, b.Lost...)
	r.LostRows += b.LostRows
	r.Notes = append(r.Notes, b.Notes...)
	r.DeleteMarked += b.DeleteMarked
}
