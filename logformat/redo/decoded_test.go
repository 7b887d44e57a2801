package redo

import (
	"reflect"
	"testing"

	"innoscope/logformat"
)

// TestDecodedSameAsScan: the second pass over the mini-transactions a Decoded kept from a scan
// of a real server's log gives the scan's mini-transactions and records (all but Pos and Len),
// its end LSN and its end; one over its limit keeps nothing (Pass is nil).
func TestDecodedSameAsScan(t *testing.T) {
	l := open(t, "../../fixtures/mariadb-10.11-crash")
	var want []logformat.MTR
	sc, _, err := l.Scanner(ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	start := sc.LSN()
	for sc.Next() {
		m := *sc.MTR()
		m.CRC = 0
		m.Records = append([]logformat.Record(nil), m.Records...)
		for i := range m.Records {
			r := &m.Records[i]
			r.Pos, r.Len = 0, 0
			r.Data = append([]byte(nil), r.Data...)
		}
		want = append(want, m)
	}
	if len(want) == 0 {
		t.Fatal("the fixture's log has no mini-transaction after its checkpoint")
	}
	keep := func(limit int64) *Decoded {
		sc, _, err := l.Scanner(ScanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		d := NewDecoded(l, sc, limit)
		defer sc.Prefetch()()
		for sc.Next() {
			d.Add(sc.MTR())
		}
		d.End(sc)
		return d
	}
	d := keep(1 << 30)
	p := d.Pass()
	if p == nil {
		t.Fatal("nothing kept")
	}
	if p.LSN() != start {
		t.Errorf("pass starts at %d, the scan at %d", p.LSN(), start)
	}
	n := 0
	for p.Next() {
		got := *p.MTR()
		for i := range got.Records {
			if got.Records[i].Data == nil {
				got.Records[i].Data = []byte{}
			}
		}
		if n < len(want) {
			w := want[n]
			for i := range w.Records {
				if w.Records[i].Data == nil {
					w.Records[i].Data = []byte{}
				}
			}
			if !reflect.DeepEqual(got, w) {
				t.Fatalf("mini-transaction %d: kept %+v, scanned %+v", n, got, w)
			}
		}
		n++
	}
	if n != len(want) || p.LSN() != sc.LSN() || p.Err() != sc.Err() || (p.StopError() == nil) != (sc.StopError() == nil) {
		t.Errorf("kept %d mini-transactions ending at %d (%v, %v); the scan %d ending at %d (%v, %v)",
			n, p.LSN(), p.Err(), p.StopError(), len(want), sc.LSN(), sc.Err(), sc.StopError())
	}
	if d := keep(1 << 10); d.Complete() || d.Pass() != nil || d.Bytes() != 0 {
		t.Errorf("a 1 KiB limit kept %d bytes (complete: %v)", d.Bytes(), d.Complete())
	}
	t.Logf("%d mini-transactions kept in %d bytes", n, d.bytes)
}
