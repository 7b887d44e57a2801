package rows

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"

	"innoscope/schema"
)

// orderedFirstKey: the first field of the clustered index compares as its stored bytes do
// (DB_ROW_ID, an integer, a temporal type, DECIMAL, BIT, a binary string), so the records of a
// page are in the order of those bytes (reversed for a DESC field).
func (r *reader) orderedFirstKey() (ordered, desc bool) {
	f := r.lay.flds[0]
	if f.col < 0 {
		return f.name == "DB_ROW_ID", false
	}
	c := r.t.Cols[f.col]
	if len(r.t.Clustered.Fields) > 0 {
		desc = r.t.Clustered.Fields[0].Desc
	}
	switch c.SQL.Type {
	case schema.MyTiny, schema.MyShort, schema.MyInt24, schema.MyLong, schema.MyLongLong, schema.MyNewDate, schema.MyDatetime2,
		schema.MyTimestamp2, schema.MyTime2, schema.MyYear, schema.MyNewDecimal, schema.MyBit:
		return true, desc
	case schema.MyString, schema.MyVarchar, schema.MyVarString:
		return c.InnoDB.PRType&schema.DataBinaryTyp != 0 && schema.Collation(c.InnoDB.PRType) == 63, desc
	}
	return false, false
}

// CheckLayout checks that the records of the table's file have the layout its definition
// gives, before any row is printed from a definition that does not come from the file's own
// dictionary (a .frm given or found beside the file, which may be another table's or an older
// version's). On up to checkLeaves leaf pages of the clustered index (the B-tree's first ones
// and its last; the index's leaf pages in file order when the tree cannot be walked): every
// record has the number of fields of the index (unless instant ALTER left records of several
// lengths), every fixed-length field of a REDUNDANT record has its length, every value is one
// the server can have stored in its column (implausible), no record runs into the next one, and the records' sizes (header and data, as the definition reads them) add up
// to what the page says they take (page_get_data_size: PAGE_HEAP_TOP less the infimum and
// supremum and PAGE_GARBAGE), which a definition off by one byte in one field fails.
func (t *Table) CheckLayout() error {
	r, err := t.reader()
	if err != nil {
		return err
	}
	defer r.f.Close()
	leaves, err := r.treeLeaves()
	if r.lay == nil {
		return nil // the root is unreadable: Walk says so and reads nothing
	}
	if err != nil || len(leaves) == 0 {
		leaves = r.fileLeaves()
	}
	rootPage, err := r.readPage(t.Root)
	if err != nil {
		return nil
	}
	instant := binary.BigEndian.Uint16(rootPage[24:]) == pageTypeInst
	if len(leaves) > checkLeaves {
		leaves = append(leaves[:checkLeaves-1], leaves[len(leaves)-1])
	}
	for _, no := range leaves {
		p, err := r.readPage(no)
		if err != nil || r.check(p, no, true) != "" {
			continue // Walk reports the page as lost
		}
		if err := r.checkPageLayout(p, instant); err != nil {
			return fmt.Errorf("%s: page %d: %v: the definition (%s) does not match the file's records; give the table's own .frm (--frm)", t.File, no, err, t.Frm)
		}
	}
	return nil
}

// checkLeaves is how many leaf pages CheckLayout reads at most (the first ones and the last).
const checkLeaves = 16

// fileLeaves lists the first leaf pages of the index in file order.
func (r *reader) fileLeaves() []uint32 {
	var out []uint32
	r.f.EachPage(0, -1, func(no int64, p []byte) error {
		if q, err := r.logical(p, uint32(no)); err == nil {
			p = q
		}
		if len(out) < checkLeaves && r.check(p, uint32(no), true) == "" {
			out = append(out, uint32(no))
		}
		return nil
	})
	return out
}

type recSpan struct{ start, origin, end int }

// Where the records begin: after the supremum (PAGE_NEW_SUPREMUM_END, PAGE_OLD_SUPREMUM_END).
const (
	supremumEndNew = supremumNew + 8
	supremumEndOld = supremumOld + 9
)

func (r *reader) checkPageLayout(p []byte, instant bool) error {
	be := binary.BigEndian
	compact := be.Uint16(p[pageHeader+4:])&0x8000 != 0 // PAGE_N_HEAP's format flag
	origin := compactNext(p, infimumNew)
	if !compact {
		origin = int(be.Uint16(p[infimumOld-2:]))
	}
	var spans []recSpan
	exact := true // every record's size is known
	ordered, desc := r.orderedFirstKey()
	var prev []byte
	for i := 0; ; i++ {
		if i > len(p)/5 || origin == 0 {
			return nil // the walk reports a broken list
		}
		rec, err := r.record(p, origin, compact)
		if err != nil {
			return fmt.Errorf("record at %d: %v", origin, err)
		}
		if rec.status == statusSupremum {
			break
		}
		at := origin
		origin = rec.next
		if rec.status == statusInfimum {
			continue
		}
		nf := len(r.lay.flds)
		if rec.info&infoMinRec != 0 || rec.status == statusInstant { // the layout of an instant ALTER
			exact = false
			continue
		}
		if len(rec.vals) > nf || len(rec.vals) != nf && !instant {
			return fmt.Errorf("record at %d has %d fields, the definition gives the index %d", at, len(rec.vals), nf)
		}
		for k, v := range rec.vals {
			if f := r.lay.flds[k]; f.col >= 0 && rec.info&infoDeleted == 0 {
				if why := implausible(&r.t.Cols[f.col], v); why != "" {
					return fmt.Errorf("record at %d: column %s: %s", at, r.t.Cols[f.col].Name, why)
				}
			}
		}
		if r.lay.vers != nil { // MySQL row versions: decodeCompact measured the record
			if compact {
				spans = append(spans, recSpan{rec.hdr, at, rec.end})
			} else {
				exact = false
			}
			continue
		}
		end, extra := at, compactExtra
		if compact {
			extra += r.lay.nullBytes
		} else {
			extra = redundantExtra + len(rec.vals)
			if p[at-3]&1 == 0 { // REC_1BYTE_OFFS_FLAG clear: 2-byte offsets
				extra += len(rec.vals)
			}
		}
		for k, v := range rec.vals {
			f := r.lay.flds[k]
			if !compact && !v.null && !v.ext && f.fixed > 0 && len(v.b) != f.fixed {
				return fmt.Errorf("record at %d: field %s of %d bytes, the definition gives %d", at, f.name, len(v.b), f.fixed)
			}
			end += len(v.b)
			if compact && f.fixed == 0 && !v.null {
				extra++
				if v.ext || f.big && len(v.b) > 127 {
					extra++
				}
			}
		}
		spans = append(spans, recSpan{at - extra, at, end})
		if ordered && len(rec.vals) > 0 && !rec.vals[0].null {
			k := rec.vals[0].b
			if c := bytes.Compare(prev, k); prev != nil && (c > 0 && !desc || c < 0 && desc) {
				return fmt.Errorf("record at %d: the first key field %s is out of order (%x after %x)", at, r.lay.flds[0].name, k, prev)
			}
			prev = k
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].origin < spans[j].origin })
	size := 0
	for i, s := range spans {
		size += s.end - s.start
		if i+1 < len(spans) && s.end > spans[i+1].start {
			return fmt.Errorf("record at %d ends at %d, inside the record at %d (its header begins at %d)", s.origin, s.end, spans[i+1].origin, spans[i+1].start)
		}
	}
	heapStart := supremumEndNew
	if !compact {
		heapStart = supremumEndOld
	}
	top, garbage := int(be.Uint16(p[pageHeader+2:])), int(be.Uint16(p[pageHeader+8:]))
	if want := top - heapStart - garbage; exact && size != want {
		return fmt.Errorf("its %d records take %d bytes as the definition reads them, the page says %d", len(spans), size, want)
	}
	return nil
}
