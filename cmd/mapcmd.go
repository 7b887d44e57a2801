package cmd

import (
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"innoscope/analysis"
	"innoscope/report"
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
	if c.Int64("space") >= 0 {
		return spacesAction(c)
	}
	m, fs, err := buildMap(c)
	if err != nil {
		return err
	}
	spaces := m.Sorted()
	out := report.New(c.App.Writer, c.Bool("json"))
	defer out.Flush()
	if out.JSON {
		if err := printFindings(c, out, fs); err != nil {
			return err
		}
		return writeJSON(c, out, spaces, fs)
	}
	datadir := ""
	if set, err := settingsOf(c); err == nil {
		datadir = set.Datadir
	}
	var rows [][]string
	for _, s := range spaces {
		state := fileState(datadir, s)
		var ev []string
		for _, e := range s.Events {
			x := fmt.Sprintf("%s@%d", e.Kind, e.LSN)
			if e.Kind == analysis.Rename {
				x += " " + e.Name + " -> " + e.NewName
			} else if e.Name != s.Name {
				x += " " + e.Name
			}
			ev = append(ev, x)
		}
		rows = append(rows, []string{fmt.Sprint(s.ID), s.Name, state, strings.Join(ev, "\n")})
	}
	if err := out.Table([]string{"SPACE", "NAME", "STATE", "EVENTS (kind@mini-transaction LSN)"}, rows); err != nil {
		return err
	}
	fmt.Fprintf(out.Writer(), "file records from LSN %d to the end of the log at %d\n", m.FromLSN, m.EndLSN)
	if err := printFindings(c, out, fs); err != nil {
		return err
	}
	return finish(c, fs)
}

// buildMap rebuilds the space map from the command's log (to --at-lsn), with a finding for a
// corrupt record that ends it.
func buildMap(c *cli.Context) (*analysis.Map, []report.Finding, error) {
	r, err := openRedo(c)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	return analysis.MapLog(r, scanOptions(c), c.Uint64("at-lsn"))
}

// fileState is a space's STATE in the map: whether the log deletes it, and whether its file
// (the log's last name, relative to the data directory; "": unknown) is on disk.
func fileState(datadir string, s *analysis.Space) string {
	if datadir == "" {
		if s.Deleted {
			return "deleted"
		}
		return "in the log"
	}
	_, serr := os.Stat(analysis.SourcePath(datadir)(s.Name))
	switch {
	case s.Deleted && serr == nil:
		return "deleted, still on disk"
	case s.Deleted:
		return "deleted"
	case serr == nil:
		return "on disk"
	}
	return "not on disk"
}
