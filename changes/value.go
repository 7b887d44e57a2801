package changes

import (
	"encoding/hex"
	"encoding/json"
	"unicode/utf8"
)

// valueJSON is a Value in JSON: a value that is not valid UTF-8 (binary data: a BLOB, a BINARY,
// a BIT) is given as "hex" (as `rows --json` gives it), never as text whose bytes JSON would
// replace.
type valueJSON struct {
	Column string `json:"column"`
	Value  string `json:"value,omitempty"`
	Hex    string `json:"hex,omitempty"`
	Null   bool   `json:"null,omitempty"`
}

// MarshalJSON writes the value as text, or as "hex" when it is not valid UTF-8.
func (v Value) MarshalJSON() ([]byte, error) {
	j := valueJSON{Column: v.Column, Value: v.Value, Null: v.Null}
	if !utf8.ValidString(v.Value) {
		j.Value, j.Hex = "", hex.EncodeToString([]byte(v.Value))
	}
	if j.Value == "" && j.Hex == "" {
		// the empty string keeps its "value"
		return json.Marshal(struct {
			Column string `json:"column"`
			Value  string `json:"value"`
			Null   bool   `json:"null,omitempty"`
		}{v.Column, v.Value, v.Null})
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads a value MarshalJSON wrote.
func (v *Value) UnmarshalJSON(b []byte) error {
	var j valueJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*v = Value{Column: j.Column, Value: j.Value, Null: j.Null}
	if j.Hex != "" {
		h, err := hex.DecodeString(j.Hex)
		if err != nil {
			return err
		}
		v.Value, v.Binary = string(h), true
	}
	return nil
}
