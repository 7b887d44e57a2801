package rows

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"innoscope/discovery"
)

const (
	filNull        = 0xffffffff
	pageTypeIdx    = 17855 // FIL_PAGE_INDEX
	pageTypeInst   = 18    // FIL_PAGE_TYPE_INSTANT: MariaDB's clustered index root after instant ALTER
	pageHeader     = FilData
	pageLastInsert = 10 // PAGE_LAST_INSERT, in the page header
	pageLevel      = 26 // PAGE_LEVEL, in the page header
	maxDepth       = 32
)

// Loss is a page whose records could not be read.
type Loss struct {
	Page   uint32 `json:"page"`
	Reason string `json:"reason"`
	Rows   int    `json:"rows"` // PAGE_N_RECS of the page (user records it held, delete-marked included)
	// Unknown: how many rows the lost pages held is not known (pages missing from a truncated
	// file: Rows is 0 then, not a count).
	Unknown bool `json:"rows_unknown,omitempty"`
}

// Result is what a walk read.
type Result struct {
	Table    string   `json:"table"`
	File     string   `json:"file"`
	Rows     int64    `json:"rows"`
	Pages    int      `json:"leaf_pages"`
	Lost     []Loss   `json:"lost,omitempty"`
	LostRows int      `json:"lost_rows"`
	Notes    []string `json:"notes,omitempty"`
	// DeleteMarked counts the delete-marked records of the leaves read (deleted rows purge has
	// not removed yet: DeletedHint).
	DeleteMarked int `json:"delete_marked,omitempty"`
}

// Row is one row: a value per column of Table.Cols, nil for SQL NULL (an empty value is a
// non-nil empty slice). The slices are only valid during the call.
type Row [][]byte

// reader reads one table's tablespace.
type reader struct {
	t    *Table
	f    *discovery.File
	lay  *layout
	meta []value // the metadata record's fields: defaults of instantly added columns
	res  *Result
	// arena holds the formatted values of one page's rows, spans where each is in it.
	arena []byte
	spans []int
	vbuf  []value // the fields of the record being decoded (reused)
	xbuf  []value // a versioned REDUNDANT record's fields spread over the index's (reused)
	// zipBad: the compressed index pages that did not decompress, and why.
	zipBad   map[uint32]string
	unzipped []byte // the page readPage or fetch decompressed last (its stored checksum held)
	leafBuf  []byte // Walk reads each leaf page into it
	// xdes reads the extent descriptor pages free asks for (nil until then).
	xdes *discovery.Descriptors
	// format, when set (WalkFormatted), is how walkLeaves' workers format their leaves' rows
	// themselves, which the emitter then writes to out as they are.
	format Formatter
	out    io.Writer
}

// Walk reads the table's rows in clustered index order and calls fn for each. The leaf pages
// are the ones the B-tree's upper levels point to, in their order (the parents' node pointers,
// not the leaves' FIL_PAGE_NEXT links, which a damaged page cannot be trusted for): a leaf page
// that fails its checksum or is not a leaf of the index (its type, index id or level damaged)
// is reported in Result.Lost with the records it held, and a leaf whose FIL_PAGE_PREV or
// FIL_PAGE_NEXT disagrees with the tree (a damaged, looping or dangling link) as a loss of no
// rows. When the upper levels cannot be read, the leaf pages are read in file order (as Scan
// does) and Result.Notes says so. fn's error stops the walk.
func (t *Table) Walk(fn func(Row) error) (*Result, error) {
	r, err := t.reader()
	if err != nil {
		return nil, err
	}
	return r.walk(fn)
}

// Formatter appends one row, formatted, to dst: a format in which every row is written on its
// own, whatever came before it (TSV).
type Formatter func(dst []byte, row Row) []byte

// WalkFormatted is Walk writing each row to out as format appends it: the workers that decode
// the leaves format their rows too, on every CPU, and the rows come out in the same order.
func (t *Table) WalkFormatted(format Formatter, out io.Writer) (*Result, error) {
	r, err := t.reader()
	if err != nil {
		return nil, err
	}
	r.format, r.out = format, out
	var buf []byte
	return r.walk(func(row Row) error {
		buf = format(buf[:0], row)
		_, err := out.Write(buf)
		return err
	})
}

// walk is Walk with r's file.
func (r *reader) walk(fn func(Row) error) (*Result, error) {
	defer r.f.Close()
	seen := map[uint32]bool{}
	leaves, err := r.treeLeaves()
	if err != nil {
		if r.lay == nil { // the root itself: its record layout (instant ALTER) is unknown
			return nil, fmt.Errorf("%w (--scan reads the leaf pages without the tree)", err)
		}
		r.res.Notes = append(r.res.Notes, fmt.Sprintf("no way down the B-tree (%v): the leaf pages were read in file order", err))
		return r.res, r.rest(seen, fn)
	}
	return r.res, r.walkLeaves(leaves, fn)
}

// treeLeaf reads leaves[i] and emits its rows: a leaf that cannot be read or used is a loss, and a
// leaf whose FIL_PAGE_PREV or FIL_PAGE_NEXT disagrees with the tree's order a loss of no rows.
func (r *reader) treeLeaf(leaves []uint32, i int, fn func(Row) error) error {
	no := leaves[i]
	if r.leafBuf == nil {
		r.leafBuf = make([]byte, r.f.Physical)
	}
	p, err := r.readPageInto(r.leafBuf, no)
	if err != nil {
		r.res.Lost = append(r.res.Lost, Loss{Page: no, Reason: fmt.Sprintf("a leaf the B-tree points to cannot be read: %v", err)})
		return nil
	}
	if why := r.check(p, no, true); why != "" {
		r.lose(p, no, why)
		return nil
	}
	if err := r.page(p, no, fn); err != nil {
		return err
	}
	prev, next := uint32(filNull), uint32(filNull)
	if i > 0 {
		prev = leaves[i-1]
	}
	if i+1 < len(leaves) {
		next = leaves[i+1]
	}
	be := binary.BigEndian
	if gotPrev, gotNext := be.Uint32(p[discovery.FilPagePrev:]), be.Uint32(p[discovery.FilPageNext:]); gotPrev != prev || gotNext != next {
		r.res.Lost = append(r.res.Lost, Loss{Page: no, Reason: fmt.Sprintf("the leaf chain is damaged: FIL_PAGE_PREV %s and FIL_PAGE_NEXT %s, where the B-tree's leaves before and after it are %s and %s (its rows were read, in the B-tree's order)",
			pageName(gotPrev), pageName(gotNext), pageName(prev), pageName(next))})
	}
	return nil
}

// ownValues copies vals with their bytes: the metadata record outlives the page buffer it was
// read from.
func ownValues(vals []value) []value {
	out := append([]value(nil), vals...)
	for i := range out {
		out[i].b = append([]byte(nil), out[i].b...)
	}
	return out
}

// pageName is a page number as messages name it (FIL_NULL: "none").
func pageName(no uint32) string {
	if no == filNull {
		return "none"
	}
	return fmt.Sprint(no)
}

// reader opens the table's tablespace file.
func (t *Table) reader() (*reader, error) {
	if t.src != nil {
		return &reader{t: t, f: t.src, res: &Result{Table: t.Name, File: t.File}}, nil
	}
	f, err := discovery.OpenFile(t.File)
	if err != nil {
		return nil, err
	}
	return &reader{t: t, f: f, res: &Result{Table: t.Name, File: t.File}}, nil
}

// checksum returns why page no fails its checksum ("" when it does not).
func (r *reader) checksum(p []byte, no uint32) string {
	if r.zipChecked(p) {
		return ""
	}
	if v := discovery.CheckPage(p, r.f.FSP.Flags, no, r.t.SpaceID); v.Corrupt {
		return "checksum: " + v.Reason
	}
	return ""
}

// check returns why page no cannot be used ("" when it can).
func (r *reader) check(p []byte, no uint32, leaf bool) string {
	if why := r.checksum(p, no); why != "" {
		return why
	}
	typ := binary.BigEndian.Uint16(p[discovery.FilPageType:])
	ip, err := discovery.ParseIndexPage(p)
	if why, bad := r.zipBad[no]; bad && typ == pageTypeIdx {
		return "ROW_FORMAT=COMPRESSED page does not decompress: " + why
	}
	switch {
	case typ != pageTypeIdx && typ != pageTypeInst:
		return fmt.Sprintf("page type %d is not an index page", typ)
	case err != nil:
		return err.Error()
	case ip.Compact != r.t.Compact:
		return rowFormatMismatch(ip.Compact, ip.IndexID, r.t)
	case ip.IndexID != r.t.IndexID:
		return fmt.Sprintf("index id %d, not the %s's %d", ip.IndexID, r.t.indexDesc(), r.t.IndexID)
	case leaf && ip.Level != 0:
		return fmt.Sprintf("level %d on the leaf level", ip.Level)
	}
	return ""
}

// rowFormatMismatch says that a page's records are in the other row format than the table's
// dictionary entry gives it (the page header's compact flag against SYS_TABLES.N_COLS's).
func rowFormatMismatch(pageCompact bool, indexID uint64, t *Table) string {
	format := map[bool]string{true: "COMPACT, DYNAMIC or COMPRESSED", false: "REDUNDANT"}
	why := fmt.Sprintf("row format mismatch: the page's records are ROW_FORMAT=%s, the dictionary gives %s ROW_FORMAT=%s",
		format[pageCompact], t.Shown, format[!pageCompact])
	if indexID != t.IndexID {
		why += fmt.Sprintf(" (and the page belongs to index %d, not the %s's %d: the file is another table's)", indexID, t.indexDesc(), t.IndexID)
	}
	return why
}

// lose records page no as lost.
func (r *reader) lose(p []byte, no uint32, why string) {
	n := int(binary.BigEndian.Uint16(p[pageHeader+16:]))
	if n > len(p)/5 {
		n = 0
	}
	r.res.Lost = append(r.res.Lost, Loss{Page: no, Reason: why, Rows: n})
	r.res.LostRows += n
}

// page emits the user records of one leaf page.
func (r *reader) page(p []byte, no uint32, fn func(Row) error) error {
	ip, _ := discovery.ParseIndexPage(p)
	origin := compactNext(p, infimumNew)
	if !ip.Compact {
		origin = int(binary.BigEndian.Uint16(p[infimumOld-2:]))
	}
	r.res.Pages++
	arena, spans := r.arena[:0], r.spans[:0]
	n := 0
	for i := 0; ; i++ {
		if i > len(p)/5 || origin == 0 {
			r.lose(p, no, "the record list is broken")
			return nil
		}
		rec, err := r.record(p, origin, ip.Compact)
		if err != nil {
			r.lose(p, no, err.Error())
			return nil
		}
		if rec.status == statusSupremum {
			break
		}
		at := origin
		origin = rec.next
		switch {
		case rec.status == statusInfimum:
			continue
		case rec.info&infoMinRec != 0:
			r.meta = ownValues(rec.vals)
			continue
		case rec.info&infoDeleted != 0:
			r.res.DeleteMarked++
			continue
		}
		a0, s0 := arena, spans
		if arena, spans, err = r.cells(arena, spans, rec.vals); err != nil {
			var off offPageError
			if !errors.As(err, &off) {
				r.lose(p, no, err.Error())
				return nil
			}
			// An unreadable off-page value loses its row only.
			r.res.Lost = append(r.res.Lost, Loss{Page: no, Reason: fmt.Sprintf("record at %d: %v", at, err), Rows: 1})
			r.res.LostRows++
			arena, spans = a0, s0
			continue
		}
		n++
	}
	r.arena, r.spans = arena, spans
	// The page's rows are emitted only when all of them decoded: a page is read whole or lost.
	w := len(r.t.Cols)
	row := make(Row, w)
	for i := 0; i < n; i++ {
		r.res.Rows++
		if err := fn(rowOf(row, arena, spans[2*w*i:])); err != nil {
			return err
		}
	}
	return nil
}

// record decodes the record at origin; the metadata record of an instant DROP or reorder
// first switches the layout to the one its BLOB gives.
func (r *reader) record(p []byte, origin int, compact bool) (record, error) {
	if origin < FilData || origin >= len(p)-pageDataEnd {
		return record{}, fmt.Errorf("record at %d: outside the page's records", origin)
	}
	if !compact {
		rec, err := redundantRecord(p, origin, r.lay.vers != nil, r.vbuf)
		r.vbuf = rec.vals
		if err == nil && r.lay.vers != nil && rec.status == statusOrdinary && binary.BigEndian.Uint16(p[pageHeader+pageLevel:]) == 0 {
			r.xbuf, err = versionedRedundant(rec, r.lay, r.xbuf[:0])
			if err != nil {
				return rec, fmt.Errorf("record at %d: %w", origin, err)
			}
			rec.vals = r.xbuf
			return rec, nil
		}
		if err != nil || rec.info&(infoMinRec|infoDeleted) != infoMinRec|infoDeleted || rec.status > statusNodePtr {
			return rec, err
		}
		k := r.lay.firstUser()
		if len(rec.vals) <= k || len(rec.vals[k].b) != fieldRefSize {
			return rec, fmt.Errorf("record at %d: metadata record without its BLOB reference", origin)
		}
		if err := r.metadataLayout(rec.vals[k].b); err != nil {
			return rec, err
		}
		rec.vals = append(rec.vals[:k:k], rec.vals[k+1:]...)
		return rec, nil
	}
	mblob := p[origin-5]&(infoMinRec|infoDeleted) == infoMinRec|infoDeleted && p[origin-3]&7 == statusInstant
	if mblob {
		// The key's variable-length fields are empty in the metadata record: the reference is
		// after the fixed-length ones, DB_TRX_ID and DB_ROLL_PTR.
		at := origin + sysTrxIDLen + sysRollPtrLen
		for _, f := range r.lay.flds[:r.lay.nUniq] {
			at += f.fixed
		}
		if at+fieldRefSize > len(p)-8 {
			return record{}, fmt.Errorf("record at %d: metadata BLOB reference out of range", origin)
		}
		if err := r.metadataLayout(p[at : at+fieldRefSize]); err != nil {
			return record{}, err
		}
	}
	rec, err := decodeCompact(p, origin, r.lay, mblob, r.vbuf)
	r.vbuf = rec.vals
	return rec, err
}

// row turns a record's fields into the table's columns.
func (r *reader) row(vals []value) (Row, error) {
	n := 0
	for _, v := range vals { // room for most values as printed: grown once, if at all
		n += 2*len(v.b) + 8
	}
	arena, spans, err := r.cells(make([]byte, 0, n), make([]int, 0, 2*len(r.t.Cols)), vals)
	if err != nil {
		return nil, err
	}
	return rowOf(make(Row, len(r.t.Cols)), arena, spans), nil
}

// cells appends the formatted values of a record's columns to arena, and their [start, end)
// in it to spans, in column order (start -1: NULL).
func (r *reader) cells(arena []byte, spans []int, vals []value) ([]byte, []int, error) {
	flds := r.lay.flds
	if len(vals) > len(flds) {
		return nil, nil, fmt.Errorf("record with %d fields, the index has %d", len(vals), len(flds))
	}
	base := len(spans)
	for range r.t.Cols {
		spans = append(spans, -1, -1)
	}
	for i, f := range flds {
		if f.col < 0 {
			continue
		}
		var v value
		switch {
		case i < len(vals):
			v = vals[i]
		case i < len(r.meta):
			v = r.meta[i] // added by instant ALTER after the record was written: the default
		default:
			return nil, nil, fmt.Errorf("record with %d fields and no metadata record for field %s", len(vals), f.name)
		}
		if v.null {
			continue
		}
		b := v.b
		if v.ext {
			var err error
			if b, err = r.external(b); err != nil {
				return nil, nil, offPageError{fmt.Errorf("column %s: %w", f.name, err)}
			}
		}
		start := len(arena)
		var err error
		if arena, err = format(arena, &r.t.Cols[f.col], b, r.t.TimeZone); err != nil {
			return nil, nil, err
		}
		spans[base+2*f.col], spans[base+2*f.col+1] = start, len(arena)
	}
	return arena, spans, nil
}

// rowOf fills row from the first len(row) spans of arena.
func rowOf(row Row, arena []byte, spans []int) Row {
	if arena == nil {
		arena = []byte{}
	}
	for c := range row {
		if s := spans[2*c]; s >= 0 {
			row[c] = arena[s:spans[2*c+1]:spans[2*c+1]]
		} else {
			row[c] = nil
		}
	}
	return row
}

// offPageError is a value stored off page that cannot be read (its BLOB pages are damaged).
type offPageError struct{ error }

func (e offPageError) Unwrap() error { return e.error }

// external returns the whole value of a field stored off page: its local prefix and the BLOB
// pages its 20-byte reference (space, page, offset, length) leads to.
func (r *reader) external(local []byte) ([]byte, error) {
	if len(local) < fieldRefSize {
		return nil, fmt.Errorf("off-page field of %d bytes has no reference", len(local))
	}
	if r.f.FSP.Flags.ZipSize != 0 {
		return r.zipExternal(local)
	}
	ref := local[len(local)-fieldRefSize:]
	be := binary.BigEndian
	no, off := be.Uint32(ref[4:]), int(be.Uint32(ref[8:]))
	want := int(be.Uint32(ref[16:]))
	// The reference's length is a claim: the value grows as its pages are read (a chain is at
	// most as long as the file), never allocated ahead beyond what one BLOB page holds.
	out := append(make([]byte, 0, len(local)-fieldRefSize+min(want, r.f.Physical)), local[:len(local)-fieldRefSize]...)
	got := 0
	for n := 0; no != filNull && got < want; n++ {
		p, err := r.blobPage(no, n)
		if err != nil {
			return nil, err
		}
		if n == 0 && be.Uint16(p[discovery.FilPageType:]) == pageTypeLOBFirst {
			return r.mysqlLOB(p, no, out, want) // MySQL 8.0's LOB format (mysqllob.go)
		}
		if off+8 > len(p) {
			return nil, fmt.Errorf("BLOB page %d: offset %d", no, off)
		}
		part := int(be.Uint32(p[off:]))
		next := be.Uint32(p[off+4:])
		if off+8+part > len(p)-8 {
			return nil, fmt.Errorf("BLOB page %d: part of %d bytes at %d", no, part, off)
		}
		if got+part > want {
			return nil, fmt.Errorf("BLOB page %d: the chain holds more than the reference's %d bytes", no, want)
		}
		out = append(out, p[off+8:off+8+part]...)
		got += part
		no, off = next, FilData
	}
	if got != want {
		return nil, fmt.Errorf("BLOB chain holds %d bytes, the reference says %d", got, want)
	}
	return out, nil
}

// blobPage reads page no, the n-th of a BLOB chain, and checks its checksum; a chain longer than
// the file loops.
func (r *reader) blobPage(no uint32, n int) ([]byte, error) {
	if n > int(r.f.Pages()) {
		return nil, fmt.Errorf("BLOB chain loops")
	}
	p, err := r.fetch(no)
	if err != nil {
		return nil, err
	}
	if why := r.checksum(p, no); why != "" {
		return nil, fmt.Errorf("BLOB page %d: %s", no, why)
	}
	return p, nil
}
