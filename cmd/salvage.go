package cmd

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"innoscope/replay"
	"innoscope/report"
)

// salvageFlag turns recover's refusals into repairs and declared losses (issue 13).
var salvageFlag = &cli.BoolFlag{Name: "salvage", Usage: "repair in the copy what the server refuses (files with the wrong space id are relocated; a missing tablespace's records are skipped; a tablespace with a corrupt page is quarantined to COPY" + replay.QuarantineSuffix + "/), declaring every loss; exit 1 when something is lost"}

// salvageFindings is one finding per action: a warning for each loss, information for a
// relocation.
func salvageFindings(pl *replay.SalvagePlan) []report.Finding {
	if pl == nil {
		return nil
	}
	var fs []report.Finding
	for _, a := range pl.Actions {
		sev := report.Warning
		if !a.Lost() {
			sev = report.Info
		}
		f := report.Finding{Severity: sev, Code: "SALVAGE_" + strings.ToUpper(a.Action), SpaceID: a.SpaceID, File: a.File, Message: a.Detail}
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

// printSalvage prints the plan's actions as a table.
func printSalvage(out *report.Output, pl *replay.SalvagePlan) error {
	if pl == nil || len(pl.Actions) == 0 {
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
			lsn = fmt.Sprintf("%d-%d", a.LSN, a.EndLSN)
		}
		rows = append(rows, []string{a.Action, id, a.File, a.MovedTo, lsn, fmt.Sprint(a.Pages), fmt.Sprint(a.Records), a.Detail})
	}
	fmt.Fprintln(out.Writer(), "salvage:")
	return out.Table([]string{"ACTION", "SPACE", "FILE", "MOVED TO", "LSN", "PAGES", "RECORDS", "DETAIL"}, rows)
}

// salvageExit is the exit status of a salvage: 1 (findings) when something was lost.
func salvageExit(pl *replay.SalvagePlan) error {
	if pl != nil && pl.Lost() {
		return errFindings
	}
	return nil
}

// orSalvageExit is err, or the salvage's exit status when printing succeeded.
func orSalvageExit(err error, pl *replay.SalvagePlan) error {
	if err != nil {
		return err
	}
	return salvageExit(pl)
}
