package rows

import (
	"encoding/binary"
	"fmt"

	"innoscope/discovery"
)

// The B-tree above the leaves: the root (which gives the record layout) and the node pointers
// that lead to the leaf pages.

// root reads and checks the root page, and takes the record layout from it (instant ALTER).
func (r *reader) root() ([]byte, discovery.IndexPage, error) {
	no := r.t.Root
	p, ip, err := r.indexPage(no)
	if err != nil {
		return nil, ip, err
	}
	inst := binary.BigEndian.Uint16(p[discovery.FilPageType:]) == pageTypeInst
	if r.lay, err = r.t.rootLayout(p, ip.Compact, inst, int(ip.Instant)); err != nil {
		return nil, ip, fmt.Errorf("%s: page %d (%s root of %s): %w", r.t.File, no, r.t.indexDesc(), r.t.shown, err)
	}
	return p, ip, nil
}

// children returns the child page numbers of the node pointers of page no (p, at level
// ip.Level > 0), in key order.
func (r *reader) children(p []byte, no uint32, ip discovery.IndexPage) ([]uint32, error) {
	if !ip.HasUserRecs {
		return nil, fmt.Errorf("%s: page %d: no way down the B-tree (a node pointer page without records)", r.t.File, no)
	}
	var out []uint32
	origin := compactNext(p, infimumNew)
	if !ip.Compact {
		origin = int(binary.BigEndian.Uint16(p[infimumOld-2:]))
	}
	for i := 0; ; i++ {
		if i > len(p)/5 || origin == 0 {
			return nil, fmt.Errorf("%s: page %d: the node pointer list is broken", r.t.File, no)
		}
		var rec record
		var err error
		if ip.Compact {
			rec, err = decodeCompact(p, origin, r.lay, false, nil)
		} else {
			rec, err = decodeRedundant(p, origin, nil)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: page %d: bad node pointer: %v", r.t.File, no, err)
		}
		switch rec.status {
		case statusSupremum:
			return out, nil
		case statusInfimum:
		default:
			if len(rec.vals) == 0 || len(rec.vals[len(rec.vals)-1].b) != 4 {
				return nil, fmt.Errorf("%s: page %d: bad node pointer at %d", r.t.File, no, origin)
			}
			out = append(out, binary.BigEndian.Uint32(rec.vals[len(rec.vals)-1].b))
		}
		origin = rec.next
	}
}

// leftmostLeaf descends from the root along the first node pointer of each level.
func (r *reader) leftmostLeaf() (uint32, error) {
	p, ip, err := r.root()
	if err != nil {
		return 0, err
	}
	no := r.t.Root
	for depth := 0; ip.Level > 0; depth++ {
		if depth >= maxDepth || !ip.HasUserRecs {
			return 0, fmt.Errorf("%s: page %d: no way down the B-tree", r.t.File, no)
		}
		kids, err := r.children(p, no, ip)
		if err != nil {
			return 0, err
		}
		if no = kids[0]; no == filNull {
			return 0, fmt.Errorf("%s: page %d: bad node pointer", r.t.File, no)
		}
		if p, ip, err = r.inner(no, ip.Level-1); err != nil {
			return 0, err
		}
	}
	return no, nil
}

// indexPage reads page no and checks it is a sound page of the index (any level).
func (r *reader) indexPage(no uint32) ([]byte, discovery.IndexPage, error) {
	p, err := r.readPage(no)
	if err != nil {
		return nil, discovery.IndexPage{}, err
	}
	if why := r.check(p, no, false); why != "" {
		return nil, discovery.IndexPage{}, fmt.Errorf("%s: page %d (%s of %s): %s", r.t.File, no, r.t.indexDesc(), r.t.shown, why)
	}
	ip, _ := discovery.ParseIndexPage(p)
	return p, ip, nil
}

// inner reads and checks page no as a page of the index at the given level (the leaf level
// only by its header: its records are read later).
func (r *reader) inner(no uint32, level uint16) ([]byte, discovery.IndexPage, error) {
	p, ip, err := r.indexPage(no)
	if err != nil {
		return nil, ip, err
	}
	if ip.Level != level {
		return nil, ip, fmt.Errorf("%s: page %d (%s of %s): level %d where its parent says %d", r.t.File, no, r.t.indexDesc(), r.t.shown, ip.Level, level)
	}
	return p, ip, nil
}

// treeLeaves returns the leaf pages of the index in key order, as the node pointers of the
// levels above them give them: every page of the levels above the leaves is read and must be a
// sound page of the index at its level, and no page may be pointed to twice or lie beyond the
// end of the file (else an error: the tree cannot be walked). The leaves themselves are not
// read. Memory: the page numbers of one level and a bit per page of the file.
func (r *reader) treeLeaves() ([]uint32, error) {
	p, ip, err := r.root()
	if err != nil {
		return nil, err
	}
	if ip.Level == 0 {
		return []uint32{r.t.Root}, nil
	}
	if ip.Level >= maxDepth {
		return nil, fmt.Errorf("%s: page %d: level %d: no way down the B-tree", r.t.File, r.t.Root, ip.Level)
	}
	pages := r.f.Pages()
	seen := make([]uint64, (pages+63)/64)
	mark := func(parent, k uint32) error {
		if int64(k) >= pages {
			return fmt.Errorf("%s: page %d: a node pointer to page %d, beyond the end of the file (%d pages)", r.t.File, parent, k, pages)
		}
		if seen[k/64]&(1<<(k%64)) != 0 {
			return fmt.Errorf("%s: page %d: a node pointer to page %d, which another node pointer names too", r.t.File, parent, k)
		}
		seen[k/64] |= 1 << (k % 64)
		return nil
	}
	if err := mark(r.t.Root, r.t.Root); err != nil {
		return nil, err
	}
	level, nos := ip.Level, []uint32{r.t.Root}
	for ; level > 0; level-- {
		var kids []uint32
		for i, no := range nos {
			if i > 0 || no != r.t.Root {
				if p, ip, err = r.inner(no, level); err != nil {
					return nil, err
				}
			}
			c, err := r.children(p, no, ip)
			if err != nil {
				return nil, err
			}
			for _, k := range c {
				if err := mark(no, k); err != nil {
					return nil, err
				}
			}
			kids = append(kids, c...)
		}
		nos = kids
	}
	return nos, nil
}
