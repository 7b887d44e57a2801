package report

import (
	"fmt"

	"innoscope/finding"
)

// SeverityTone is the colour of a severity.
func SeverityTone(s finding.Severity) Tone { return [...]Tone{Plain, Warn, Bad}[s] }

// Findings prints findings as a table (severity coloured on a terminal).
func (o *Output) Findings(fs []finding.Finding) error {
	rows := make([][]string, 0, len(fs))
	for _, f := range finding.SortFindings(fs) {
		sp, lsn := "-", "-"
		if f.SpaceID != nil {
			sp = fmt.Sprint(*f.SpaceID)
		}
		if f.LSN != nil {
			lsn = fmt.Sprint(*f.LSN)
		}
		rows = append(rows, []string{o.Paint(SeverityTone(f.Severity), f.Severity.String()), f.Code, sp, f.File, lsn, f.Message})
	}
	return o.Table([]string{"SEVERITY", "CODE", "SPACE", "FILE", "LSN", "MESSAGE"}, rows)
}
