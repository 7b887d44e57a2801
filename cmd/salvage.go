package cmd

import (
	"github.com/urfave/cli/v2"

	"innoscope/replay"
)

// salvageFlag turns recover's refusals into repairs and declared losses (issue 13).
var salvageFlag = &cli.BoolFlag{Name: "salvage", Usage: "repair in the copy what the server refuses (files with the wrong space id are relocated; a missing tablespace's records are skipped; a tablespace with a corrupt page is quarantined to COPY" + replay.QuarantineSuffix + "/), declaring every loss; exit 1 when something is lost"}
