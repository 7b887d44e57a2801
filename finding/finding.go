// Package finding is the vocabulary every layer reports in: a Finding (severity, code, space,
// file, LSN, message), the severities, the list of codes, and the verdict a set of findings adds
// up to. It imports nothing of innoscope's and renders nothing.
package finding

import (
	"fmt"
	"strings"
)

// Severity orders findings; commands exit 1 when one is at or above --fail-on.
type Severity int

// Severities, lowest first.
const (
	Info Severity = iota
	Warning
	Error
)

var severityNames = []string{"info", "warning", "error"}

func (s Severity) String() string { return severityNames[s] }

// MarshalText makes severities JSON strings.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a severity name back.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err == nil && v > Error {
		err = fmt.Errorf("unknown severity %q", b)
	}
	*s = v
	return err
}

// ParseSeverity reads "info", "warning" or "error"; "none" gives a level above every finding.
func ParseSeverity(s string) (Severity, error) {
	for i, n := range severityNames {
		if strings.EqualFold(s, n) {
			return Severity(i), nil
		}
	}
	if strings.EqualFold(s, "none") {
		return Error + 1, nil
	}
	return 0, fmt.Errorf("unknown severity %q (info, warning, error, none)", s)
}

// Finding is one thing the tool reports about a data directory or log.
type Finding struct {
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	SpaceID  *uint32  `json:"space_id"` // nil when no tablespace is concerned
	File     string   `json:"file"`
	LSN      *uint64  `json:"lsn"` // nil when no LSN is concerned
	Message  string   `json:"message"`
}

// Worst returns the highest severity among fs, and false if fs is empty.
func Worst(fs []Finding) (Severity, bool) {
	if len(fs) == 0 {
		return 0, false
	}
	w := fs[0].Severity
	for _, f := range fs[1:] {
		if f.Severity > w {
			w = f.Severity
		}
	}
	return w, true
}
