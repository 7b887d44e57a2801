package rows

import (
	"bytes"
	"math/rand"
	"testing"
)

// TestAppendTSVEscapes: the TSV writer's eight-bytes-at-a-time scan escapes exactly what a
// byte-by-byte escape does (NUL, tab, newline, backslash), on random values of every length up
// to 64 drawn from bytes rich in those four and their neighbours.
func TestAppendTSVEscapes(t *testing.T) {
	ref := func(row Row) []byte {
		var b bytes.Buffer
		for i, v := range row {
			if i > 0 {
				b.WriteByte('\t')
			}
			if v == nil {
				b.WriteString("NULL")
				continue
			}
			for _, c := range v {
				switch c {
				case 0:
					b.WriteString(`\0`)
				case '\t':
					b.WriteString(`\t`)
				case '\n':
					b.WriteString(`\n`)
				case '\\':
					b.WriteString(`\\`)
				default:
					b.WriteByte(c)
				}
			}
		}
		b.WriteByte('\n')
		return b.Bytes()
	}
	alphabet := []byte{0, '\t', '\n', '\\', 1, '\b', '\v', '[', ']', 0x80, 0xff, 'a'}
	r := rand.New(rand.NewSource(7))
	for n := 0; n < 200000; n++ {
		row := make(Row, 1+r.Intn(3))
		for i := range row {
			if r.Intn(10) == 0 {
				continue // NULL
			}
			v := make([]byte, r.Intn(65))
			for k := range v {
				if r.Intn(4) == 0 {
					v[k] = alphabet[r.Intn(4)]
				} else {
					v[k] = alphabet[4+r.Intn(len(alphabet)-4)]
				}
			}
			row[i] = v
		}
		if got, want := AppendTSV([]byte("x"), row)[1:], ref(row); !bytes.Equal(got, want) {
			t.Fatalf("row %q: got %q, want %q", row, got, want)
		}
	}
}
