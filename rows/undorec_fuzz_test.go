package rows

import (
	"encoding/binary"
	"math/rand"
	"strings"
	"testing"

	"innoscope/discovery"
)

// FuzzParseUndoUpdate: the undo record parser never panics whatever the bytes, and what it
// accepts stays inside the record: positions of stored fields of the index, values within
// the bytes given, off-page values with their 20-byte reference.
func FuzzParseUndoUpdate(f *testing.F) {
	f.Add([]byte{12, 1, 0x81, 0x10, 0, 0, 0, 0, 5, 0, 0x80, 0, 0, 0, 4, 0, 0, 0, 1, 1, 3, 4, 'a', 'b', 'c', 'd'}, byte(1), byte(6))
	f.Add([]byte{14, 0xff, 1, 2, 3, 0x20, 0, 0, 0, 0, 9, 0, 0x10, 0, 0, 0, 4, 0xf0, 0xff, 0xff, 0xff, 0xff}, byte(1), byte(4))
	f.Add([]byte{12, 0, 7, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 4, 1, 2, 3, 4, 1, 5, 0xf0, 0xff, 0xff, 0xbf, 0xff, 20}, byte(1), byte(8))
	f.Fuzz(func(t *testing.T, b []byte, nUniq, nFields byte) {
		k, n := int(nUniq%4)+1, int(nFields%12)
		u, err := parseUndoUpdate(b, k, n)
		if err != nil || u.Type == undoInsertRec {
			return
		}
		if len(u.RollPtr) != 7 || u.TrxID>>48 != 0 {
			t.Fatalf("DB_TRX_ID %d, DB_ROLL_PTR %x", u.TrxID, u.RollPtr)
		}
		for _, fl := range u.Fields {
			if fl.Pos < 0 || fl.Pos >= n || fl.Pos == k || fl.Pos == k+1 {
				t.Fatalf("field position %d of %d (key %d)", fl.Pos, n, k)
			}
			if len(fl.Val.b) > len(b) || fl.Val.ext && len(fl.Val.b) < fieldRefSize || fl.Val.null && fl.Val.b != nil {
				t.Fatalf("value %+v from %d bytes", fl.Val, len(b))
			}
		}
	})
}

// TestUndoRandomNoVersion: a record whose writer is not visible, with DB_ROLL_PTR pointing to
// an undo record of random bytes, gives its own version and then an error, never an older
// version (an invented row): the undo record must be of the table's id and of an update type,
// and parse, which random bytes never do here (20,000 seeded records).
func TestUndoRandomNoVersion(t *testing.T) {
	tb := fuzzTable()
	tb.TableID = 0x2345
	rng := rand.New(rand.NewSource(32))
	page := make([]byte, 16384)
	h := &discovery.UndoHistory{Rsegs: map[int]discovery.Rseg{1: {Slot: 1, Space: 0, Page: 6}},
		Logs: map[uint64]discovery.UndoLog{5: {TrxID: 5, TrxNo: 10}}, Open: map[uint64]bool{}}
	page0 := make([]byte, 16384) // FSP flags 0: 16 KiB pages, the classic checksums
	fl, err := discovery.DecodeFlags(0)
	if err != nil {
		t.Fatal(err)
	}
	hs := &history{h: h, read: func(space, no uint32) ([]byte, error) {
		if no == 0 {
			return page0, nil
		}
		return page, nil
	}}
	r := &reader{t: tb, lay: &layout{flds: tb.fields, nCore: len(tb.fields), nUniq: tb.nUniq}, res: &Result{}}
	roll := []byte{1, 0, 0, 0, 3, 0, 100} // rollback segment 1, page 3, offset 100
	rec := record{vals: []value{{b: []byte{0x80, 0, 0, 1}}, {b: []byte{0, 0, 0, 0, 0, 5}}, {b: roll}}}
	for range tb.fields[3:] {
		rec.vals = append(rec.vals, value{null: true})
	}
	for i := 0; i < 20000; i++ {
		for j := range page {
			page[j] = 0
		}
		n := 1 + rng.Intn(300)
		binary.BigEndian.PutUint16(page[discovery.FilPageType:], 2)
		binary.BigEndian.PutUint16(page[100:], uint16(100+2+n+2))
		rng.Read(page[102 : 102+n])
		binary.BigEndian.PutUint16(page[discovery.FilPageData+4:], uint16(100+2+n+2))
		binary.BigEndian.PutUint32(page[discovery.FilPageOffset:], 3)
		discovery.SealPage(page, fl, 1000) // the checksum holds: the record is what is tested
		versions := 0
		_, err := r.versionsOf(hs, rec, func(v recVersion, change string) (bool, error) {
			versions++
			return true, nil
		})
		if versions != 1 || err == nil || strings.Contains(err.Error(), "corrupt") {
			t.Fatalf("random undo record %x: %d versions, error %v", page[102:102+n], versions, err)
		}
	}
}
