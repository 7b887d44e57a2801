package cmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/finding"
)

// allowLiveFlag lets recover, verify and rows read a directory a server is running on.
var allowLiveFlag = &cli.BoolFlag{Name: "allow-live", Usage: "read the directory even though a server is running on it (what is read is not consistent)"}

// logServerFindings is analysis.ServerFindings for the settings of a log command's DIR|FILE argument.
func logServerFindings(c *cli.Context) []finding.Finding {
	s, err := settingsOf(c)
	if err != nil {
		return nil
	}
	return analysis.ServerFindings(s)
}

// refuseLive fails (exit 2) when a server runs on the data directory of s, unless --allow-live.
func refuseLive(c *cli.Context, s discovery.Layout) error {
	if c.Bool("allow-live") {
		return nil
	}
	if l := discovery.RunningServer(s); l != nil {
		return fmt.Errorf("%s: SERVER_RUNNING: %s: a copy of a running server's files is not consistent; stop the server first (or pass --allow-live)", s.Datadir, l)
	}
	return nil
}
