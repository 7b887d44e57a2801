package cmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"innoscope/replay"
	"innoscope/report"
)

// salvageFlag turns recover's refusals into repairs and declared losses (issue 13).
var salvageFlag = &cli.BoolFlag{Name: "salvage", Usage: "repair in the copy what the server refuses (files with the wrong space id are relocated; a missing tablespace's records are skipped; a tablespace with a corrupt page is quarantined to COPY" + replay.QuarantineSuffix + "/), declaring every loss; exit 1 when something is lost"}

// printSalvage prints the plan's actions as a table.
func printSalvage(out *report.Output, pl *replay.SalvagePlan) error {
	if pl == nil || len(pl.Actions) == 0 {
		return nil
	}
	fmt.Fprintln(out.Writer(), "salvage:")
	return out.Table([]string{"ACTION", "SPACE", "FILE", "MOVED TO", "LSN", "PAGES", "RECORDS", "DETAIL"}, pl.Rows())
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
