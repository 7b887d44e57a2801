package replay

import (
	"fmt"
	"innoscope/finding"
	"strings"
)

// Findings are one finding per action: a warning for each loss, information for a relocation.
func (pl *SalvagePlan) Findings() []finding.Finding {
	if pl == nil {
		return nil
	}
	var fs []finding.Finding
	for _, a := range pl.Actions {
		sev := finding.Warning
		if !a.Lost() {
			sev = finding.Info
		}
		f := finding.Finding{Severity: sev, Code: "SALVAGE_" + strings.ToUpper(a.Action), SpaceID: a.SpaceID, File: a.File, Message: a.Detail}
		if a.MovedTo != "" {
			f.Message += "; moved to " + a.MovedTo
		}
		if a.LSN != 0 {
			lsn := a.LSN
			f.LSN = &lsn
		}
		fs = append(fs, f)
	}
	return fs
}

// Rows are the actions as ACTION/SPACE/FILE/MOVED TO/LSN/PAGES/RECORDS/DETAIL rows.
func (pl *SalvagePlan) Rows() [][]string {
	if pl == nil {
		return nil
	}
	var rows [][]string
	for _, a := range pl.Actions {
		id := ""
		if a.SpaceID != nil {
			id = fmt.Sprint(*a.SpaceID)
		}
		lsn := ""
		if a.LSN != 0 {
			lsn = fmt.Sprint(a.LSN)
		}
		if a.EndLSN != 0 {
			lsn += fmt.Sprintf("-%d", a.EndLSN)
		}
		rows = append(rows, []string{a.Action, id, a.File, a.MovedTo, lsn, fmt.Sprint(a.Pages), fmt.Sprint(a.Records), a.Detail})
	}
	return rows
}
