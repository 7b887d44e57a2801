package discovery

import (
	"errors"
	"os"
	"syscall"
)

// Linux lseek whence values (unistd.h): the next byte of data, the next hole at or after an
// offset. The syscall package has no names for them.
const (
	seekData = 3
	seekHole = 4
)

// Extent is a byte range [Off, Off+Len) of a file.
type Extent struct{ Off, Len int64 }

// DataExtents lists the ranges of f's first size bytes that hold data, in order; the rest are
// holes (unallocated ranges, which read as zero bytes). A file system without SEEK_DATA (or a
// file that is not on one) reports the whole file as data. ext4, XFS and btrfs also report
// unwritten (fallocated) extents as holes: they read as zero bytes too.
func DataExtents(f *os.File, size int64) []Extent {
	var out []Extent
	for off := int64(0); off < size; {
		d, err := f.Seek(off, seekData)
		if errors.Is(err, syscall.ENXIO) || (err == nil && d >= size) {
			break // only a hole from off to the end
		}
		if err != nil {
			return []Extent{{0, size}} // no SEEK_DATA here: read everything
		}
		h, err := f.Seek(d, seekHole)
		if err != nil {
			return []Extent{{0, size}}
		}
		h = min(h, size)
		out = append(out, Extent{d, h - d})
		off = h
	}
	return out
}

// extents is t's data extents, computed once (nil: no hole information, all data).
func (t *File) extents() []Extent {
	t.holesOnce.Do(func() {
		if f, ok := t.r.(*os.File); ok {
			t.data = DataExtents(f, t.Size)
			t.holeInfo = true
		}
	})
	return t.data
}

// dataRun classifies page no of t: hole is true when the whole page lies in a hole, and end is
// the first page after no of the other kind (a run of hole pages ends at the first page with
// data; a run of data pages ends at the first page wholly in a hole).
func (t *File) dataRun(no int64) (hole bool, end int64) {
	ext := t.extents()
	if !t.holeInfo {
		return false, t.Pages()
	}
	ps := int64(t.Physical)
	off := no * ps
	// The first extent that ends after off (binary search).
	lo, hi := 0, len(ext)
	for lo < hi {
		m := (lo + hi) / 2
		if ext[m].Off+ext[m].Len <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(ext) {
		return true, max(t.Pages(), no+1)
	}
	if ext[lo].Off >= off+ps {
		return true, ext[lo].Off / ps
	}
	// Pages from no to the end of this extent, and of every next extent that starts before the
	// end of the last page touched.
	last := (ext[lo].Off + ext[lo].Len + ps - 1) / ps
	for j := lo + 1; j < len(ext) && ext[j].Off < last*ps; j++ {
		last = max(last, (ext[j].Off+ext[j].Len+ps-1)/ps)
	}
	return false, last
}
