package cmd

import (
	"bufio"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"innoscope/discovery"
	"innoscope/report/view"
	"innoscope/rows"
)

// asOfFlags are the flags of `rows` that build older versions of the rows from the undo logs.
var asOfFlags = []cli.Flag{
	&cli.Uint64Flag{Name: "as-of", Usage: "print the table as a consistent read at this `LSN` saw it (SHOW ENGINE INNODB STATUS's \"Log sequence number\"), " +
		"built from the undo logs; the commits are placed by the MariaDB 10.8+ redo log, and a point older than it or than the undo history is refused. " +
		"Not built: secondary indexes, virtual columns; a directory that needs crash recovery (recover it first)"},
	&cli.Uint64Flag{Name: "as-of-trx", Usage: "print the table just before transaction `ID` committed: its changes and those of every transaction that committed after it undone"},
	&cli.StringFlag{Name: "commit-log", Usage: "with --as-of: the redo log (`FILE` or its directory) that places the commits, when DIR's own no longer reaches back: " +
		"the crashed original's, when DIR is the copy `innoscope recover` made (its log starts anew)"},
	&cli.BoolFlag{Name: "versions", Usage: "print every version of each row the undo logs keep, newest first: the transaction that wrote it, its commit number " +
		"(or active, or purged), the change (insert, update, delete; unknown where older history was purged), then the values"},
}

// asOfRequested: one of the undo flags is given.
func asOfRequested(c *cli.Context) bool {
	return c.IsSet("as-of") || c.IsSet("as-of-trx") || c.Bool("versions")
}

// rowsAsOf runs `rows --as-of`, `--as-of-trx` or `--versions`.
func rowsAsOf(c *cli.Context, s discovery.Layout, db, table, format string, tz *time.Location) error {
	n := 0
	for _, f := range []string{"as-of", "as-of-trx", "versions"} {
		if c.IsSet(f) {
			n++
		}
	}
	switch {
	case n > 1:
		return fmt.Errorf("--as-of, --as-of-trx and --versions exclude each other: give one of them")
	case c.IsSet("commit-log") && !c.IsSet("as-of"):
		return fmt.Errorf("--commit-log places the commits for --as-of LSN: give --as-of, or drop --commit-log")
	case c.IsSet("index") || c.Bool("scan") || c.Bool("uncommitted") || c.Bool("allow-live"):
		return fmt.Errorf("--as-of, --as-of-trx and --versions read the clustered index through its B-tree, on files that need no crash recovery: " +
			"drop --index, --scan, --uncommitted and --allow-live (run `innoscope recover DIR --into COPY` first on a crashed directory)")
	}
	opt := rows.AsOf{LSN: c.Uint64("as-of"), UseLSN: c.IsSet("as-of"), Trx: c.Uint64("as-of-trx"), UseTrx: c.IsSet("as-of-trx"),
		Versions: c.Bool("versions"), CommitLog: c.String("commit-log"), Format: format, TimeZone: tz}
	res, err := rows.DumpAsOf(s, db, table, opt, bufio.NewWriterSize(c.App.Writer, 1<<16))
	if err != nil {
		return err
	}
	if view.RowsLost(c.App.ErrWriter, res) {
		return errFindings
	}
	return nil
}
