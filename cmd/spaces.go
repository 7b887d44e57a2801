package cmd

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/mysqldd"
	"innoscope/report"
	"innoscope/report/view"
)

func spacesCommand() *cli.Command {
	return &cli.Command{
		Name:      "spaces",
		Usage:     "every tablespace file: how found, space id, flags, page size, pages, checksum, first-page LSN, location",
		ArgsUsage: "DIR",
		Flags: dirFlags(&cli.Int64Flag{Name: "space", Value: -1,
			Usage: "answer for one space id: its table, its file, and what page 0, the redo log and the dictionary say"}),
		Action: spacesAction,
	}
}

func spacesAction(c *cli.Context) error {
	if c.NArg() > 1 {
		return fmt.Errorf("expected one DIR argument, got %s", nArgs(c.NArg()))
	}
	id, err := idFlag(c, "space")
	if err != nil {
		return err
	}
	s, err := loadSettings(c, c.Args().First())
	if err != nil {
		return err
	}
	if id < 0 { // --space N still says what the log holds of N
		if err := s.RefuseLogOnly("list (no tablespace file; --space N answers from the log)"); err != nil {
			return err
		}
	}
	ts, err := discovery.Scan(s)
	if err != nil {
		return err
	}
	fs := analysis.LocationFindings(ts, analysis.PolicyMariaDB)
	if d, err := mysqldd.Load(s); err != nil {
		fs = append(fs, finding.Finding{Severity: finding.Warning, Code: "DICTIONARY_UNREADABLE", File: filepath.Join(s.Datadir, mysqldd.File),
			Message: "the MySQL data dictionary could not be read, so tables are not named: " + err.Error()})
	} else if d != nil { // a MySQL 8 directory: each tablespace's tables, and the files the dictionary places elsewhere
		d.Annotate(ts)
		placed, _ := d.Check(s, ts, nil, false)
		ts = append(ts, placed...)
		sort.SliceStable(ts, func(i, j int) bool { return ts[i].SpaceID < ts[j].SpaceID })
	} else {
		mysqldd.AnnotateFromSDI(ts) // MySQL 8 files without their mysql.ibd: each file's own SDI
	}
	src := analysis.ReadSpaceSources(s, ts, scanOptions(c))
	if id >= 0 {
		a, err := src.Lookup(uint32(id))
		if err != nil {
			return err
		}
		for _, t := range ts { // MySQL 8: the tables its data dictionary (or the file's SDI) places there
			if t.SpaceID == uint32(id) && len(t.Tables) > 0 {
				a.Table = strings.Join(t.Tables, ", ")
			}
		}
		return show(c, func(out *report.Output) ([]finding.Finding, error) { return nil, view.SpaceAnswer(out, a) })
	}
	return show(c, func(out *report.Output) ([]finding.Finding, error) { return fs, view.Spaces(out, ts, src, fs) })
}
