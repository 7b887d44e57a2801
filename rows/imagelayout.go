package rows

import (
	"encoding/binary"
	"fmt"

	"innoscope/discovery"
)

// The record layout of a page image of a table an instant ALTER changed (FindByRollPtr). The
// layout comes from the index's metadata record, the first record of the leftmost leaf: its
// defaults of instantly added columns, and, after an instant DROP or reorder, the physical
// field list in its metadata BLOB (dropped columns included, which every older record still
// carries). A walk of the table meets that record first; a single page found elsewhere in the
// tree needs it looked up.

// imageLayout sets r.lay and r.meta from the metadata record of the clustered index whose root
// page image is root, descending to the leftmost leaf through read (the tablespace's pages as
// they are now), and makes r read the metadata BLOB and anything else through read as well.
// The layout is kept per leftmost leaf page image (its page number and LSN).
func (t *Table) imageLayout(r *reader, root []byte, rip discovery.IndexPage, read discovery.PageReader) error {
	f, err := discovery.NewFile(discovery.SpacePages{Read: read, Space: t.SpaceID, Size: int64(len(root))}, 1<<40, t.File)
	if err != nil {
		return err
	}
	r.f = f
	p, ip, no := root, rip, t.Root
	for depth := 0; ip.Level > 0; depth++ {
		if depth >= maxDepth || !ip.HasUserRecs {
			return fmt.Errorf("page %d: no way down the B-tree", no)
		}
		kids, err := r.children(p, no, ip)
		if err != nil {
			return err
		}
		if len(kids) == 0 {
			return fmt.Errorf("page %d: no node pointer", no)
		}
		no = kids[0]
		if p, err = read(t.SpaceID, no); err != nil {
			return err
		}
		if ip, err = discovery.ParseIndexPage(p); err != nil || ip.IndexID != t.IndexID || !ip.Compact {
			return fmt.Errorf("page %d: not a page of the index (%v)", no, err)
		}
	}
	key := imageLayoutKey{no, binary.BigEndian.Uint64(p[discovery.FilPageLSN:])}
	if k, ok := t.layouts[key]; ok {
		r.lay.flds, r.meta = k.flds, k.meta
		return nil
	}
	origin := compactNext(p, infimumNew)
	if origin < FilData || origin >= len(p)-pageDataEnd || p[origin-5]&infoMinRec == 0 {
		return nil // no metadata record: the dictionary's layout, no instantly added column
	}
	rec, err := r.record(p, origin, true) // after an instant DROP, reads the metadata BLOB
	if err != nil {
		return fmt.Errorf("leftmost leaf page %d: %w", no, err)
	}
	meta := ownValues(rec.vals)
	if t.layouts == nil || len(t.layouts) > 64 {
		t.layouts = map[imageLayoutKey]imageLayoutOf{}
	}
	t.layouts[key] = imageLayoutOf{r.lay.flds, meta}
	r.meta = meta
	return nil
}

// imageLayoutKey names a leftmost leaf page image: its page number and FIL_PAGE_LSN.
type imageLayoutKey struct {
	page uint32
	lsn  uint64
}

// imageLayoutOf is the layout a metadata record gives: the physical fields and the defaults.
type imageLayoutOf struct {
	flds []field
	meta []value
}
