package rows

import (
	"encoding/binary"
	"testing"
	"time"

	"innoscope/discovery"
	"innoscope/schema"
)

// fuzzTable is a table of every kind of field the decoder distinguishes: fixed, variable up
// to 255 bytes, variable and longer (2-byte lengths, off-page), nullable or not.
func fuzzTable() *Table {
	cols := []Column{
		{Name: "id", SQL: schema.SQLType{Type: schema.MyLong, Length: 11, PackFlag: 1}, InnoDB: discovery.DictColumn{Pos: 0, MType: schema.DataInt, PRType: schema.MyLong | schema.DataNotNull, Len: 4}},
		{Name: "v", SQL: schema.SQLType{Type: schema.MyVarchar, Length: 40}, InnoDB: discovery.DictColumn{Pos: 1, MType: schema.DataVarMySQL, PRType: schema.MyVarchar | 45<<16, Len: 40}},
		{Name: "b", SQL: schema.SQLType{Type: schema.MyBlob}, InnoDB: discovery.DictColumn{Pos: 2, MType: schema.DataBlob, PRType: schema.MyBlob | 63<<16, Len: 10}},
		{Name: "d", SQL: schema.SQLType{Type: schema.MyNewDecimal, Length: 12, PackFlag: 2<<8 | 1}, InnoDB: discovery.DictColumn{Pos: 3, MType: schema.DataFixBinary, PRType: schema.MyNewDecimal, Len: 5}},
		{Name: "t", SQL: schema.SQLType{Type: schema.MyDatetime2, Length: 26}, InnoDB: discovery.DictColumn{Pos: 4, MType: schema.DataFixBinary, PRType: schema.MyDatetime, Len: 8}},
		{Name: "f", SQL: schema.SQLType{Type: schema.MyFloat, Length: 12, PackFlag: 39 << 8}, InnoDB: discovery.DictColumn{Pos: 5, MType: schema.DataFloat, PRType: schema.MyFloat, Len: 4}},
		{Name: "tm", SQL: schema.SQLType{Type: schema.MyTime2, Length: 14}, InnoDB: discovery.DictColumn{Pos: 6, MType: schema.DataFixBinary, PRType: schema.MyTime, Len: 5}},
		{Name: "c", SQL: schema.SQLType{Type: schema.MyString, Length: 40}, InnoDB: discovery.DictColumn{Pos: 7, MType: schema.DataMySQL, PRType: schema.MyString | 45<<16, Len: 40}},
	}
	for i := range cols {
		cols[i].InnoDB.Name = cols[i].Name
	}
	t := &Table{Table: schema.Table{Name: "db/fuzz", Cols: cols, PK: []int{0}}}
	t.layout()
	return t
}

// FuzzDecodeRecord: the record decoders and the value formatting never panic and never read
// outside the page, whatever the bytes (a damaged page must be reported, not crash the walk).
func FuzzDecodeRecord(f *testing.F) {
	f.Add([]byte{0, 0, 0x10, 0x00, 0x20, 0x80, 0, 0, 1}, uint16(130), byte(0))
	f.Add([]byte{3, 0x85, 2, 0, 0, 0, 0x10, 0, 0}, uint16(140), byte(4))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, uint16(120), byte(1))
	t := fuzzTable()
	f.Fuzz(func(tt *testing.T, hdr []byte, origin uint16, status byte) {
		p := make([]byte, 16384)
		o := int(origin)%(len(p)-200) + 100
		copy(p[max(o-len(hdr), FilData):], hdr)
		p[o-3] = p[o-3]&^7 | status&7
		for i := o; i < o+120 && i < len(p); i++ {
			p[i] = byte(i * 7)
		}
		binary.BigEndian.PutUint16(p[supremumNew+7:], 0)
		for _, nCore := range []int{len(t.fields), t.nUniq + 2} {
			lay := &layout{flds: t.fields, nCore: nCore, nUniq: t.nUniq, nullBytes: 1}
			for _, mblob := range []bool{false, true} {
				rec, err := decodeCompact(p, o, lay, mblob, nil)
				if err == nil {
					formatAll(t, rec.vals)
				}
			}
		}
		if rec, err := decodeRedundant(p, o, nil); err == nil {
			formatAll(t, rec.vals)
		}
		// a MySQL table with row versions: a column added (with a default), one dropped
		vl := &layout{flds: t.fields, nCore: len(t.fields), nUniq: t.nUniq, vers: fuzzVersions(t)}
		if rec, err := decodeCompact(p, o, vl, false, nil); err == nil {
			formatAll(t, rec.vals)
		}
		if rec, err := redundantRecord(p, o, true, nil); err == nil {
			if vals, err := versionedRedundant(rec, vl, nil); err == nil {
				formatAll(t, vals)
			}
		}
	})
}

// fuzzVersions gives fuzzTable's fields row versions: b added in version 1 (default empty), t
// in 2 (a default of its size), c added in 1 and dropped in 3.
func fuzzVersions(t *Table) []*schema.RowVersion {
	vers := make([]*schema.RowVersion, len(t.fields))
	for i, f := range t.fields {
		switch f.name {
		case "b":
			vers[i] = &schema.RowVersion{Added: 1, Default: []byte{}}
		case "t":
			vers[i] = &schema.RowVersion{Added: 2, Default: []byte{0x99, 0x9e, 0x42, 0, 0, 0, 0, 0}}
		case "c":
			vers[i] = &schema.RowVersion{Added: 1, Dropped: 3}
		}
	}
	return vers
}

// formatAll formats every field that maps to a column.
func formatAll(t *Table, vals []value) {
	for i, v := range vals {
		if i < len(t.fields) && t.fields[i].col >= 0 && !v.null {
			format(nil, &t.Cols[t.fields[i].col], v.b, time.UTC)
		}
	}
}
