package rows

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"

	"innoscope/discovery"
)

// Deleted rows still on disk (issue 32): the records of the clustered index's leaf pages that
// are no longer rows of the table but whose bytes are still there. Three sources:
//
//   - delete_marked: a record in the page's record list with the delete mark, which purge has
//     not removed yet (a read view older than the DELETE, or purge lagging);
//   - free_list: a record purge (or an update that moved the record) took out of the list: it
//     is put on the page's free list (PAGE_FREE, then each record's next-record field), its
//     bytes untouched until the space is reused (innodb_immediate_scrub_data_uncompressed off);
//   - carved: a record image found in the page's unused bytes (between PAGE_HEAP_TOP and the
//     page directory, and the garbage no record of the list or the free list covers), accepted
//     only when it decodes as a record of the table whole (carve.go).
//
// Every image is checked against the table definition (the fields of the index, their lengths,
// NULLs only where the column is nullable) and formatted (off-page values followed through their
// BLOB pages, whose checksums must hold); a key that is live in the table is not deleted. Of
// several images of one key the newest (highest DB_TRX_ID) is kept.

// Sources of a deleted row.
const (
	SourceDeleteMarked = "delete_marked"
	SourceFreeList     = "free_list"
	SourceCarved       = "carved"
)

var sourceRank = map[string]int{SourceDeleteMarked: 0, SourceFreeList: 1, SourceCarved: 2}

// DeletedRow is a deleted row found on disk: its values (as Row), where its image is, and
// DB_TRX_ID of the image (for a delete-marked or purged record, the transaction that deleted it).
type DeletedRow struct {
	Row    Row
	Source string
	Page   uint32
	Offset int
	TrxID  uint64
}

// DeletedStats counts what Table.Deleted found.
type DeletedStats struct {
	DeleteMarked int `json:"delete_marked"` // rows printed from delete-marked records
	FreeList     int `json:"free_list"`     // rows printed from free-list records
	Carved       int `json:"carved"`        // rows printed from carved images
	// LiveKeys: images (of any source) whose key is a live row's: older versions, not deleted rows.
	LiveKeys int `json:"live_keys"`
	// Older: images of a printed key older than the one printed.
	Older int `json:"older_images"`
	// Undecodable: delete-marked or free-list records that do not decode as records of the
	// table (overwritten or scrubbed bytes, an unreadable off-page value): not printed.
	Undecodable int `json:"undecodable"`
	// Zeroed: free-list records (purged, or moved by an update) whose data the server zeroed
	// when it freed them (MariaDB 10.5 and later clear a record's payload in page_mem_free):
	// only their header is left.
	Zeroed int `json:"zeroed"`
	// Unsure: images off the record list whose key lies where a lost leaf held keys: they may
	// be live rows', so they are not printed.
	Unsure int `json:"near_lost_pages"`
	// NotCarved: leaf pages whose unused space was not carved (ROW_FORMAT=COMPRESSED).
	NotCarved int `json:"pages_not_carved,omitempty"`
}

// candidate is one image of a deleted row.
type candidate struct {
	key  [][]byte
	row  Row
	src  string
	page uint32
	off  int
	trx  uint64
}

// deletedScan collects the images while the leaf pages are read.
type deletedScan struct {
	r      *reader
	maxTrx uint64 // MaxTrxID (0: unknown)
	best   map[string]*candidate
	stats  DeletedStats
}

// Deleted reads every leaf page of the clustered index that the B-tree leads to and calls fn
// for each deleted row found, in key order: delete-marked records in the order of the record
// lists, the images off the lists placed among them by their key's stored bytes, compared field
// by field (the PRIMARY KEY's order for integer, date and binary keys). A leaf that cannot be
// read is in Result.Lost, as with Walk. maxTrx (MaxTrxID, 0 when unknown) bounds the DB_TRX_ID
// of an image off the record list.
//
// The leaves are read three times (the second and third from the page cache), so that memory
// holds the images off the record lists and one page, never the table: first those images are
// gathered, then the record lists drop each whose key is there (a live row, or a delete-marked
// record: newer than any image off the list), then the delete-marked records are printed in
// list order with the images left merged in.
func (t *Table) Deleted(maxTrx uint64, fn func(DeletedRow) error) (*Result, *DeletedStats, error) {
	r, err := t.reader()
	if err != nil {
		return nil, nil, err
	}
	defer r.f.Close()
	leaves, err := r.treeLeaves()
	if err != nil {
		return nil, nil, fmt.Errorf("%w (--deleted reads the leaf pages the B-tree leads to, and cannot tell a deleted row from a live one without them; `innoscope rows --scan` prints the live rows of the leaf pages in file order)", err)
	}
	d := &deletedScan{r: r, maxTrx: maxTrx, best: map[string]*candidate{}}
	// A lost leaf's keys are unknown: an image whose key lies between the leaves read around
	// it may be a live row's, and is withheld.
	var gaps []keyRange
	var prevLast [][]byte
	var good []uint32
	pending := false
	for _, no := range leaves {
		p, ok := d.leaf(no, true)
		if !ok {
			pending = true
			continue
		}
		first, last, ok := d.page(p, no)
		if !ok {
			pending = true
			continue
		}
		good = append(good, no)
		if first == nil {
			continue
		}
		if pending {
			gaps = append(gaps, keyRange{lo: prevLast, hi: first})
			pending = false
		}
		prevLast = last
	}
	if pending {
		gaps = append(gaps, keyRange{lo: prevLast})
	}
	if len(d.best) > 0 {
		for _, no := range good {
			if p, ok := d.leaf(no, false); ok {
				d.list(p, func(rec record, at int) error {
					k := keyString(rec.vals[:r.lay.nUniq])
					if _, ok := d.best[k]; ok {
						delete(d.best, k)
						if rec.info&infoDeleted != 0 {
							d.stats.Older++
						} else {
							d.stats.LiveKeys++
						}
					}
					return nil
				})
			}
		}
	}
	rest := make([]*candidate, 0, len(d.best))
	for _, c := range d.best {
		if inGaps(gaps, c.key) {
			d.stats.Unsure++
			continue
		}
		rest = append(rest, c)
	}
	sort.Slice(rest, func(i, j int) bool { return compareKeys(rest[i].key, rest[j].key) < 0 })
	emit := func(c *candidate) error {
		switch c.src {
		case SourceDeleteMarked:
			d.stats.DeleteMarked++
		case SourceFreeList:
			d.stats.FreeList++
		default:
			d.stats.Carved++
		}
		r.res.Rows++
		return fn(DeletedRow{Row: c.row, Source: c.src, Page: c.page, Offset: c.off, TrxID: c.trx})
	}
	i := 0
	var key [][]byte
	for _, no := range good {
		p, ok := d.leaf(no, false)
		if !ok {
			continue
		}
		err := d.list(p, func(rec record, at int) error {
			key = key[:0]
			for _, v := range rec.vals[:r.lay.nUniq] {
				key = append(key, v.b)
			}
			for ; i < len(rest) && compareKeys(rest[i].key, key) < 0; i++ {
				if err := emit(rest[i]); err != nil {
					return err
				}
			}
			if rec.info&infoDeleted == 0 {
				return nil
			}
			row, err := r.row(rec.vals)
			if err != nil || len(rec.vals[r.lay.nUniq].b) != sysTrxIDLen {
				d.stats.Undecodable++
				return nil
			}
			return emit(&candidate{row: row, src: SourceDeleteMarked, page: no, off: at, trx: beUint(rec.vals[r.lay.nUniq].b)})
		})
		if err != nil {
			return r.res, &d.stats, err
		}
	}
	for ; i < len(rest); i++ {
		if err := emit(rest[i]); err != nil {
			return r.res, &d.stats, err
		}
	}
	return r.res, &d.stats, nil
}

// leaf reads leaf page no and checks it; a page that fails is recorded as lost when lose.
func (d *deletedScan) leaf(no uint32, lose bool) ([]byte, bool) {
	r := d.r
	p, err := r.readPage(no)
	if err != nil {
		if lose {
			r.res.Lost = append(r.res.Lost, Loss{Page: no, Reason: fmt.Sprintf("a leaf the B-tree points to cannot be read: %v", err)})
		}
		return nil, false
	}
	if why := r.check(p, no, true); why != "" {
		if lose {
			r.lose(p, no, why)
		}
		return nil, false
	}
	return p, true
}

// errBrokenList is a record list that cannot be followed.
type errBrokenList struct{ why string }

func (e errBrokenList) Error() string { return e.why }

// list calls fn for each user record of the record list of leaf page p but the instant
// metadata record (which sets the defaults of instantly added columns). A list that cannot be
// followed gives an errBrokenList; fn's error stops the walk.
func (d *deletedScan) list(p []byte, fn func(rec record, at int) error) error {
	r := d.r
	ip, _ := discovery.ParseIndexPage(p)
	origin := firstRecord(p, ip.Compact)
	for i := 0; ; i++ {
		if i > len(p)/5 || origin == 0 {
			return errBrokenList{"the record list is broken"}
		}
		rec, err := r.record(p, origin, ip.Compact)
		if err != nil {
			return errBrokenList{err.Error()}
		}
		if rec.status == statusSupremum {
			return nil
		}
		at := origin
		origin = rec.next
		switch {
		case rec.status == statusInfimum:
		case rec.info&infoMinRec != 0:
			r.meta = append([]value(nil), rec.vals...)
		case len(rec.vals) < r.lay.nUniq+2:
			return errBrokenList{fmt.Sprintf("record at %d: %d fields", at, len(rec.vals))}
		default:
			if err := fn(rec, at); err != nil {
				return err
			}
		}
	}
}

// page reads one leaf page for the images off its record list: the list (the bytes its
// records cover, its first and last keys), the free list, then the unused space. It returns the
// keys of the first and last records of the list (nil when it has none), and false when the
// record list is broken (the page is then lost).
func (d *deletedScan) page(p []byte, no uint32) (first, last [][]byte, ok bool) {
	r := d.r
	ip, _ := discovery.ParseIndexPage(p)
	r.res.Pages++
	used := make([]bool, len(p))
	err := d.list(p, func(rec record, at int) error {
		markUsed(used, r.extent(p, at, ip.Compact, rec))
		last = keyOf(rec.vals[:r.lay.nUniq])
		if first == nil {
			first = last
		}
		return nil
	})
	if err != nil {
		r.lose(p, no, err.Error())
		return nil, nil, false
	}
	// The metadata record's bytes are used too.
	if ip.IsMetadataRecord() {
		at := firstRecord(p, ip.Compact)
		if rec, err := r.record(p, at, ip.Compact); err == nil {
			markUsed(used, r.extent(p, at, ip.Compact, rec))
		}
	}
	if r.f.FSP.Flags.ZipSize != 0 {
		// The page as decompressed holds no free list or garbage of the compressed page.
		d.stats.NotCarved++
		return first, last, true
	}
	free := int(binary.BigEndian.Uint16(p[pageHeader+6:]))
	for i := 0; free != 0 && i <= len(p)/5; i++ {
		rec, err := r.plain(p, free, ip.Compact)
		if err != nil || rec.status > statusNodePtr && rec.status != statusInstant {
			d.stats.Undecodable++ // the rest of the chain cannot be trusted either
			break
		}
		ext := r.extent(p, free, ip.Compact, rec)
		if ext[0] < FilData || used[ext[0]] || used[ext[1]-1] {
			d.stats.Undecodable++ // overlaps a record of the list: a chain gone astray
			break
		}
		markUsed(used, ext)
		switch {
		case len(rec.vals) > r.lay.nUniq+1 && isZero(rec.vals[r.lay.nUniq].b) && isZero(rec.vals[r.lay.nUniq+1].b):
			d.stats.Zeroed++
		case rec.info&infoMinRec != 0 || !d.validImage(rec.vals) || !d.add(rec, SourceFreeList, no, free):
			d.stats.Undecodable++
		}
		free = freeNext(p, free, ip.Compact)
	}
	d.carve(p, no, ip, used)
	return first, last, true
}

// keyRange is the keys strictly between lo and hi (nil: unbounded).
type keyRange struct{ lo, hi [][]byte }

// inGaps: key lies in one of the ranges.
func inGaps(gaps []keyRange, key [][]byte) bool {
	for _, g := range gaps {
		if (g.lo == nil || compareKeys(g.lo, key) < 0) && (g.hi == nil || compareKeys(key, g.hi) < 0) {
			return true
		}
	}
	return false
}

// keyOf copies the key fields' bytes.
func keyOf(vals []value) [][]byte {
	key := make([][]byte, len(vals))
	for i := range key {
		key[i] = append([]byte(nil), vals[i].b...)
	}
	return key
}

// plain decodes the record at origin in the index's current layout (no metadata record
// handling: for records off the record list).
func (r *reader) plain(p []byte, origin int, compact bool) (record, error) {
	if compact {
		return decodeCompact(p, origin, r.lay, false, nil)
	}
	return decodeRedundant(p, origin, nil)
}

// freeNext is the next record of the free list after origin (0: none).
func freeNext(p []byte, origin int, compact bool) int {
	if compact {
		return compactNext(p, origin)
	}
	return int(binary.BigEndian.Uint16(p[origin-2:]))
}

// add keeps rec as an image of its key when it formats whole and is newer than the image kept.
func (d *deletedScan) add(rec record, src string, no uint32, at int) bool {
	r := d.r
	if len(rec.vals) < r.lay.nUniq+2 || len(rec.vals[r.lay.nUniq].b) != sysTrxIDLen {
		return false
	}
	trx := beUint(rec.vals[r.lay.nUniq].b)
	k := keyString(rec.vals[:r.lay.nUniq])
	old := d.best[k]
	if old != nil && (old.trx > trx || old.trx == trx && sourceRank[old.src] <= sourceRank[src]) {
		d.stats.Older++ // formatted only when it would be kept
		return true
	}
	row, err := r.row(rec.vals)
	if err != nil {
		return false
	}
	if old != nil {
		d.stats.Older++
	}
	d.best[k] = &candidate{key: keyOf(rec.vals[:r.lay.nUniq]), row: row, src: src, page: no, off: at, trx: trx}
	return true
}

// extent is the [start, end) of the bytes of the record at origin: its header (the extra
// bytes) and its data.
func (r *reader) extent(p []byte, origin int, compact bool, rec record) [2]int {
	data := 0
	for _, v := range rec.vals {
		data += len(v.b)
	}
	if !compact {
		n := int(binary.BigEndian.Uint16(p[origin-4:])&0x7fe) >> 1
		w := 2
		if p[origin-3]&1 != 0 {
			w = 1
		}
		return [2]int{origin - redundantExtra - n*w, origin + data}
	}
	n := len(rec.vals)
	if rec.status == statusNodePtr {
		n-- // the child page number
	}
	extra := compactExtra
	nullable := 0
	for i, f := range r.lay.flds[:min(n, len(r.lay.flds))] {
		if f.nullable {
			nullable++
		}
		v := rec.vals[i]
		if f.fixed == 0 && !v.null {
			extra++
			if f.big && (len(v.b) > 127 || v.ext) {
				extra++
			}
		}
	}
	if rec.status == statusInstant {
		extra++
		if n-r.lay.nCore-1 >= 0x80 {
			extra++
		}
		extra += (nullable + 7) / 8
	} else {
		extra += r.lay.nullBytes
	}
	return [2]int{origin - extra, origin + data}
}

// markUsed marks the bytes of extent e as belonging to a record.
func markUsed(used []bool, e [2]int) {
	for i := max(e[0], 0); i < e[1] && i < len(used); i++ {
		used[i] = true
	}
}

// validImage: the fields of a record off the record list are the index's (validFields), and
// its DB_TRX_ID and DB_ROLL_PTR are ones the server writes (the id not past maxTrx).
func (d *deletedScan) validImage(vals []value) bool {
	r := d.r
	if !r.validFields(vals) || len(vals) < r.lay.nUniq+2 {
		return false
	}
	trx := beUint(vals[r.lay.nUniq].b)
	return rollPtrValid(vals[r.lay.nUniq+1].b, trx, r.f.FSP.Flags.PageSize) && (d.maxTrx == 0 || trx <= d.maxTrx)
}

// validFields: the record's fields are the index's, with their lengths: a fixed-length field
// of its length, a variable one within its column's maximum (unless stored off page, by a
// column that may be), NULL only in a nullable column, a key field never NULL.
func (r *reader) validFields(vals []value) bool {
	flds := r.lay.flds
	if len(vals) < r.lay.nCore || len(vals) > len(flds) {
		return false
	}
	for i, v := range vals {
		f := flds[i]
		switch {
		case v.null:
			if !f.nullable || i < r.lay.nUniq+2 {
				return false
			}
		case v.ext:
			if !f.big || len(v.b) < fieldRefSize {
				return false
			}
		case f.fixed != 0:
			if len(v.b) != f.fixed {
				return false
			}
		case f.col >= 0 && !f.big:
			if len(v.b) > int(r.t.Cols[f.col].InnoDB.Len) {
				return false
			}
		}
	}
	return true
}

// keyString is the key fields' bytes as a map key.
func keyString(vals []value) string {
	var b []byte
	for _, v := range vals {
		b = binary.BigEndian.AppendUint32(b, uint32(len(v.b)))
		b = append(b, v.b...)
	}
	return string(b)
}

// compareKeys compares two keys field by field, by their stored bytes.
func compareKeys(a, b [][]byte) int {
	for i := range a {
		if c := bytes.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}
