package cmd

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/report"
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

// progress is a progress bar labelled label on a terminal, as a callback for the library, and
// the function that ends it.
func progress(label string) (set func(done, total int64), done func()) {
	var p *report.Progress
	ended := false
	return func(n, total int64) {
			if p == nil && !ended {
				p = report.NewProgress(label, total)
			}
			if p != nil {
				p.Set(n)
			}
		}, func() {
			if p != nil {
				p.Done()
			}
			p, ended = nil, true
		}
}

// liveSourceFindings is LIVE_SOURCE (warning) for a copy recover made with --allow-live from a
// directory a server is running on (what SERVER_RUNNING says of it): the copy holds files
// read while the server changed them, which no crash of that server would have left.
func liveSourceFindings(s discovery.Layout) []finding.Finding {
	var fs []finding.Finding
	for _, f := range analysis.ServerFindings(s) {
		fs = append(fs, finding.Finding{Severity: finding.Warning, Code: "LIVE_SOURCE", File: f.File,
			Message: strings.TrimSuffix(f.Message, "; stop it first") + ": the copy was made from them (--allow-live), so it is not a consistent crash image " +
				"(pages and log read at different moments); stop the server, or take a backup (mariadb-backup), for a copy to rely on"})
	}
	return fs
}
