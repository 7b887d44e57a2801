package cmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"innoscope/discovery"
	"innoscope/report"
)

// allowLiveFlag lets recover and verify copy a directory a server is running on.
var allowLiveFlag = &cli.BoolFlag{Name: "allow-live", Usage: "copy the directory even though a server is running on it (the copy is not consistent)"}

// serverFindings is SERVER_RUNNING (error) when a server runs on the data directory of s: what
// innoscope reads then is not what crash recovery would find.
func serverFindings(s discovery.Layout) []report.Finding {
	l := discovery.RunningServer(s)
	if l == nil {
		return nil
	}
	return []report.Finding{{Severity: report.Error, Code: "SERVER_RUNNING", File: s.Datadir,
		Message: l.String() + ": the server is running on this directory, its files change while they are read; stop it first"}}
}

// logServerFindings is serverFindings for the settings of a log command's DIR|FILE argument.
func logServerFindings(c *cli.Context) []report.Finding {
	s, err := settingsOf(c)
	if err != nil {
		return nil
	}
	return serverFindings(s)
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
