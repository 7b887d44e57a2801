package rows

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"innoscope/discovery"
	"innoscope/schema"
)

// UndropRow is a row of a dropped table: its values, and the page its record is on (the
// source file or image, the page's byte offset there, its space id and page number).
type UndropRow struct {
	Row    Row
	Source string
	Offset int64
	Space  uint32
	Page   uint32
}

// UndropStats counts what Carving.Rows read.
type UndropStats struct {
	Leaves int `json:"leaf_pages"` // leaf pages of the index read
	Rows   int `json:"rows"`       // rows printed
	// Duplicates: records of a key a newer page (higher FIL_PAGE_LSN) held too (an older copy of
	// a page the index freed or rewrote): not printed.
	Duplicates int `json:"older_copies"`
	// DeleteMarked: delete-marked records (deleted before the DROP): not rows of the table.
	DeleteMarked int `json:"delete_marked"`
	// LostPages and LostRows: leaf pages whose records did not decode exactly under the
	// definition (or an off-page value not found whole), and the records they held.
	LostPages int `json:"lost_pages"`
	LostRows  int `json:"lost_rows"`
	// Missing: leaf pages the leaf chain of the pages read links to that were not found.
	Missing int `json:"missing_pages"`
}

// pageSource reads the carved pages of one space as a tablespace file: page n at offset
// n * page size, a page the carving lacks as zeros, page 0 made up to carry the flags.
type pageSource struct {
	c     *Carving
	space uint32
	fl    discovery.Flags
	files map[string]*os.File
}

func (s *pageSource) ReadAt(b []byte, off int64) (int, error) {
	ps := int64(physical(s.fl))
	for i := range b {
		b[i] = 0
	}
	if off < ps {
		var p0 [discovery.FilPageData + 32]byte
		binary.BigEndian.PutUint32(p0[discovery.FilPageSpaceID:], s.space)
		binary.BigEndian.PutUint32(p0[discovery.FilPageData+16:], rawFlags(s.fl)) // FSP_SPACE_FLAGS
		copy(b, p0[min(off, int64(len(p0))):])
		return len(b), nil
	}
	for done := 0; done < len(b); {
		at := off + int64(done)
		no, in := uint32(at/ps), at%ps
		n := min(int64(len(b)-done), ps-in)
		if cp, ok := s.c.pages[[2]uint32{s.space, no}]; ok && physical(cp.Flags) == int(ps) {
			f := s.files[cp.Source]
			if f == nil {
				var err error
				if f, err = os.Open(cp.Source); err != nil {
					return done, err
				}
				s.files[cp.Source] = f
			}
			if _, err := f.ReadAt(b[done:done+int(n)], cp.Offset+in); err != nil && err != io.EOF {
				return done, fmt.Errorf("%s: offset %d: %w", cp.Source, cp.Offset+in, err)
			}
		}
		done += int(n)
	}
	return len(b), nil
}

// rawFlags are FSP_SPACE_FLAGS giving fl's page size and checksum.
func rawFlags(fl discovery.Flags) uint32 {
	ss := uint32(0)
	for 512<<ss < fl.PageSize {
		ss++
	}
	if fl.FullCRC32 {
		return 1<<4 | ss
	}
	if fl.PageSize == 16384 {
		ss = 0
	}
	zs := uint32(0)
	for fl.ZipSize != 0 && 512<<zs < fl.ZipSize {
		zs++
	}
	return ss<<6 | 1<<5 | zs<<1 | 1
}

// Rows reads the rows of the dropped index d, the clustered index of the table def (whose
// index id, space id and row format are taken from d), and calls fn for each: the leaf pages
// newest first (FIL_PAGE_LSN), each page's records in key order; of a key found on several
// pages the newest page's record only (when the table has a PRIMARY KEY). Off-page values are
// read from the carved BLOB pages of the same space, whose checksums must hold. A leaf page
// whose records do not all decode exactly, or do not take exactly the bytes its header gives
// its records (checkPageLayout), is lost whole (Result.Lost).
func (c *Carving) Rows(def *schema.Table, d DroppedIndex, fn func(UndropRow) error) (*Result, *UndropStats, error) {
	cp := *def
	cp.SpaceID, cp.Compact = d.Space, d.Compact
	cp.Clustered.ID = d.IndexID
	t, err := New(&cp)
	if err != nil {
		return nil, nil, err
	}
	if c.tz != nil {
		t.TimeZone = c.tz
	}
	var leaves []CarvedPage
	var fl discovery.Flags
	maxNo := uint32(0)
	for _, p := range c.pages {
		if p.Space != d.Space {
			continue
		}
		maxNo = max(maxNo, p.Page)
		if (p.Type == pageTypeIdx || p.Type == pageTypeInst) && p.IndexID == d.IndexID && p.Level == 0 {
			leaves = append(leaves, p)
			fl = p.Flags
		}
	}
	st := &UndropStats{}
	if len(leaves) == 0 {
		return &Result{Table: cp.Name}, st, fmt.Errorf("no leaf page of index %d found", d.IndexID)
	}
	sort.Slice(leaves, func(i, j int) bool {
		if leaves[i].LSN != leaves[j].LSN {
			return leaves[i].LSN > leaves[j].LSN
		}
		return leaves[i].Page < leaves[j].Page
	})
	src := &pageSource{c: c, space: d.Space, fl: fl, files: map[string]*os.File{}}
	defer func() {
		for _, f := range src.files {
			f.Close()
		}
	}()
	size := (int64(maxNo) + 1) * int64(physical(fl))
	t.src, err = discovery.NewFile(src, size, fmt.Sprintf("space %d (carved)", d.Space))
	if err != nil {
		return nil, st, err
	}
	t.File = t.src.Path
	r, err := t.reader()
	if err != nil {
		return nil, st, err
	}
	r.lay = &layout{flds: t.fields, nCore: len(t.fields), nUniq: t.nUniq, nullBytes: nullBytesOf(t.fields)}
	// The root (no neighbours, the highest level) gives the record layout of an instant ALTER,
	// and the leftmost leaf's metadata record the values of instantly added columns: it is
	// read first.
	if root, ok := carvedRoot(c, d); ok {
		t.Root = root
		if _, _, err := r.root(); err != nil {
			r.res.Notes = append(r.res.Notes, fmt.Sprintf("the root page %d is not read (%v): the record layout is the definition's", root, err))
			r.lay = &layout{flds: t.fields, nCore: len(t.fields), nUniq: t.nUniq, nullBytes: nullBytesOf(t.fields)}
		}
	}
	sort.SliceStable(leaves, func(i, j int) bool { return leaves[i].first && !leaves[j].first })
	seen := map[string]bool{}
	var key bytes.Buffer
	var links []uint32
	for _, lp := range leaves {
		p, err := r.readPage(lp.Page)
		if err != nil {
			return r.res, st, err
		}
		if why := r.check(p, lp.Page, true); why != "" {
			r.lose(p, lp.Page, why)
			continue
		}
		st.Leaves++
		links = append(links, binary.BigEndian.Uint32(p[discovery.FilPagePrev:]), binary.BigEndian.Uint32(p[discovery.FilPageNext:]))
		// The records must take exactly the bytes the page header gives them, as the
		// definition reads them: a definition that is not the table's is not read.
		if err := r.soundLeaf(p); err != nil {
			r.lose(p, lp.Page, "the records are not the definition's: "+err.Error())
			st.LostPages++
			continue
		}
		if err := r.checkPageLayout(p, r.lay.nCore < len(r.lay.flds)); err != nil {
			r.lose(p, lp.Page, "the records are not the definition's: "+err.Error())
			st.LostPages++
			continue
		}
		lost, marked := len(r.res.Lost), r.res.DeleteMarked
		err = r.page(p, lp.Page, func(row Row) error {
			if len(t.PK) > 0 {
				key.Reset()
				for _, k := range t.PK {
					binary.Write(&key, binary.BigEndian, uint32(len(row[k])))
					key.Write(row[k])
				}
				if seen[key.String()] {
					st.Duplicates++
					return nil
				}
				seen[key.String()] = true
			}
			st.Rows++
			return fn(UndropRow{Row: row, Source: lp.Source, Offset: lp.Offset, Space: lp.Space, Page: lp.Page})
		})
		if err != nil {
			return r.res, st, err
		}
		st.DeleteMarked += r.res.DeleteMarked - marked
		if len(r.res.Lost) > lost {
			st.LostPages++
		}
	}
	// A leaf the leaf chain links to that was not found: its rows are lost, and said so.
	found := map[uint32]bool{}
	for _, lp := range leaves {
		found[lp.Page] = true
	}
	missing := map[uint32]bool{}
	for _, no := range links {
		if no != filNull && !found[no] && !missing[no] {
			missing[no] = true
			r.res.Lost = append(r.res.Lost, Loss{Page: no, Reason: fmt.Sprintf("a leaf page of index %d the leaf chain links to was not found with a checksum that holds (its blocks reused, or never written): the rows it held are lost", d.IndexID)})
			st.Missing++
		}
	}
	st.LostRows = r.res.LostRows
	r.res.Rows = int64(st.Rows)
	return r.res, st, nil
}

// Fits counts the leaf pages of index d that decode whole under def, and those that do not.
func (c *Carving) Fits(def *schema.Table, d DroppedIndex) (good, bad int) {
	_, st, err := c.Rows(def, d, func(UndropRow) error { return nil })
	if err != nil || st == nil {
		return 0, d.Leaves
	}
	return st.Leaves - st.LostPages, st.LostPages + (d.Leaves - st.Leaves)
}

// DumpUndrop writes the rows of dropped index d under def in the given format: tsv and sql as
// rows writes them; json one object per row, {"table_id", "index_id", "space_id", "page",
// "source", "offset", "row"}, then one {"summary": UndropStats} object. tableID is the dropped
// table's id when known (0: not).
func (c *Carving) DumpUndrop(def *schema.Table, d DroppedIndex, tableID uint64, format string, out *bufio.Writer) (*Result, *UndropStats, error) {
	t, err := New(def)
	if err != nil {
		return nil, nil, err
	}
	var fn func(UndropRow) error
	switch format {
	case "", "tsv":
		w := TSV(out)
		fn = func(u UndropRow) error { return w(u.Row) }
	case "sql":
		w := SQL(out, t)
		fn = func(u UndropRow) error { return w(u.Row) }
	case "json":
		w := wrappedJSON(out, t)
		fn = func(u UndropRow) error {
			src, _ := json.Marshal(u.Source)
			return w(fmt.Sprintf(`"table_id":%d,"index_id":%d,"space_id":%d,"page":%d,"source":%s,"offset":%d`,
				tableID, d.IndexID, u.Space, u.Page, src, u.Offset), u.Row)
		}
	default:
		return nil, nil, fmt.Errorf("unknown --format %q (tsv, json, sql)", format)
	}
	res, st, err := c.Rows(def, d, fn)
	if err != nil {
		return res, st, err
	}
	if format == "json" {
		b, _ := json.Marshal(map[string]any{"summary": st})
		out.Write(b)
		out.WriteByte('\n')
	}
	res.Notes = append(res.Notes, st.summary(d, tableID))
	return res, st, out.Flush()
}

// summary is what undrop read, in a sentence.
func (st *UndropStats) summary(d DroppedIndex, tableID uint64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d rows of index %d", st.Rows, d.IndexID)
	if tableID != 0 {
		fmt.Fprintf(&b, " (table id %d)", tableID)
	}
	fmt.Fprintf(&b, " from %d carved leaf pages of space %d (%s)", st.Leaves, d.Space, strings.Join(d.Sources, ", "))
	if st.Duplicates > 0 {
		fmt.Fprintf(&b, "; %d records of keys a newer page holds left out (older copies)", st.Duplicates)
	}
	if st.DeleteMarked > 0 {
		fmt.Fprintf(&b, "; %d delete-marked records (deleted before the drop) left out", st.DeleteMarked)
	}
	if st.Missing > 0 {
		fmt.Fprintf(&b, "; %d leaf pages the others link to were not found (their rows are lost)", st.Missing)
	}
	if st.LostPages > 0 {
		fmt.Fprintf(&b, "; %d leaf pages (%d records) did not decode exactly under the definition and were not printed", st.LostPages, st.LostRows)
	}
	return b.String()
}

// soundLeaf checks the records of a carved leaf page as a record off the record list is checked
// (validImage): every field the index's with its length (validFields), a DB_ROLL_PTR the server
// writes for its DB_TRX_ID; and their number is PAGE_N_RECS.
func (r *reader) soundLeaf(p []byte) error {
	ip, err := discovery.ParseIndexPage(p)
	if err != nil {
		return err
	}
	d := &deletedScan{r: r}
	n := 0
	if ip.IsMetadataRecord() {
		n++
	}
	err = d.list(p, func(rec record, at int) error {
		n++
		if !r.validFields(rec.vals) || len(rec.vals) < r.lay.nUniq+2 ||
			!rollPtrValid(rec.vals[r.lay.nUniq+1].b, beUint(rec.vals[r.lay.nUniq].b), r.f.FSP.Flags.PageSize) {
			return fmt.Errorf("record at %d: its fields are not the index's", at)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if n != int(ip.NRecs) {
		return fmt.Errorf("%d records in the list, PAGE_N_RECS says %d", n, ip.NRecs)
	}
	return nil
}

// carvedRoot is the root page of index d among the carved pages: the page of the highest level
// with no neighbours.
func carvedRoot(c *Carving, d DroppedIndex) (uint32, bool) {
	var best CarvedPage
	found := false
	for _, p := range c.pages {
		if p.Space != d.Space || p.IndexID != d.IndexID || p.Type != pageTypeIdx && p.Type != pageTypeInst || !p.lone {
			continue
		}
		if !found || p.Level > best.Level || p.Level == best.Level && p.LSN > best.LSN {
			best, found = p, true
		}
	}
	return best.Page, found
}
