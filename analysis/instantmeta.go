package analysis

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/rows"
)

// MariaDB keeps instant ALTER TABLE (ADD, DROP, reorder of columns) in the clustered index:
// the root page has the type FIL_PAGE_TYPE_INSTANT, and the first record of the leftmost leaf
// is a metadata record (REC_INFO_MIN_REC_FLAG; COMPACT records also have the status
// REC_STATUS_INSTANT). After a DROP or reorder it is delete-marked too and carries, right
// after DB_ROLL_PTR, a 20-byte reference to one BLOB page holding the column map. When the
// server first loads a table whose root is an INSTANT page it reads that record
// (btr_cur_instant_init_low in btr0cur.cc) and refuses any other info bits or status, a
// reference that is not a single BLOB page of this tablespace at offset FIL_PAGE_DATA with a
// non-zero length, and a BLOB page that is not of type BLOB, has a next page, another length
// or non-zero bytes after the map: it logs "contains unrecognizable instant ALTER metadata"
// and marks the table corrupted.
//
// Instant DROP COLUMN of a table that had no metadata record inserts the record with an empty
// (all-zero) BLOB reference in one mini-transaction and writes the BLOB and the reference in
// the next (row_ins_clust_index_entry_low, then row_ins_index_entry_big_rec): a crash between
// the two, after the log holds the first, leaves exactly such a record, written by the ALTER's
// transaction, which the crash left uncommitted. The server loads the table before it rolls
// that transaction back (it resurrects the transaction's table locks at startup), marks it
// corrupted, and the rollback skips a corrupted table's undo records: the record stays and the
// table cannot be opened (crash-sweep seed 1810).
const (
	filPageTypeInstant = 18 // FIL_PAGE_TYPE_INSTANT
	filPageTypeBlob    = 10 // FIL_PAGE_TYPE_BLOB
	recStatusInstant   = 4  // REC_STATUS_INSTANT
	metaMinRec         = 0x10
	metaDeleted        = 0x20
	maxTreeDepth       = 32
	undoInsertMetadata = 10 // TRX_UNDO_INSERT_METADATA: the undo record of a metadata record's insert
)

// instantMetadataProblem is a clustered index whose instant ALTER metadata the server rejects.
type instantMetadataProblem struct {
	table   discovery.DictTable
	index   discovery.DictIndex
	page    uint32 // the leaf holding the metadata record
	lsn     uint64 // that page's FIL_PAGE_LSN as recovery leaves it
	trxID   uint64 // the record's DB_TRX_ID (0: not read)
	active  bool   // a transaction the server rolls back
	why     string
	file    string
	spaceID uint32
}

// instantMetadataFindings: INSTANT_METADATA_UNRECOGNIZED (error) for each table into which an
// uncommitted transaction inserted an instant ALTER metadata record (its undo log has a
// TRX_UNDO_INSERT_METADATA record for it) and whose clustered index, as crash recovery leaves
// it, has metadata the server rejects (see above). The pages of those tables' tablespaces are
// read through in.Undo.Pages over the log of s (a second scan of the log, only then).
func instantMetadataFindings(in Input, s discovery.Layout, opt Options) []finding.Finding {
	if in.Undo == nil || in.Undo.Pages == nil || in.Analysis == nil {
		return nil
	}
	active := map[uint64]bool{}
	touched := map[uint64]bool{}
	for _, t := range in.Undo.Trxs {
		if t.State != discovery.UndoActive {
			continue
		}
		active[t.ID] = true
		for _, r := range t.Records {
			if r.Type == undoInsertMetadata {
				touched[r.TableID] = true
			}
		}
	}
	type cand struct {
		t  discovery.DictTable
		ix discovery.DictIndex
	}
	var cands []cand
	spaces := map[uint32]bool{}
	for id := range touched {
		t := tableByID(in.Undo.Tables, id)
		if t.ID == 0 || t.Deleted || t.SpaceID == 0 || strings.HasPrefix(t.Name, "SYS_") {
			continue
		}
		if sp := in.Analysis.Map.Spaces[t.SpaceID]; sp != nil && sp.Deleted {
			continue
		}
		for _, ix := range in.Undo.Indexes {
			if ix.TableID == id && !ix.Deleted && ix.Type&1 != 0 && ix.SpaceID == t.SpaceID {
				cands = append(cands, cand{t, ix})
				spaces[t.SpaceID] = true
				break
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].t.Name < cands[j].t.Name })
	l, err := OpenLog(s, "")
	if err != nil {
		return nil
	}
	defer l.Close()
	sc, _, err := l.Scanner(opt.Scan)
	if err != nil {
		return nil
	}
	read, closeFiles, err := in.Undo.Pages(sc, spaces)
	if err != nil {
		return []finding.Finding{{Severity: finding.Info, Code: "UNDO_UNREADABLE", File: s.Datadir,
			Message: "the clustered indexes into which uncommitted transactions inserted instant ALTER metadata could not be read as recovery leaves them, so that metadata is not checked: " + err.Error()}}
	}
	defer closeFiles()
	var out []finding.Finding
	for _, c := range cands {
		file, fl, ok := recoveredSpace(in, read, c.t)
		if !ok || fl.ZipSize != 0 {
			continue // ROW_FORMAT=COMPRESSED tables have no instant ALTER
		}
		m := metaReader{read: read, space: c.t.SpaceID, fl: fl,
			pk: pkSizes(c.t, c.ix, in.Undo.Columns, in.Undo.Fields), nUniq: int(c.ix.NFields)}
		pr, ok := m.check(c.ix.PageNo)
		if !ok {
			continue
		}
		pr.table, pr.index, pr.file, pr.spaceID = c.t, c.ix, file, c.t.SpaceID
		pr.active = active[pr.trxID]
		out = append(out, pr.finding())
	}
	return out
}

// recoveredSpace is the file of table t's tablespace (the log's name for it, else the file
// found with its id, else the dictionary's name) and its flags, from page 0 as recovery leaves
// it (a file the log creates may still have a blank page 0).
func recoveredSpace(in Input, read discovery.PageReader, t discovery.DictTable) (string, discovery.Flags, bool) {
	p, err := read(t.SpaceID, 0)
	if err != nil || len(p) < 64 {
		return "", discovery.Flags{}, false
	}
	fl, err := discovery.DecodeFlags(binary.BigEndian.Uint32(p[discovery.FilPageData+16:]))
	if err != nil {
		return "", discovery.Flags{}, false
	}
	file := tableFile(in.Datadir, t)
	if s := in.Analysis.Map.Spaces[t.SpaceID]; s != nil && s.Name != "" {
		file = shownPath(in.Datadir, s.Name)
	} else {
		for _, ts := range in.Spaces {
			if ts.SpaceID == t.SpaceID && ts.Error == "" && ts.FoundBy != discovery.FoundTemporary {
				file = ts.Path
				break
			}
		}
	}
	return file, fl, true
}

// pkSizes are the COMPACT record lengths of the clustered index key fields of t (0: stored with
// a length of 1 or 2 bytes, -1: with a 1-byte length), from SYS_FIELDS and SYS_COLUMNS; nil
// when they are unknown.
func pkSizes(t discovery.DictTable, ix discovery.DictIndex, cols []discovery.DictColumn, fields []discovery.DictField) []int {
	if ix.NFields == 0 || ix.Name == "GEN_CLUST_INDEX" {
		return []int{6} // DB_ROW_ID
	}
	var fs []discovery.DictField
	for _, f := range fields {
		if f.IndexID == ix.ID && !f.Deleted {
			fs = append(fs, f)
		}
	}
	if len(fs) != int(ix.NFields) {
		return nil
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].Pos < fs[j].Pos })
	var out []int
	for i, f := range fs {
		// SYS_FIELDS.POS: the position alone, or (when a field of the index is a prefix or DESC)
		// the position << 16 | DESC 0x8000 | prefix length, which the first field, at position
		// 0, shows as its low 16 bits alone (see schema.keyField).
		if (i == 0 || f.Pos>>16 != 0) && f.Pos&0x7fff != 0 {
			return nil // a column prefix
		}
		n, found := 0, false
		for _, c := range cols {
			if c.TableID == t.ID && !c.Deleted && c.Name == f.ColName && !c.Virtual() {
				found = true
				if n = rows.FixedSize(c); n == 0 && c.Len <= 255 && c.MType != 5 && c.MType != 14 {
					n = -1 // variable, at most 255 bytes: a 1-byte length (not DATA_BLOB, DATA_GEOMETRY)
				}
				break
			}
		}
		if !found {
			return nil
		}
		out = append(out, n)
	}
	return out
}

// metaReader reads one clustered index's instant ALTER metadata from recovered pages.
type metaReader struct {
	read  discovery.PageReader
	space uint32
	fl    discovery.Flags
	pk    []int // COMPACT key field lengths (pkSizes)
	nUniq int
}

// page reads page no as a logical page.
func (m metaReader) page(no uint32) ([]byte, error) {
	p, err := m.read(m.space, no)
	if err != nil {
		return nil, err
	}
	if discovery.IsPageCompressed(p, m.fl) {
		return discovery.Decompress(p, m.fl, m.fl.PageSize)
	}
	return p, nil
}

// check walks from the root down the leftmost pointers to the first leaf and checks its
// metadata record as btr_cur_instant_init_low does, as far as the pages alone decide (ok: a
// problem was found). root is the clustered index root page number.
func (m metaReader) check(root uint32) (instantMetadataProblem, bool) {
	be := binary.BigEndian
	var pr instantMetadataProblem
	p, err := m.page(root)
	if err != nil || len(p) < 200 || be.Uint16(p[discovery.FilPageType:]) != filPageTypeInstant {
		return pr, false
	}
	no := root
	for depth := 0; be.Uint16(p[discovery.FilPageData+26:]) != 0; depth++ { // PAGE_LEVEL
		child, ok := m.firstChild(p)
		if !ok || depth > maxTreeDepth {
			return pr, false
		}
		if p, err = m.page(child); err != nil || len(p) < 200 {
			return pr, false
		}
		no = child
	}
	pr.page, pr.lsn = no, be.Uint64(p[discovery.FilPageLSN:])
	comp := be.Uint16(p[discovery.FilPageData+4:])&0x8000 != 0
	rec, info, ok := firstRec(p, comp)
	if !ok || info&metaMinRec == 0 {
		return pr, false // no metadata record: the server decides by the dictionary
	}
	if info&^metaDeleted != metaMinRec {
		pr.why = fmt.Sprintf("its info bits are 0x%02x", info)
		return pr, true
	}
	if comp && be.Uint16(p[rec-4:])&7 != recStatusInstant {
		pr.why = fmt.Sprintf("its record status is %d, not REC_STATUS_INSTANT", be.Uint16(p[rec-4:])&7)
		return pr, true
	}
	trxOff, ok := m.trxIDOffset(p, rec, comp)
	if !ok || rec+trxOff+13+20 > len(p) {
		return pr, false
	}
	pr.trxID = be.Uint64(p[rec+trxOff-2:]) & (1<<48 - 1)
	if info&metaDeleted == 0 {
		return pr, false // plain instant ADD COLUMN: no BLOB; the rest needs the dictionary
	}
	ref := p[rec+trxOff+13 : rec+trxOff+13+20]
	n := be.Uint32(ref[16:])
	switch {
	case allZero(ref):
		pr.why = "its reference to the metadata BLOB (the dropped or reordered columns) is empty, all zero bytes: the crash came after the mini-transaction that inserted the record and before the one that writes the BLOB"
		return pr, true
	case be.Uint32(ref[12:]) != 0 || n == 0 || be.Uint32(ref[8:]) != discovery.FilPageData || be.Uint32(ref[0:]) != m.space:
		pr.why = fmt.Sprintf("its reference to the metadata BLOB is not one of this tablespace's (space %d, page %d, offset %d, length %d)",
			be.Uint32(ref[0:]), be.Uint32(ref[4:]), be.Uint32(ref[8:]), be.Uint64(ref[12:]))
		return pr, true
	}
	blobNo := be.Uint32(ref[4:])
	b, err := m.page(blobNo)
	if err != nil {
		return pr, false
	}
	d := discovery.FilPageData
	if be.Uint16(b[discovery.FilPageType:]) != filPageTypeBlob || be.Uint32(b[d+4:]) != 0xffffffff || be.Uint32(b[d:]) != n ||
		d+8+int(n) > len(b)-8 || !allZero(b[d+8+int(n):len(b)-8]) {
		pr.why = fmt.Sprintf("the metadata BLOB page %d it references is not a single BLOB page of %d bytes (type %d, part length %d, next page %d)",
			blobNo, n, be.Uint16(b[discovery.FilPageType:]), be.Uint32(b[d:]), be.Uint32(b[d+4:]))
		return pr, true
	}
	return pr, false
}

// firstRec is the origin and info bits of the first user record of index page p (ok false:
// the page has none, or its pointer is out of range).
func firstRec(p []byte, comp bool) (int, byte, bool) {
	be := binary.BigEndian
	if comp {
		rec := (99 + int(int16(be.Uint16(p[97:])))) & (len(p) - 1)
		if rec == 112 || rec < 120 || rec >= len(p)-8 {
			return 0, 0, false
		}
		return rec, p[rec-5] & 0xf0, true
	}
	rec := int(be.Uint16(p[99:]))
	if rec == 116 || rec < 126 || rec >= len(p)-8 {
		return 0, 0, false
	}
	return rec, p[rec-6] & 0xf0, true
}

// redundantEnd is the end offset of field i of the REDUNDANT record at rec.
func redundantEnd(p []byte, rec, i int) (int, bool) {
	if p[rec-3]&1 != 0 { // 1-byte offsets
		at := rec - 6 - 1 - i
		if at < 0 {
			return 0, false
		}
		return int(p[at] & 0x7f), true
	}
	at := rec - 6 - 2*(i+1)
	if at < 0 {
		return 0, false
	}
	return int(binary.BigEndian.Uint16(p[at:]) & 0x3fff), true
}

// trxIDOffset is where DB_TRX_ID starts in the metadata record at rec: after the key, whose
// variable-length fields the metadata record stores empty.
func (m metaReader) trxIDOffset(p []byte, rec int, comp bool) (int, bool) {
	if !comp {
		if m.nUniq == 0 {
			return 6, true
		}
		return redundantEnd(p, rec, m.nUniq-1)
	}
	if m.pk == nil {
		return 0, false
	}
	n := 0
	for _, f := range m.pk {
		n += max(f, 0)
	}
	return n, true
}

// firstChild is the child page number of the first node pointer of the non-leaf page p.
func (m metaReader) firstChild(p []byte) (uint32, bool) {
	be := binary.BigEndian
	comp := be.Uint16(p[discovery.FilPageData+4:])&0x8000 != 0
	rec, _, ok := firstRec(p, comp)
	if !ok {
		return 0, false
	}
	if !comp {
		nf := int(be.Uint16(p[rec-5:])>>1) & 0x3ff
		end, ok := redundantEnd(p, rec, nf-1)
		if !ok || end < 4 || rec+end > len(p) {
			return 0, false
		}
		return be.Uint32(p[rec+end-4:]), true
	}
	if m.pk == nil {
		return 0, false
	}
	// Key fields are NOT NULL (no NULL bitmap); the lengths of variable-length ones precede
	// the 5-byte header, the first field's nearest.
	at, n := rec-5-1, 0
	for _, f := range m.pk {
		if f > 0 {
			n += f
			continue
		}
		if at < 0 {
			return 0, false
		}
		l := int(p[at])
		at--
		if f == 0 && l&0x80 != 0 { // two bytes: a long column
			l = (l&0x3f)<<8 | int(p[at])
			at--
		}
		n += l
	}
	if rec+n+4 > len(p) {
		return 0, false
	}
	return be.Uint32(p[rec+n:]), true
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// finding is INSTANT_METADATA_UNRECOGNIZED for pr.
func (pr instantMetadataProblem) finding() finding.Finding {
	who := fmt.Sprintf("transaction %d", pr.trxID)
	if pr.active {
		who += ", which the crash left uncommitted"
	}
	return finding.Finding{Severity: finding.Error, Code: "INSTANT_METADATA_UNRECOGNIZED", SpaceID: u32(pr.spaceID), File: pr.file, LSN: u64(pr.lsn),
		Message: fmt.Sprintf("crash recovery leaves the clustered index of %s (page %d, the first leaf, page LSN %d) with an instant ALTER metadata record that the server rejects (written by %s): %s. The server reads it when it first loads the table, which it does before it rolls the transaction back (\"[ERROR] InnoDB: Table %s contains unrecognizable instant ALTER metadata\"), and marks the table corrupted; the rollback then skips the table's undo records, so the record stays and the table cannot be opened (CHECK TABLE fails) until it is rebuilt from its rows",
			discovery.SQLTableName(pr.table.Name), pr.page, pr.lsn, who, pr.why, serverTableName(pr.table.Name))}
}

// serverTableName spells a dictionary table name (db/t, db/t#P#p0, db/t#P#p0#SP#s0) as the
// server's InnoDB messages do, each name decoded (discovery.SQLName): `db`.`t` /* Partition `p0` */.
func serverTableName(name string) string {
	db, t, _ := strings.Cut(name, "/")
	db, t = discovery.SQLName(db), discovery.SQLName(t) // after the cut: a name may hold a '/'
	tab, part, isPart := strings.Cut(t, "#P#")
	if !isPart {
		tab, part, isPart = strings.Cut(t, "#p#")
	}
	out := fmt.Sprintf("`%s`.`%s`", db, tab)
	if !isPart {
		return out
	}
	p, sub, isSub := strings.Cut(part, "#SP#")
	if !isSub {
		p, sub, isSub = strings.Cut(part, "#sp#")
	}
	if isSub {
		return out + fmt.Sprintf(" /* Partition `%s`, Subpartition `%s` */", p, sub)
	}
	return out + fmt.Sprintf(" /* Partition `%s` */", p)
}
