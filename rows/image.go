package rows

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"innoscope/discovery"
	"innoscope/schema"
)

// RecordImage is a clustered index record found on a page image: its row (the columns in
// Cols order, nil for NULL, formatted as the server prints them) and its delete mark.
type RecordImage struct {
	Row     Row
	Deleted bool
	Origin  int
	flds    []field // the index's physical fields then (FieldValueAs)
}

// FindByRollPtr looks on p, a leaf page image of the table's clustered index, for the record a
// change wrote: DB_TRX_ID trx and DB_ROLL_PTR pointing to the undo record at offset undoOff of
// undo page undoPage. root is the index's root page image; after an instant ALTER the record
// layout comes from the index's metadata record, looked up through read (the tablespace's
// pages as they are now; nil: the table's file). ok is false when no record matches. A record
// with a value stored off page is an error: its BLOB pages may be newer or older than the
// image.
//
// near are offsets of p the record may lie at or just before (where the log wrote to the page:
// an update writes the record's DB_TRX_ID and DB_ROLL_PTR in place), looked at before the rest of
// the page, as is the page's last insert (PAGE_LAST_INSERT).
func (t *Table) FindByRollPtr(p, root []byte, read discovery.PageReader, trx uint64, undoPage uint32, undoOff int, near []int) (img RecordImage, ok bool, err error) {
	if len(p) < 200 || len(root) < 200 {
		return img, false, nil
	}
	ip, err := discovery.ParseIndexPage(p)
	if err != nil || ip.Level != 0 || ip.IndexID != t.IndexID {
		return img, false, nil
	}
	rip, err := discovery.ParseIndexPage(root)
	if err != nil || rip.IndexID != t.IndexID {
		return img, false, nil
	}
	r, inst, restore, err := t.layoutReader(root, rip, read)
	if err != nil {
		return img, false, err
	}
	defer restore()
	if !inst {
		return t.findByBytes(r, p, ip.Compact, trx, undoPage, undoOff, near)
	}
	// After an instant ALTER the records are read in order: the metadata record (the first of
	// the leftmost leaf) gives the instantly added columns' defaults to those after it.
	origin := compactNext(p, infimumNew)
	if !ip.Compact {
		origin = int(binary.BigEndian.Uint16(p[infimumOld-2:]))
	}
	for i := 0; origin != 0 && i <= len(p)/5; i++ {
		rec, err := r.record(p, origin, ip.Compact)
		if err != nil {
			return img, false, err
		}
		at := origin
		origin = rec.next
		if rec.status == statusSupremum {
			break
		}
		if rec.info&infoMinRec != 0 && rec.status != statusNodePtr {
			if r.meta == nil {
				r.meta = ownValues(rec.vals) // instant ADD COLUMN's defaults, for the records after it
			}
			continue
		}
		if img, ok, err := t.imageIf(r, rec, at, trx, undoPage, undoOff); err != nil || ok {
			return img, ok, err
		}
	}
	return img, false, nil
}

// findByBytes is FindByRollPtr's search of a page without an instant ALTER's metadata record,
// decoding one record rather than each: the record's DB_TRX_ID and DB_ROLL_PTR are 13 bytes in
// a row (the transaction id, then a roll pointer ending in the undo record's page and offset),
// so each place of the page holding the undo page and offset after the transaction id is tried
// as part of the record of the page's list that starts last at or before it (a place in the
// page's garbage fails the check).
func (t *Table) findByBytes(r *reader, p []byte, compact bool, trx uint64, undoPage uint32, undoOff int, near []int) (RecordImage, bool, error) {
	if undoOff < 0 || undoOff > 0xffff {
		return RecordImage{}, false, nil
	}
	var pat [6]byte // the roll pointer's undo page and offset: one record's, where a trx id is many's
	binary.BigEndian.PutUint32(pat[:], undoPage)
	binary.BigEndian.PutUint16(pat[4:], uint16(undoOff))
	end := len(p) - pageDataEnd
	// where the pattern is looked for first: around the offsets written, then after the last
	// insert's origin (its key fields come before DB_TRX_ID)
	const before, after, keyRoom = sysTrxIDLen + sysRollPtrLen, 2 * (sysTrxIDLen + sysRollPtrLen), 1024
	for _, o := range near {
		if img, ok, err := t.findIn(r, p, compact, trx, undoPage, undoOff, pat[:], o-before, o+after); err != nil || ok {
			return img, ok, err
		}
	}
	if last := int(binary.BigEndian.Uint16(p[pageHeader+pageLastInsert:])); last != 0 {
		if img, ok, err := t.findIn(r, p, compact, trx, undoPage, undoOff, pat[:], last, last+keyRoom); err != nil || ok {
			return img, ok, err
		}
	}
	return t.findIn(r, p, compact, trx, undoPage, undoOff, pat[:], FilData, end)
}

// findIn is findByBytes over the bytes [lo, hi) of p.
func (t *Table) findIn(r *reader, p []byte, compact bool, trx uint64, undoPage uint32, undoOff int, pat []byte, lo, hi int) (RecordImage, bool, error) {
	end := len(p) - pageDataEnd
	lo, hi = max(lo, FilData+sysTrxIDLen+1), min(hi, end)
	for from := lo; from < hi; {
		k := bytes.Index(p[from:hi], pat)
		if k < 0 {
			break
		}
		at := from + k - 1 - sysTrxIDLen // where DB_TRX_ID would start
		from += k + 1
		if beUint(p[at:at+sysTrxIDLen]) != trx {
			continue
		}
		origin, best := compactNext(p, infimumNew), 0
		if !compact {
			origin = int(binary.BigEndian.Uint16(p[infimumOld-2:]))
		}
		for hops := 0; origin != 0 && hops <= len(p)/5; hops++ {
			if origin <= at && origin > best {
				best = origin
			}
			if origin < FilData || origin >= end {
				break
			}
			if compact {
				origin = compactNext(p, origin)
			} else {
				origin = int(binary.BigEndian.Uint16(p[origin-2:]))
			}
		}
		if best == 0 {
			continue
		}
		if img, ok, err := t.matchRollPtr(r, p, best, compact, trx, undoPage, undoOff); err != nil || ok {
			return img, ok, err
		}
	}
	return RecordImage{}, false, nil
}

// Layout is a RecordImage with no row that carries the clustered index's record layout as the
// root page image root gives it (after an instant ALTER, from the index's metadata record,
// looked up through read: the physical fields of the metadata BLOB after an instant DROP or
// reorder), for FieldValueAs of an undo record whose own row image was not found. An error
// says the layout is not known, not that the dictionary's holds.
func (t *Table) Layout(root []byte, read discovery.PageReader) (*RecordImage, error) {
	rip, err := discovery.ParseIndexPage(root)
	if err != nil || rip.IndexID != t.IndexID {
		return nil, fmt.Errorf("%s: root page %d is not a page of the clustered index (index id %d)", t.File, t.Root, t.IndexID)
	}
	if read == nil {
		return nil, fmt.Errorf("%s: no pages to read the index's metadata record from", t.File)
	}
	r, _, restore, err := t.layoutReader(root, rip, read)
	if err != nil {
		return nil, err
	}
	defer restore()
	return &RecordImage{flds: r.lay.flds}, nil
}

// layoutReader readies t's image reader with the layout of the clustered index whose root
// page image is root (rip parsed): the root's, and, on an instant ALTER's root, its metadata
// record's through read (nil: the table's file). restore gives the reader its file back.
func (t *Table) layoutReader(root []byte, rip discovery.IndexPage, read discovery.PageReader) (r *reader, inst bool, restore func(), err error) {
	if t.imgReader == nil {
		if t.imgReader, err = t.reader(); err != nil {
			return nil, false, nil, err
		}
	}
	r = t.imgReader
	r.meta = nil
	inst = binary.BigEndian.Uint16(root[discovery.FilPageType:]) == pageTypeInst
	if r.lay, err = t.rootLayout(root, rip.Compact, inst, int(rip.Instant)); err != nil {
		return nil, false, nil, fmt.Errorf("%s: root page %d: %w", t.File, t.Root, err)
	}
	f := r.f
	restore = func() { r.f = f }
	if inst && rip.Compact && read != nil {
		if err := t.imageLayout(r, root, rip, read); err != nil {
			restore()
			return nil, false, nil, fmt.Errorf("%s: the instant ALTER metadata record: %w", t.File, err)
		}
	}
	return r, inst, restore, nil
}

// matchRollPtr is the image of the record at origin of p when it is the one FindByRollPtr
// looks for.
func (t *Table) matchRollPtr(r *reader, p []byte, origin int, compact bool, trx uint64, undoPage uint32, undoOff int) (RecordImage, bool, error) {
	if origin < FilData || origin >= len(p)-pageDataEnd {
		return RecordImage{}, false, nil
	}
	rec, err := r.record(p, origin, compact)
	if err != nil || rec.status == statusSupremum || rec.info&infoMinRec != 0 {
		return RecordImage{}, false, nil // the walk of the page says what is wrong
	}
	return t.imageIf(r, rec, origin, trx, undoPage, undoOff)
}

// imageIf is the image of rec (at origin) when it is an ordinary record written by transaction
// trx with a DB_ROLL_PTR pointing to the undo record at undoPage, undoOff.
func (t *Table) imageIf(r *reader, rec record, at int, trx uint64, undoPage uint32, undoOff int) (RecordImage, bool, error) {
	k := r.lay.nUniq
	if rec.status != statusOrdinary && rec.status != statusInstant || rec.info&infoMinRec != 0 || len(rec.vals) < k+2 {
		return RecordImage{}, false, nil
	}
	tv, rp := rec.vals[k].b, rec.vals[k+1].b
	if len(tv) != sysTrxIDLen || len(rp) != sysRollPtrLen || beUint(tv) != trx ||
		binary.BigEndian.Uint32(rp[1:]) != undoPage || int(binary.BigEndian.Uint16(rp[5:])) != undoOff {
		return RecordImage{}, false, nil
	}
	for _, v := range rec.vals {
		if v.ext {
			return RecordImage{}, false, fmt.Errorf("%s: record at %d: a value stored off page is not read from an image of another time", t.File, at)
		}
	}
	row, err := r.row(rec.vals)
	if err != nil {
		return RecordImage{}, false, fmt.Errorf("%s: record at %d: %w", t.File, at, err)
	}
	return RecordImage{Row: row, Deleted: rec.info&infoDeleted != 0, Origin: at, flds: r.lay.flds}, true, nil
}

// ColumnBinary reports whether column c holds bytes a statement gives as a hexadecimal
// literal (BIT, binary strings), as --format sql writes them.
func (t *Table) ColumnBinary(c int) bool {
	if c < 0 || c >= len(t.Cols) {
		return false
	}
	col := t.Cols[c]
	return col.SQL.Type == schema.MyBit || isString(col.SQL.Type) && charsetOf(schema.Collation(col.InnoDB.PRType)) == csBinary &&
		(col.SQL.DataType == "" || col.SQL.DataType == "vector")
}

// Close releases the file FindByRollPtr keeps open between calls.
func (t *Table) Close() error {
	if t.imgReader == nil || t.src != nil {
		return nil
	}
	err := t.imgReader.f.Close()
	t.imgReader = nil
	return err
}
