package rows

import (
	"encoding/binary"
	"testing"
	"time"

	"innoscope/discovery"
)

// fuzzTable is a table of every kind of field the decoder distinguishes: fixed, variable up
// to 255 bytes, variable and longer (2-byte lengths, off-page), nullable or not.
func fuzzTable() *Table {
	cols := []Column{
		{Name: "id", Frm: FrmField{Type: myLong, Length: 11, PackFlag: 1}, Dict: discovery.DictColumn{Pos: 0, MType: dataInt, PRType: myLong | dataNotNull, Len: 4}},
		{Name: "v", Frm: FrmField{Type: myVarchar, Length: 40}, Dict: discovery.DictColumn{Pos: 1, MType: dataVarMySQL, PRType: myVarchar | 45<<16, Len: 40}},
		{Name: "b", Frm: FrmField{Type: myBlob}, Dict: discovery.DictColumn{Pos: 2, MType: dataBlob, PRType: myBlob | 63<<16, Len: 10}},
		{Name: "d", Frm: FrmField{Type: myNewDecimal, Length: 12, PackFlag: 2<<8 | 1}, Dict: discovery.DictColumn{Pos: 3, MType: dataFixBinary, PRType: myNewDecimal, Len: 5}},
		{Name: "t", Frm: FrmField{Type: myDatetime2, Length: 26}, Dict: discovery.DictColumn{Pos: 4, MType: dataFixBinary, PRType: myDatetime, Len: 8}},
		{Name: "f", Frm: FrmField{Type: myFloat, Length: 12, PackFlag: 39 << 8}, Dict: discovery.DictColumn{Pos: 5, MType: dataFloat, PRType: myFloat, Len: 4}},
		{Name: "tm", Frm: FrmField{Type: myTime2, Length: 14}, Dict: discovery.DictColumn{Pos: 6, MType: dataFixBinary, PRType: myTime, Len: 5}},
		{Name: "c", Frm: FrmField{Type: myString, Length: 40}, Dict: discovery.DictColumn{Pos: 7, MType: dataMySQL, PRType: myString | 45<<16, Len: 40}},
	}
	for i := range cols {
		cols[i].Dict.Name = cols[i].Name
	}
	t := &Table{Name: "db/fuzz", Cols: cols, PK: []int{0}}
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
	})
}

// formatAll formats every field that maps to a column.
func formatAll(t *Table, vals []value) {
	for i, v := range vals {
		if i < len(t.fields) && t.fields[i].col >= 0 && !v.null {
			format(nil, &t.Cols[t.fields[i].col], v.b, time.UTC)
		}
	}
}

// FuzzFrm: a damaged .frm is an error, never a panic.
func FuzzFrm(f *testing.F) {
	f.Add([]byte{0xfe, 1, 10, 12, 0, 0, 0, 16, 1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 2 {
			b[0], b[1] = 0xfe, 1
		}
		parseFrm(b, "fuzz.frm")
	})
}
