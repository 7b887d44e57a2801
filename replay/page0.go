package replay

import (
	"fmt"
	"os"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/internal/regular"
)

// refuseZeroPage0 fails, as the server does, when the log must read pages of tablespace id,
// whose file p (opened read-write in the copy) has a blank page 0 (discovery.BlankPage0) that
// no INIT_PAGE rebuilds: the server cannot apply the log to it and refuses to start.
func (r *recovery) refuseZeroPage0(id uint32, p string, f *os.File) error {
	b := make([]byte, discovery.MinPhysicalPageSize)
	if n, _ := f.ReadAt(b, 0); !discovery.BlankPage0(b[:n]) {
		return nil
	}
	if read, ok := r.an.Pages[analysis.PageID{Space: id, Page: 0}]; ok && !read {
		return nil // rebuilt
	}
	first, n := r.an.NeededPages(id)
	if n == 0 {
		return nil
	}
	return fmt.Errorf("%s: page 0 is all zero and the log does not rebuild it, and the log changes %d pages of tablespace %d that must be read from this file: the server refuses to start (\"Cannot apply log to [page id: space=%d, page number=%d] of corrupted file\")",
		p, n, id, id, first)
}

// refuseZeroSystemPage0 fails when page 0 of the first system tablespace file p is all zero:
// the server refuses to start before it looks at the log.
func refuseZeroSystemPage0(p string, pageSize int) error {
	f, err := regular.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	b := make([]byte, pageSize)
	if n, _ := f.ReadAt(b, 0); n > 0 && !discovery.IsZero(b[:n]) {
		return nil
	}
	return fmt.Errorf("%s: page 0 of the system tablespace is all zero: the server refuses to start (\"The data file ... has the wrong space ID. It should be 0, but 0 was found\")", p)
}
