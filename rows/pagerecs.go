package rows

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"

	"innoscope/discovery"
)

// PageRecord is one record of a clustered index page, as `pages --page N --records` lists it.
type PageRecord struct {
	Offset   int    `json:"offset"` // the record's origin in the page
	Status   string `json:"status"` // ordinary, instant (fields added by instant ALTER), node_ptr
	Deleted  bool   `json:"deleted"`
	Metadata bool   `json:"metadata"` // the instant ALTER metadata record
	// Values are the user columns of a leaf record (nil: NULL), in the table's column order;
	// of a node pointer, its key columns.
	Values []*string `json:"values"`
	Child  *uint32   `json:"child_page,omitempty"` // a node pointer's child page
	Error  string    `json:"error,omitempty"`
}

// PageRecords decodes every record of page no of the tablespace file at path, which must hold
// a page of a table's clustered index. The table is found in the dictionary of the data
// directory of layout s by the file's space id.
func PageRecords(s discovery.Layout, path string, no uint32) (*Table, []PageRecord, error) {
	f, err := discovery.OpenFile(path)
	if err != nil {
		return nil, nil, err
	}
	space := f.FSP.SpaceID
	f.Close()
	dir, sysName := s.SystemFile()
	sys, err := discovery.OpenFile(filepath.Join(dir, sysName))
	if err != nil {
		return nil, nil, err
	}
	tables, err := discovery.ReadDictTables(sys)
	sys.Close()
	if err != nil {
		return nil, nil, err
	}
	var name string
	for _, dt := range tables {
		if !dt.Deleted && dt.SpaceID == space && space != 0 {
			name = dt.Name
		}
	}
	db, tb, ok := strings.Cut(name, "/")
	if !ok {
		return nil, nil, fmt.Errorf("%s: space id %d is not a table's in SYS_TABLES of %s", path, space, sys.Path)
	}
	t, err := Open(s, db, tb)
	if err != nil {
		return nil, nil, err
	}
	t.File = path
	r, err := t.reader()
	if err != nil {
		return nil, nil, err
	}
	defer r.f.Close()
	leaf, err := r.leftmostLeaf()
	if err != nil {
		return nil, nil, err
	}
	if lp, err := r.readPage(leaf); err == nil && r.check(lp, leaf, true) == "" {
		ip, _ := discovery.ParseIndexPage(lp)
		if ip.IsMetadataRecord() { // defaults; switches the layout after an instant DROP or reorder
			if rec, err := r.record(lp, firstRecord(lp, ip.Compact), ip.Compact); err == nil {
				r.meta = ownValues(rec.vals)
			}
		}
	}
	p, err := r.readPage(no)
	if err != nil {
		return nil, nil, err
	}
	if why := r.check(p, no, false); why != "" {
		return nil, nil, fmt.Errorf("%s: page %d: %s", path, no, why)
	}
	ip, _ := discovery.ParseIndexPage(p)
	var out []PageRecord
	for origin, i := firstRecord(p, ip.Compact), 0; origin != 0 && i <= len(p)/5; i++ {
		rec, err := r.record(p, origin, ip.Compact)
		if err != nil {
			out = append(out, PageRecord{Offset: origin, Error: err.Error()})
			break
		}
		if rec.status == statusSupremum {
			break
		}
		pr := PageRecord{Offset: origin, Status: statusName(rec.status, ip.Level), Deleted: rec.info&infoDeleted != 0,
			Metadata: rec.info&infoMinRec != 0 && ip.Level == 0}
		origin = rec.next
		if ip.Level > 0 {
			if n := len(rec.vals); n > 0 && len(rec.vals[n-1].b) == 4 {
				c := binary.BigEndian.Uint32(rec.vals[n-1].b)
				pr.Child = &c
				rec.vals = rec.vals[:n-1]
			}
			for i, v := range rec.vals {
				if i < len(r.lay.flds) && r.lay.flds[i].col >= 0 {
					pr.Values = append(pr.Values, r.str(r.lay.flds[i].col, v))
				}
			}
		} else if row, err := r.row(rec.vals); err != nil {
			pr.Error = err.Error()
		} else {
			for _, v := range row {
				if v == nil {
					pr.Values = append(pr.Values, nil)
				} else {
					s := string(v)
					pr.Values = append(pr.Values, &s)
				}
			}
		}
		out = append(out, pr)
	}
	return t, out, nil
}

// str formats one stored value of column c (nil for NULL or what does not decode).
func (r *reader) str(c int, v value) *string {
	if v.null {
		return nil
	}
	b, err := format(nil, &r.t.Cols[c], v.b, r.t.TimeZone)
	if err != nil {
		return nil
	}
	s := string(b)
	return &s
}

// firstRecord is the origin of the record after the infimum.
func firstRecord(p []byte, compact bool) int {
	if compact {
		return compactNext(p, infimumNew)
	}
	return int(binary.BigEndian.Uint16(p[infimumOld-2:]))
}

func statusName(st byte, level uint16) string {
	switch {
	case level > 0:
		return "node_ptr"
	case st == statusInstant:
		return "instant"
	}
	return "ordinary"
}
