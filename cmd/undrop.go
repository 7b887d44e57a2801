package cmd

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"innoscope/finding"
	"innoscope/report"
	"innoscope/report/view"
	"innoscope/rows"
)

func undropCommand() *cli.Command {
	return &cli.Command{
		Name:      "undrop",
		Usage:     "the rows of a dropped or truncated table, from its pages left in the data directory's files or in a raw image",
		ArgsUsage: "DIR DB.TABLE | DIR --list",
		Flags: dirFlags(
			&cli.BoolFlag{Name: "list", Usage: "list the indexes no live table has whose pages were found: table (from the dictionary's leftovers), table and index ids, page counts, where found"},
			&cli.StringSliceFlag{Name: "image", Usage: "also carve this raw image (a filesystem image or a block device the table's file was on): every 512-byte aligned page whose checksum holds"},
			&cli.StringFlag{Name: "schema", Usage: "a file with the table's CREATE TABLE (default: the live table of that name, or the dictionary's delete-marked records and the leftover .frm)"},
			&cli.Uint64Flag{Name: "index-id", Usage: "read this dropped index (from --list) instead of the one chosen"},
			&cli.StringFlag{Name: "format", Value: "tsv", Usage: "tsv (as mariadb --batch --skip-column-names), json (one object per row, with its table id, page and source) or sql (INSERT statements)"},
			&cli.StringFlag{Name: "time-zone", Value: "+00:00", Usage: "the server's time_zone, in which TIMESTAMP values are shown (+HH:MM, SYSTEM or a zone name)"},
			allowLiveFlag),
		Action: undropAction,
	}
}

func undropAction(c *cli.Context) error {
	dir, name := c.Args().First(), c.Args().Get(1)
	if c.Bool("list") {
		if c.NArg() != 1 {
			return fmt.Errorf("with --list, expected DIR, got %s", nArgs(c.NArg()))
		}
	} else if c.NArg() != 2 {
		return fmt.Errorf("expected DIR and DB.TABLE (or DIR --list), got %s", nArgs(c.NArg()))
	}
	s, err := loadSettings(c, dir)
	if err != nil {
		return err
	}
	if err := s.CheckDatadir(); err != nil {
		return err
	}
	if err := refuseLive(c, s); err != nil {
		return err
	}
	if c.Bool("list") {
		return show(c, func(out *report.Output) ([]finding.Finding, error) {
			cv, err := rows.CarveDir(s, c.StringSlice("image"))
			if err != nil {
				return nil, err
			}
			ds, err := rows.ListDropped(s, cv)
			if err != nil {
				return nil, err
			}
			return nil, view.Dropped(out, ds, cv.Scanned)
		})
	}
	db, table, ok := strings.Cut(name, ".")
	if !ok || db == "" || table == "" {
		return fmt.Errorf("%q: give the table as DB.TABLE", name)
	}
	format := c.String("format")
	if c.Bool("json") && c.IsSet("format") && format != "json" {
		return fmt.Errorf("--format %s and --json contradict each other (--json is --format json): give one of them", format)
	} else if c.Bool("json") {
		format = "json"
	}
	tz, err := rows.ParseTimeZone(c.String("time-zone"))
	if err != nil {
		return err
	}
	opt := rows.UndropOptions{Images: c.StringSlice("image"), Schema: c.String("schema"), IndexID: c.Uint64("index-id"), Format: format, TimeZone: tz}
	res, err := rows.Undrop(s, db, table, opt, bufio.NewWriterSize(c.App.Writer, 1<<16))
	if err != nil {
		return err
	}
	if view.RowsLost(c.App.ErrWriter, res) {
		return errFindings
	}
	return nil
}
