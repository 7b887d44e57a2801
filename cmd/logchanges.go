package cmd

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"innoscope/changes"
	"innoscope/replay"
	"innoscope/report/view"
)

// logChangesCommand is `log changes`: the row changes of the log's window, by transaction.
func logChangesCommand() *cli.Command {
	return &cli.Command{
		Name:      "changes",
		Usage:     "every row change in the log (MariaDB 10.8+) by transaction in commit order: LSN, table, insert/update/delete, values, committed/rolled back/open",
		ArgsUsage: "DIR",
		Description: "Replays the log in memory from the checkpoint (nothing is written) and follows the undo\n" +
			"records it appends (UNDO_APPEND): each change's table, operation, key and an update's old\n" +
			"values; its row (an insert's or update's new row, a delete's old row) from the table's page\n" +
			"right after the change, the record found by its DB_TRX_ID and DB_ROLL_PTR; its transaction's\n" +
			"state at the end of the log from the undo log header (committed, rolled back, open, prepared).\n" +
			"What cannot be read exactly (a page written back before the change, a value stored off page,\n" +
			"a table not in the dictionary) is said per change in the inexact column, never guessed.\n" +
			"--format sql writes the statements that redo the committed transactions on the state at the\n" +
			"window's start; with --reverse, those that undo them, newest first (flashback); a change\n" +
			"without an exact statement is a comment. Only MariaDB 10.8+ logs are read: another format is\n" +
			"refused (exit 2).",
		Flags: append(append([]cli.Flag{}, dirFlags()...),
			&cli.Uint64Flag{Name: "from-lsn", Usage: "only changes from this LSN on (0: the checkpoint)"},
			&cli.Uint64Flag{Name: "to-lsn", Usage: "stop before the first mini-transaction starting at or after this LSN"},
			&cli.StringFlag{Name: "table", Usage: "only the changes of this table (DB.TABLE)"},
			&cli.StringFlag{Name: "format", Value: "tsv", Usage: "tsv (one line a change), json (the transactions) or sql (statements)"},
			&cli.BoolFlag{Name: "past-damage", Usage: "read on past a damaged mini-transaction to the whole ones after it: what a recovery stopping at the damage loses (the loss ledger of diagnose)"},
			&cli.BoolFlag{Name: "reverse", Usage: "with --format sql: the statements that undo the committed transactions, newest first"}),
		Action: logChanges,
	}
}

func logChanges(c *cli.Context) error {
	if c.NArg() > 1 {
		return fmt.Errorf("expected one DIR argument, got %s", nArgs(c.NArg()))
	}
	format := c.String("format")
	if c.Bool("json") {
		format = "json"
	}
	switch {
	case format != "tsv" && format != "json" && format != "sql":
		return fmt.Errorf("--format %q: give tsv, json or sql", format)
	case c.Bool("reverse") && format != "sql":
		return fmt.Errorf("--reverse gives statements: add --format sql")
	}
	opt := replay.ChangesOptions{From: c.Uint64("from-lsn"), To: c.Uint64("to-lsn"), PastDamage: c.Bool("past-damage")}
	if name := c.String("table"); name != "" {
		db, tb, ok := strings.Cut(name, ".")
		if !ok || db == "" || tb == "" {
			return fmt.Errorf("--table %q: give the table as DB.TABLE", name)
		}
		opt.DB, opt.Table = db, tb
	}
	s, err := settingsOf(c)
	if err != nil {
		return err
	}
	var missed int
	if format == "json" || c.Bool("reverse") { // one document, or newest first: all at once
		trxs, err := replay.LogChanges(s, opt)
		if err != nil {
			return err
		}
		if missed, err = view.LogChanges(c.App.Writer, trxs, format, c.Bool("reverse")); err != nil {
			return err
		}
	} else { // each transaction as soon as it is known: memory holds the open ones only
		w, err := view.NewChangeStream(c.App.Writer, format, false)
		if err != nil {
			return err
		}
		// formatted and written on another goroutine (core) while the log is read on
		queue, written := make(chan *changes.Trx, 64), make(chan struct{})
		go func() {
			defer close(written)
			for t := range queue {
				w.Trx(t)
				t.Release()
			}
		}()
		err = replay.LogChangesTo(s, opt, func(t *changes.Trx) error {
			queue <- t
			return nil
		})
		close(queue)
		<-written
		if err != nil { // what is still buffered is not written (all of it, for a refusal)
			return err
		}
		if missed, err = w.Close(); err != nil {
			return err
		}
	}
	if missed > 0 {
		fmt.Fprintf(c.App.ErrWriter, "innoscope: %d change(s) have no exact statement (see the comments)\n", missed)
	}
	return nil
}
