package redo

import "testing"

// TestFramedBytes: framing a real server's log from its checkpoint without decoding gives the
// bytes a decoding scan reads to its end; with a smaller maximum it stops at or past it, before
// the end.
func TestFramedBytes(t *testing.T) {
	l := open(t, "../../fixtures/mariadb-10.11-crash")
	sc, _, err := l.Scanner(ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	start := sc.LSN()
	for sc.Next() {
	}
	total := int(sc.LSN() - start)
	if total == 0 {
		t.Fatal("the fixture's log has no mini-transaction after its checkpoint")
	}
	framed := func(max int) int {
		sc, _, err := l.Scanner(ScanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return sc.FramedBytes(max)
	}
	if got := framed(1 << 30); got != total {
		t.Errorf("framed %d bytes to the end, the scan read %d", got, total)
	}
	for _, max := range []int{1, total / 3, total - 1} {
		if got := framed(max); got < max || got > total {
			t.Errorf("framed %d bytes with a maximum of %d (the log holds %d)", got, max, total)
		}
	}
}
