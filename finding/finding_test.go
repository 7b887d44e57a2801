package finding

import (
	"encoding/json"
	"testing"
)

func TestSeverities(t *testing.T) {
	for _, s := range []Severity{Info, Warning, Error} {
		b, _ := json.Marshal(s)
		var back Severity
		if err := json.Unmarshal(b, &back); err != nil || back != s {
			t.Errorf("%v: %s -> %v %v", s, b, back, err)
		}
	}
	if v, err := ParseSeverity("NONE"); err != nil || v <= Error {
		t.Errorf("none: %v %v", v, err)
	}
	if _, err := ParseSeverity("fatal"); err == nil {
		t.Error("fatal accepted")
	}
	if w, ok := Worst([]Finding{{Severity: Info}, {Severity: Error}, {Severity: Warning}}); !ok || w != Error {
		t.Errorf("worst %v", w)
	}
	if _, ok := Worst(nil); ok {
		t.Error("worst of nothing")
	}
}
