package rows

import (
	"encoding/binary"
	"fmt"

	"innoscope/discovery"
)

// Scan reads the rows of every leaf page of the clustered index in file order instead of
// following the B-tree (for a damaged tree): the leftmost leaf first when the tree leads to
// it (it holds the instant ALTER metadata), then every other page of the file that is a valid
// leaf of the index. Rows come in key order within a page only.
func (t *Table) Scan(fn func(Row) error) (*Result, error) {
	r, err := t.reader()
	if err != nil {
		return nil, err
	}
	defer r.f.Close()
	seen := map[uint32]bool{}
	if leaf, err := r.leftmostLeaf(); err == nil {
		if err := r.leaf(leaf, fn); err != nil {
			return r.res, err
		}
		seen[leaf] = true
	} else {
		r.res.Notes = append(r.res.Notes, fmt.Sprintf("no way down the B-tree (%v): the record layout is the dictionary's", err))
		if r.lay == nil {
			r.lay = &layout{flds: t.fields, nCore: len(t.fields), nUniq: t.nUniq, nullBytes: nullBytesOf(t.fields)}
		}
	}
	return r.res, r.rest(seen, fn)
}

// rest reads, in file order, every page of the file not in seen that is a leaf of the index.
// A page that fails its checksum but carries the index's id at level 0 is counted as lost.
func (r *reader) rest(seen map[uint32]bool, fn func(Row) error) error {
	if r.meta == nil {
		// The leftmost leaf first: its metadata record gives the values of instantly added
		// columns to the records that lack them.
		err := r.f.EachPage(0, r.f.Pages(), func(n int64, p []byte) error {
			no := uint32(n)
			if q, err := r.logical(p, no); err == nil {
				p = q
			}
			if !seen[no] && r.ownLeaf(p) && binary.BigEndian.Uint32(p[discovery.FilPagePrev:]) == filNull && !r.free(no) && r.check(p, no, true) == "" {
				seen[no] = true
				return r.scanPage(p, no, fn)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	stale := 0
	err := r.f.EachPage(0, r.f.Pages(), func(n int64, p []byte) error {
		no := uint32(n)
		if seen[no] {
			return nil
		}
		p, err := r.logical(p, no) // a PAGE_COMPRESSED page decompressed
		if err != nil {
			seen[no] = true
			r.lose(p, no, err.Error())
			return nil
		}
		if !r.ownLeaf(p) {
			return nil
		}
		seen[no] = true
		if r.free(no) {
			stale++
			return nil
		}
		if why := r.check(p, no, true); why != "" {
			r.lose(p, no, why)
			return nil
		}
		return r.scanPage(p, no, fn)
	})
	if stale > 0 {
		r.res.Notes = append(r.res.Notes, fmt.Sprintf("%d leaf page(s) of the index that the extent descriptors mark free passed over: a page the index gave up keeps its old records", stale))
	}
	return err
}

// free reports whether the extent descriptors mark page no free: a page the index once used
// (split, merged, reorganized away) keeps its records, stale copies of rows now elsewhere. A
// descriptor page that fails its checksum tells nothing.
func (r *reader) free(no uint32) bool {
	if r.xdes == nil {
		r.xdes = r.f.Descriptors()
	}
	used, known := r.xdes.Used(int64(no))
	return known && !used
}

// ownLeaf: the page says it is a leaf page of the clustered index (checksum not verified).
func (r *reader) ownLeaf(p []byte) bool {
	typ := binary.BigEndian.Uint16(p[discovery.FilPageType:])
	ip, err := discovery.ParseIndexPage(p)
	return err == nil && (typ == pageTypeIdx || typ == pageTypeInst) && ip.IndexID == r.t.IndexID && ip.Level == 0
}

// leaf reads one leaf page by number and emits its rows (or records it as lost).
func (r *reader) leaf(no uint32, fn func(Row) error) error {
	p, err := r.readPage(no)
	if err != nil {
		return err
	}
	if why := r.check(p, no, true); why != "" {
		r.lose(p, no, why)
		return nil
	}
	return r.page(p, no, fn)
}

// nullBytesOf is the NULL bitmap size of records of all of flds.
func nullBytesOf(flds []field) int {
	n := 0
	for _, f := range flds {
		if f.nullable {
			n++
		}
	}
	return (n + 7) / 8
}
