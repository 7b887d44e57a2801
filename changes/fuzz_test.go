package changes

import "testing"

// FuzzParseUndo: random bytes never panic, and a record that decodes takes its fields from
// within the bytes given.
func FuzzParseUndo(f *testing.F) {
	f.Add([]byte{11, 1, 20, 4, 0, 0, 0, 1}, 1)
	f.Add([]byte{12, 2, 20, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 1, 4, 0, 0, 0, 1, 1, 3, 1, 'x'}, 1)
	f.Add([]byte{14, 0xFF, 1, 2, 3, 0, 0xF0, 0, 0, 0, 0, 0, 0, 0, 0}, 2)
	f.Fuzz(func(t *testing.T, b []byte, nKey int) {
		nKey = nKey&15 - 1
		u, ok, err := ParseUndo(b, nKey)
		if err != nil || !ok {
			return
		}
		if len(u.Key) != max(nKey, 0) {
			t.Fatalf("%d key fields for %d", len(u.Key), nKey)
		}
		n := 0
		for _, f := range append(u.Key, u.Old...) {
			n += len(f.Bytes)
		}
		if n > len(b) {
			t.Fatalf("%d bytes of fields out of %d", n, len(b))
		}
	})
}
