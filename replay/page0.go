package replay

import (
	"fmt"
	"os"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/internal/regular"
)

// page0Copy is the doublewrite copy of page 0 of tablespace id that the server's crash recovery
// writes over a blank first page (discovery.DoublewritePage0: not older than the checkpoint, not
// past the end of the log), or nil.
func (r *recovery) page0Copy(id uint32) []byte {
	c := discovery.DoublewritePage0(r.dblwr, id, r.an.Map.FromLSN, r.an.Map.EndLSN, r.opt.PageSize)
	if c == nil {
		return nil
	}
	return c.Image
}

// zeroPage0 looks at the first page of tablespace id's file p (opened read-write in the copy)
// as the server does when the log must read pages of it: a blank page 0 (discovery.BlankPage0)
// that no INIT_PAGE rebuilds is written back from the doublewrite buffer when it holds a copy
// (img), and is otherwise a refusal (the server cannot apply the log to it and refuses to
// start).
func (r *recovery) zeroPage0Of(id uint32, p string, f *os.File) (img []byte, refusal error) {
	b := make([]byte, discovery.MinPhysicalPageSize)
	if n, _ := f.ReadAt(b, 0); !discovery.BlankPage0(b[:n]) {
		return nil, nil
	}
	if read, ok := r.an.Pages[analysis.PageID{Space: id, Page: 0}]; ok && !read {
		return nil, nil // rebuilt
	}
	if _, logged := r.an.Map.Spaces[id]; logged {
		if img := r.page0Copy(id); img != nil {
			return img, nil // recv_sys deferred_dblwr
		}
	}
	first, n := r.an.NeededPages(id)
	if n == 0 {
		return nil, nil
	}
	return nil, fmt.Errorf("%s: page 0 is all zero, the log does not rebuild it and the doublewrite buffer has no copy of it that crash recovery uses, and the log changes %d pages of tablespace %d that must be read from this file: the server refuses to start (\"Cannot apply log to [page id: space=%d, page number=%d] of corrupted file\")",
		p, n, id, id, first)
}

// systemPage0 looks at page 0 of the first system tablespace file p: when it is all zero, the
// doublewrite buffer's copy the server writes back (img), or the server's refusal.
func (r *recovery) systemPage0(p string) (img []byte, refusal error) {
	f, err := regular.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, r.opt.PageSize)
	if n, _ := f.ReadAt(b, 0); n > 0 && !discovery.IsZero(b[:n]) {
		return nil, nil
	}
	if len(r.an.Pages) > 0 { // buf_dblwr_t::recover runs in crash recovery only
		if img := r.page0Copy(0); img != nil {
			return img, nil
		}
	}
	return nil, fmt.Errorf("%s: page 0 of the system tablespace is all zero and the doublewrite buffer has no copy of it that crash recovery uses: the server refuses to start (\"The data file ... has the wrong space ID. It should be 0, but 0 was found\")", p)
}

// restorePage0 does what the server does with a doublewrite copy img of page 0 of t: it writes
// it over the file's first page before recovery reads the file (read-only, t reads it from
// memory instead), and takes the flags from it.
func (r *recovery) restorePage0(t *tsFile, img []byte) error {
	t.setFlags(img)
	if !t.flagsSet {
		return fmt.Errorf("%s: the doublewrite copy of page 0 has flags that do not fit innodb_page_size=%d", t, r.opt.PageSize)
	}
	img = img[:t.phys]
	r.res.PagesFromDblwr++
	if r.readOnly {
		t.page0 = img
		return nil
	}
	return t.write(0, img)
}
