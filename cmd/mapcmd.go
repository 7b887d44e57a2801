package cmd

import (
	"path/filepath"

	"github.com/urfave/cli/v2"

	"innoscope/analysis"
	"innoscope/finding"
	"innoscope/mysqldd"
	"innoscope/report"
	"innoscope/report/view"
)

func mapCommand() *cli.Command {
	return &cli.Command{
		Name:      "map",
		Usage:     "space id → file name map rebuilt from the redo log's file records, with the LSN of each event",
		ArgsUsage: "DIR|FILE",
		Flags: dirFlags(
			&cli.Uint64Flag{Name: "at-lsn", Usage: "the map as it stands before the first mini-transaction at or after this LSN"},
			&cli.Uint64Flag{Name: "from-lsn", Usage: "start here instead of the checkpoint (a mini-transaction start)"},
			&cli.Int64Flag{Name: "space", Value: -1, Usage: "answer for one space id as `spaces --space` does: page 0, the log and the dictionary"}),
		Action: mapAction,
	}
}

func mapAction(c *cli.Context) error {
	if c.IsSet("space") {
		return spacesAction(c)
	}
	m, fs, err := buildMap(c)
	if err != nil {
		return err
	}
	datadir := ""
	if set, err := settingsOf(c); err == nil {
		datadir = set.Datadir
		if d, err := mysqldd.Load(set); err != nil {
			fs = append(fs, finding.Finding{Severity: finding.Warning, Code: "DICTIONARY_UNREADABLE", File: filepath.Join(set.Datadir, mysqldd.File),
				Message: "the MySQL data dictionary could not be read, so tables are not named: " + err.Error()})
		} else if d != nil {
			for id, sp := range m.Spaces {
				if dt := d.BySpace(id); dt != nil {
					sp.Tables = dt.Tables
					if len(dt.Files) > 0 {
						sp.DDPath = dt.Files[0]
					}
				}
			}
		}
	}
	return show(c, func(out *report.Output) ([]finding.Finding, error) {
		return fs, view.Map(out, c.App.ErrWriter, m, datadir, fs)
	})
}

// buildMap rebuilds the space map from the command's log (to --at-lsn), with a finding for a
// corrupt record that ends it.
func buildMap(c *cli.Context) (*analysis.Map, []finding.Finding, error) {
	r, err := openRedo(c)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	return analysis.MapLog(r, scanOptions(c), c.Uint64("at-lsn"))
}
