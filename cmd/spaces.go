package cmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/report"
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
		return fmt.Errorf("expected one DIR argument, got %d", c.NArg())
	}
	s, err := loadSettings(c, c.Args().First())
	if err != nil {
		return err
	}
	ts, err := discovery.Scan(s)
	if err != nil {
		return err
	}
	fs := analysis.LocationFindings(ts, analysis.PolicyMariaDB)
	out := report.New(c.App.Writer, c.Bool("json"))
	defer out.Flush()
	src := analysis.ReadSpaceSources(s, ts, scanOptions(c))
	if id := c.Int64("space"); id >= 0 {
		if id > 0xFFFFFFFF {
			return fmt.Errorf("--space %d: a space id is at most 4294967295", id)
		}
		a, err := src.Lookup(uint32(id))
		if err != nil {
			return err
		}
		if out.JSON {
			return out.WriteJSON(a)
		}
		return printSpaceAnswer(out, a)
	}
	if out.JSON {
		if ts == nil {
			ts = []discovery.Tablespace{}
		}
		if err := out.WriteJSON(ts); err != nil {
			return err
		}
		return finish(c, fs)
	}
	var rows [][]string
	for _, t := range ts {
		loc := t.Location
		switch loc {
		case discovery.LocKnown:
			loc = out.Paint(report.Good, loc)
		default:
			loc = out.Paint(report.Warn, loc)
		}
		sz := fmt.Sprint(t.PageSize)
		if t.PhysicalPageSize != t.PageSize {
			sz += fmt.Sprintf("/%d", t.PhysicalPageSize)
		}
		extra := t.Note
		if t.Error != "" {
			extra = out.Paint(report.Bad, t.Error)
		}
		rows = append(rows, []string{src.ShownID(t), t.Path, t.FoundBy, fmt.Sprintf("0x%x", t.Flags.Raw), sz,
			fmt.Sprint(t.Pages), t.ChecksumAlgorithm, fmt.Sprint(t.FirstPageLSN), loc, extra})
	}
	if err := out.Table([]string{"SPACE", "PATH", "FOUND BY", "FLAGS", "PAGE SIZE", "PAGES", "CHECKSUM", "PAGE 0 LSN", "LOCATION", "NOTE"}, rows); err != nil {
		return err
	}
	if len(fs) > 0 {
		if err := out.Findings(fs); err != nil {
			return err
		}
	}
	return finish(c, fs)
}
