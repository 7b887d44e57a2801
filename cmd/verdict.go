package cmd

import (
	"innoscope/replay"
	"innoscope/report"
)

// planVerdict is the first line of `recover --dry-run`: what the server will apply.
func planVerdict(pl *replay.Plan) report.Verdict {
	pages := 0
	for _, n := range pl.PagesBySpace {
		pages += n
	}
	return report.MakeVerdict(nil, report.Outcome{Pages: pages})
}
