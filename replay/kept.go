package replay

import (
	"innoscope/analysis"
	"innoscope/discovery"
)

// pageStore keeps the pages the pre-flight read of Open (PlanSalvage's, which reads every page
// recovery must read, to refuse a corrupt one before copying) read from the source's datafiles,
// as read: the replay takes a page left out of the copy from here instead of reading it again
// (the same bytes of the same read-only file). Up to limit bytes are kept.
type pageStore struct {
	files        map[string]map[int64]keptPage // by the path the page was read from
	bytes, limit int64
	// ready are blocks of frames made ready on another goroutine for the pages to keep.
	ready *prefaulted
}

// newPageStore keeps up to limit bytes of the pages a (the log's analysis) makes recovery read
// from datafiles of the tablespaces the log names (those keepRead keeps).
func newPageStore(limit int64, a *analysis.Analysis, pageSize int) *pageStore {
	k := &pageStore{files: map[string]map[int64]keptPage{}, limit: limit}
	if limit == 0 || a == nil || pageSize <= 0 {
		return k
	}
	var n int64
	for id, read := range a.Pages {
		if read && id.Space != 0 && !a.Freed[id] && a.Map.Spaces[id.Space] != nil {
			n += int64(pageSize)
		}
	}
	k.ready = prefault(min(n, limit))
	return k
}

// keptPage is a page as read, and whether recovery's read found it sound as a page of
// tablespace space under the flags raw (not encrypted, not page_compressed, its checksum
// valid): the same bytes read as the same page under the same flags need no second look.
type keptPage struct {
	b       []byte
	checked bool
	raw     uint32
	space   uint32
}

// keep records kp, read at off of the file p; false when it is not kept.
func (k *pageStore) keep(p string, off int64, kp keptPage) bool {
	if k == nil || k.bytes+int64(len(kp.b)) > k.limit {
		return false
	}
	m := k.files[p]
	if m == nil {
		m = map[int64]keptPage{}
		k.files[p] = m
	}
	if _, ok := m[off]; ok {
		return false
	}
	m[off] = kp
	k.bytes += int64(len(kp.b))
	return true
}

// of returns the pages kept of the file src (by its resolved path).
func (k *pageStore) of(src string) map[int64]keptPage {
	if k == nil {
		return nil
	}
	for p, m := range k.files {
		if discovery.ResolvePath(p) == src {
			return m
		}
	}
	return nil
}

// keepRead records the page of t just read into img by the pre-flight read (r.keep set), for
// the replay: pages of the tablespaces the log names by file (not the system or undo
// tablespaces, which the copy takes whole). The frame of a page not kept is used again (the
// pre-flight read drops every page it reads).
func (r *recovery) keepRead(t *tsFile, no uint32, img []byte, asRead, checked bool) {
	if r.keep == nil {
		return
	}
	if asRead && t.id != 0 && len(t.segs) == 1 && r.an.Map.Spaces[t.id] != nil {
		kp := keptPage{b: img, checked: checked && t.flagsSet, raw: t.flags.Raw, space: t.id}
		if s, off := t.locate(no); s != nil && r.keep.keep(s.path, off, kp) {
			return
		}
	}
	r.frames.putBack(img)
}

// readFrame returns page no of t: the page kept by the pre-flight read when the copy left it
// out and it is still the source's, else read into a frame of slab (kept.b is nil).
func (t *tsFile) readFrame(no uint32, slab *frameSlab) (img []byte, kept keptPage, err error) {
	if s, off := t.locate(no); s != nil && s.def != nil && len(s.def.kept) > 0 && s.def.state(off, int64(t.phys)) == fromSource {
		if kp := s.def.kept[off]; len(kp.b) == t.phys {
			delete(s.def.kept, off)
			return kp.b, kp, nil
		}
	}
	img = slab.get(t.phys)
	return img, keptPage{}, t.readInto(no, img)
}
