package report

import (
	"fmt"

	"innoscope/finding"
)

// Verdict prints the verdict line, coloured by its severity.
func (o *Output) Verdict(v finding.Verdict) {
	tone := Good
	if v.Severity > finding.Info {
		tone = SeverityTone(v.Severity)
	}
	for _, l := range wrapCell(v.Sentence, o.widthOr(1<<30)) {
		fmt.Fprintln(o.w, o.Paint(tone, l))
	}
}

// widthOr is the output's width, or def when unlimited.
func (o *Output) widthOr(def int) int {
	if o.width > 0 {
		return o.width
	}
	return def
}
