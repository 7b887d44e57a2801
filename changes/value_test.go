package changes

import (
	"encoding/json"
	"testing"
)

// TestValueJSON: a value that is not valid UTF-8 is written as hex and read back byte for byte;
// text, the empty string and NULL keep "value".
func TestValueJSON(t *testing.T) {
	for _, v := range []Value{{Column: "b", Value: "\x00\x01\x02\xff"}, {Column: "c", Value: "\n\xaa"},
		{Column: "s", Value: "é\ttext"}, {Column: "e", Value: ""}, {Column: "n", Value: "NULL", Null: true}} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var back Value
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		back.Binary = false
		if back != v {
			t.Errorf("%q: JSON %s read back as %q", v.Value, b, back.Value)
		}
	}
}
