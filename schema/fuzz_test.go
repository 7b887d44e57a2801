package schema

import "testing"

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
