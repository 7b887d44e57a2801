package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"innoscope/logformat/redo"
	"innoscope/report/view"
	"innoscope/rows"
	"innoscope/schema"
)

func rowsCommand() *cli.Command {
	return &cli.Command{
		Name:      "rows",
		Usage:     "decode a table's rows offline (clustered index order), as `mariadb --batch` prints them",
		ArgsUsage: "DIR DB.TABLE | FILE.ibd [DB.TABLE]",
		Flags: append(append(append([]cli.Flag{}, locationFlags...), asOfFlags...),
			&cli.BoolFlag{Name: "json", Usage: "the same as --format json"},
			&cli.StringFlag{Name: "format", Value: "tsv", Usage: "tsv (as mariadb --batch --skip-column-names), json (one object per row) or sql (INSERT statements)"},
			&cli.StringFlag{Name: "time-zone", Value: "+00:00", Usage: "the server's time_zone, in which TIMESTAMP values are shown (+HH:MM, SYSTEM or a zone name)"},
			&cli.StringFlag{Name: "index", Usage: "read this secondary index instead (its columns, then the primary key's): what is left of them when the clustered index is damaged"},
			&cli.BoolFlag{Name: "uncommitted", Usage: "print a table that transactions the crash left uncommitted changed, as stored (their inserts, new values and delete marks; the server rolls them back)"},
			&cli.BoolFlag{Name: "deleted", Usage: "print the deleted rows still on disk instead (delete-marked records not yet purged, page free lists, images carved from unused page space), in key order, each key once; --json adds each row's source, page, offset and trx_id"},
			allowLiveFlag,
			&cli.StringFlag{Name: "frm", Usage: "with FILE.ibd: the table's .frm (default: the one beside the file; none: the SDI of a MySQL 8 file)"},
			&cli.BoolFlag{Name: "scan", Usage: "read every leaf page of the clustered index in file order instead of walking the B-tree (a damaged tree)"}),
		Action: rowsAction,
	}
}

func rowsAction(c *cli.Context) error {
	dir, name := c.Args().First(), c.Args().Get(1)
	if c.NArg() == 1 && c.IsSet("datadir") {
		dir, name = "", c.Args().First()
	} else if c.NArg() == 1 && strings.HasSuffix(strings.ToLower(dir), ".frm") {
		return fmt.Errorf("%s: a .frm holds the definition, not the rows: give the table's .ibd (innoscope rows FILE.ibd --frm %s)", dir, dir)
	} else if c.NArg() != 2 && !(c.NArg() == 1 && isTableFile(dir)) {
		return fmt.Errorf("expected DIR and DB.TABLE, or FILE.ibd [DB.TABLE], got %s", nArgs(c.NArg()))
	}
	format := c.String("format")
	if c.Bool("json") && c.IsSet("format") && format != "json" {
		return fmt.Errorf("--format %s and --json contradict each other (--json is --format json): give one of them", format)
	} else if c.Bool("json") {
		format = "json"
	}
	if (c.NArg() == 1 || c.NArg() == 2) && isTableFile(c.Args().First()) {
		if fi, err := os.Stat(c.Args().First()); c.NArg() == 1 || (err == nil && !fi.IsDir()) {
			return rowsFileAction(c, format, c.Args().Get(1)) // DB.TABLE: of a general tablespace
		}
	}
	db, table, ok := strings.Cut(name, ".")
	if !ok || db == "" || table == "" {
		return fmt.Errorf("%q: give the table as DB.TABLE", name)
	}
	s, err := loadSettings(c, dir)
	if err != nil {
		return err
	}
	if err := s.CheckDatadir(); err != nil {
		return err
	}
	if err := s.RefuseLogOnly("read rows from"); err != nil {
		return err
	}
	if err := refuseLive(c, s); err != nil {
		return err
	}
	tz, err := rows.ParseTimeZone(c.String("time-zone"))
	if err != nil {
		return err
	}
	if asOfRequested(c) {
		return rowsAsOf(c, s, db, table, format, tz)
	}
	// A running server's checkpoint lags what its files hold: with --allow-live they are read as they are.
	opt := rows.Options{Format: format, Scan: c.Bool("scan"), Index: c.String("index"), Uncommitted: c.Bool("uncommitted"), Deleted: c.Bool("deleted"), TimeZone: tz, AllowCrashed: c.Bool("allow-live")}
	res, err := rows.Dump(s, db, table, opt, bufio.NewWriterSize(c.App.Writer, 1<<16))
	if err != nil {
		// No redo log to tell whether the directory is consistent: the table's own file still
		// reads (the definition from its .frm or SDI).
		ibd := filepath.Join(s.Datadir, schema.FileName(db), schema.FileName(table)+".ibd")
		if _, serr := os.Stat(ibd); serr == nil && errors.Is(err, redo.ErrNoLog) {
			return fmt.Errorf("%v; the table's own file reads without it: innoscope rows %s", err, ibd)
		}
		return err
	}
	if !opt.Deleted && opt.Index == "" {
		// The hint names the command as the user typed it (a secondary index's delete-marked
		// records are no deleted rows: --index gives none).
		shown := dir
		if shown == "" {
			shown = s.Datadir
		}
		view.RowsHint(c.App.ErrWriter, rows.DeletedHint(res, shown, name))
	}
	if view.RowsLost(c.App.ErrWriter, res) {
		return errFindings
	}
	return nil
}
