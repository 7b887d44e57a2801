package replay

import (
	"fmt"
	"math/bits"
	"os"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/internal/regular"

	"golang.org/x/sys/unix"
)

// Deferred pages: the copy leaves out the pages of datafiles that the log changes (the replay
// reads them from the source and writes them itself), so that their bytes are copied once, by
// the replay, instead of twice (by the copy, then again by the replay, and by the write-back
// to disk of both). Every page left out is either written by the replay or copied from the
// source by materialize before any file operation of the replay (truncation, rename, removal)
// and before anything else reads the copy: the copy ends byte for byte what copying everything
// and then replaying gives. Which pages are left out only changes how many bytes are copied
// twice, never the result: a read of a page left out and not yet written goes to the source.

// unitSet is a set of page numbers (units of a file).
type unitSet []uint64

func (b unitSet) has(i int64) bool {
	return i >= 0 && i/64 < int64(len(b)) && b[i/64]&(1<<(uint64(i)%64)) != 0
}

func (b *unitSet) set(i int64) {
	for int64(len(*b)) <= i/64 {
		*b = append(*b, 0)
	}
	(*b)[i/64] |= 1 << (uint64(i) % 64)
}

func (b unitSet) clear(i int64) {
	if i >= 0 && i/64 < int64(len(b)) {
		b[i/64] &^= 1 << (uint64(i) % 64)
	}
}

// deferPlan is what the copy may leave out of one source datafile: the pages (units of unit
// bytes) the log changes.
type deferPlan struct {
	unit  int64
	pages unitSet
}

// deferredFile is a file of the copy with pages left out: units of unit bytes, at the same
// offsets in the source file src, not copied and not written since.
type deferredFile struct {
	src, dst string
	unit     int64
	left     unitSet
	n        int // units in left
	in       *os.File
	kept     map[int64]keptPage // pages of src read before (pageStore), by offset
}

// deferredFiles are the plan of a copy (by resolved source path) and the files the copy left
// pages out of (by resolved copy path).
type deferredFiles struct {
	plan  map[string]*deferPlan
	files map[string]*deferredFile
	kept  *pageStore
}

// planDeferred leaves out of the copy the pages, other than page 0, that the log's page records
// name in the datafiles found by scanning the source (spaces): file-per-table tablespaces whose
// id no other file has, not truncated by the log, and pages not freed by it (those the replay
// never writes). The system, undo and temporary tablespaces are copied whole.
func planDeferred(spaces []discovery.Tablespace, a *analysis.Analysis, kept *pageStore) *deferredFiles {
	d := &deferredFiles{plan: map[string]*deferPlan{}, files: map[string]*deferredFile{}, kept: kept}
	if a == nil {
		return d
	}
	count := map[uint32]int{}
	for _, t := range spaces {
		count[t.SpaceID]++
	}
	byID := map[uint32]*deferPlan{}
	for _, t := range spaces {
		_, trimmed := a.Trims[t.SpaceID]
		if t.Error != "" || (t.FoundBy != discovery.FoundScan && t.FoundBy != discovery.FoundISL) ||
			count[t.SpaceID] != 1 || trimmed || t.PhysicalPageSize <= 0 || t.Encryption != discovery.CryptUnencrypted {
			continue
		}
		pl := &deferPlan{unit: int64(t.PhysicalPageSize)}
		byID[t.SpaceID] = pl
		d.plan[discovery.ResolvePath(t.Path)] = pl
	}
	for id := range a.Pages {
		if pl := byID[id.Space]; pl != nil && id.Page != 0 && !a.Freed[id] {
			pl.pages.set(int64(id.Page))
		}
	}
	return d
}

// start returns the record of the pages left out of the copy dst of src (nil: none planned).
func (d *deferredFiles) start(src, dst string) *deferredFile {
	if d == nil {
		return nil
	}
	pl := d.plan[discovery.ResolvePath(src)]
	if pl == nil || len(pl.pages) == 0 {
		return nil
	}
	f := &deferredFile{src: src, dst: dst, unit: pl.unit, kept: d.kept.of(discovery.ResolvePath(src))}
	d.files[discovery.ResolvePath(dst)] = f
	return f
}

// keptPages is the number of pages kept for the files the copy left pages out of.
func (d *deferredFiles) keptPages() int {
	n := 0
	if d != nil {
		for _, f := range d.files {
			n += len(f.kept)
		}
	}
	return n
}

// of returns the record of the copy's file p (nil: nothing left out).
func (d *deferredFiles) of(p string) *deferredFile {
	if d == nil || len(d.files) == 0 {
		return nil
	}
	return d.files[discovery.ResolvePath(p)]
}

// materializeAll copies every page still left out into the copy.
func (d *deferredFiles) materializeAll() error {
	if d == nil {
		return nil
	}
	for _, f := range d.files {
		if f.n == 0 {
			continue
		}
		out, err := os.OpenFile(f.dst, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		err = f.materialize(out)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (d *deferredFiles) close() {
	if d == nil {
		return
	}
	for _, f := range d.files {
		if f.in != nil {
			f.in.Close()
			f.in = nil
		}
	}
}

// spanDeferring copies the data extent sp of in to out (cp.span) but for the whole pages of
// it that d's plan leaves out, which it records in d. The blocks of the pages left out are
// allocated (fallocate: unwritten extents, which read as zeros), so that writing them later
// costs what overwriting copied pages costs, not what filling a hole does.
func (cp *copier) spanDeferring(in, out *os.File, sp Span, d *deferredFile) error {
	if d == nil {
		return cp.span(in, out, sp)
	}
	pl := cp.deferred.plan[discovery.ResolvePath(d.src)]
	u, from, end := d.unit, sp.Off, sp.Off+sp.Len
	left := Span{} // the run of pages left out being gathered
	for i := (sp.Off + u - 1) / u; (i+1)*u <= end && i/64 < int64(len(pl.pages)); i++ {
		if !pl.pages.has(i) {
			continue
		}
		if i*u > from {
			if err := cp.span(in, out, Span{from, i*u - from}); err != nil {
				return err
			}
		}
		if left.Len > 0 && left.Off+left.Len != i*u {
			allocate(out, left)
			left = Span{}
		}
		if left.Len == 0 {
			left.Off = i * u
		}
		left.Len += u
		d.left.set(i)
		d.n++
		if cp.progress != nil {
			cp.progress(u)
		}
		from = (i + 1) * u
	}
	allocate(out, left)
	if end > from {
		return cp.span(in, out, Span{from, end - from})
	}
	return nil
}

// allocate allocates the blocks of sp in f without writing them; only a hint (a file system
// without fallocate leaves a hole, which is written all the same).
func allocate(f *os.File, sp Span) {
	if sp.Len <= 0 {
		return
	}
	if c, err := f.SyscallConn(); err == nil {
		c.Control(func(fd uintptr) { unix.Fallocate(int(fd), unix.FALLOC_FL_KEEP_SIZE, sp.Off, sp.Len) })
	}
}

// Where a read or write of the copy's file falls.
const (
	inCopy     = iota // entirely in the copy
	fromSource        // exactly one unit left out: read it from the source
	mixed             // partly left out, or not a whole unit: materialize first
)

// state says where the bytes [off, off+n) of the copy's file are.
func (f *deferredFile) state(off, n int64) int {
	if f == nil || f.n == 0 {
		return inCopy
	}
	if n == f.unit && off%f.unit == 0 {
		if f.left.has(off / f.unit) {
			return fromSource
		}
		return inCopy
	}
	for i := off / f.unit; i*f.unit < off+n; i++ {
		if f.left.has(i) {
			return mixed
		}
	}
	return inCopy
}

// readAt reads a unit left out from the source.
func (f *deferredFile) readAt(p []byte, off int64) error {
	if f.in == nil {
		in, err := regular.Open(f.src)
		if err != nil {
			return err
		}
		f.in = in
	}
	if _, err := f.in.ReadAt(p, off); err != nil {
		return fmt.Errorf("%s: offset %d: %w", f.src, off, err)
	}
	return nil
}

// wrote records that the unit at off has been written to the copy.
func (f *deferredFile) wrote(off int64) {
	if f != nil && f.left.has(off/f.unit) {
		f.left.clear(off / f.unit)
		f.n--
	}
}

// materialize copies every unit still left out from the source into out (the copy's file).
func (f *deferredFile) materialize(out *os.File) error {
	if f == nil || f.n == 0 {
		return nil
	}
	if f.in == nil {
		in, err := regular.Open(f.src)
		if err != nil {
			return err
		}
		f.in = in
	}
	for w, word := range f.left {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			i := int64(w)*64 + int64(b)
			k := int64(1) // the run of units left out from i
			for f.left.has(i + k) {
				k++
			}
			if err := copyUnits(f.in, out, Span{i * f.unit, k * f.unit}); err != nil {
				return fmt.Errorf("copying %s to %s: offset %d: %w", f.src, f.dst, i*f.unit, err)
			}
			for j := i; j < i+k; j++ {
				f.left.clear(j)
			}
			f.n -= int(k)
			word = f.left[w]
		}
	}
	return nil
}

// copyUnits copies sp of in to the same place in out: copy_file_range, or read and write
// where it is not supported.
func copyUnits(in, out *os.File, sp Span) error {
	done, err := copyRange(in, out, sp, nil)
	if err == nil && done < sp.Len {
		return fmt.Errorf("the source ends at %d", sp.Off+done)
	}
	if err == nil || !rangeUnsupported(err) {
		return err
	}
	b := make([]byte, min(sp.Len-done, 1<<20))
	for off := sp.Off + done; off < sp.Off+sp.Len; {
		n := min(int64(len(b)), sp.Off+sp.Len-off)
		if _, err := in.ReadAt(b[:n], off); err != nil {
			return err
		}
		if _, err := out.WriteAt(b[:n], off); err != nil {
			return err
		}
		off += n
	}
	return nil
}
