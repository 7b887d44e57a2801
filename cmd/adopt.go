package cmd

import (
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"innoscope/adopt"
	"innoscope/report/view"
)

func adoptCommand() *cli.Command {
	return &cli.Command{
		Name:  "adopt",
		Usage: "write a kit that attaches orphan tables (their .ibd/.frm/.par files) to a fresh MariaDB server of the same major version",
		Description: "SRC are a table's files (FILE.ibd with its .frm beside, FILE.frm, a partitioned table's .frm/.par\n" +
			"and partition files) or a data directory followed by DB.TABLE names (none: all its tables).\n" +
			"The kit in --into DIR holds the copies of the files, 1-create.sql (CREATE TABLE without the\n" +
			"secondary keys, DISCARD TABLESPACE; a partitioned table's partitions through staging tables),\n" +
			"2-import.sql (IMPORT TABLESPACE, EXCHANGE PARTITION, the secondary keys added, CHECK TABLE) and\n" +
			"adopt.sh, which checks the server's version and page size, runs both and copies the files in\n" +
			"between (MariaDB imports a table without a .cfg file only with no secondary key; adopt writes\n" +
			"no .cfg). Nothing is written where the files are. A table that cannot be attached safely (a MySQL 8 file, another page size\n" +
			"or major version, encrypted, files missing) is refused with the reason and the next step\n" +
			"(its rows as SQL: innoscope rows FILE.ibd --format sql); exit 1 when a table is refused\n" +
			"(nothing is written when every table is).",
		ArgsUsage: "SRC... --into DIR [--frm FILE.frm]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "into", Usage: "the kit's directory (new or empty; not where the files are)"},
			&cli.StringFlag{Name: "server-version", Usage: "the target server's version, e.g. 10.11 (default: the version that wrote the .frm files)"},
			&cli.StringFlag{Name: "frm", Usage: "the .frm of the one table whose files are given, when it is not beside them"},
			&cli.IntFlag{Name: "page-size", Usage: "the target's innodb_page_size in bytes (default: the files'; adopt.sh checks the server's)"},
			&cli.BoolFlag{Name: "json", Usage: "JSON: the kit (its directory, target, and per table the files, statement, notes or refusal)"},
		},
		Action: adoptAction,
	}
}

func adoptAction(c *cli.Context) error {
	if c.NArg() == 0 {
		return fmt.Errorf("expected SRC... (a table's .ibd/.frm files, or DIR DB.TABLE...), got none")
	}
	if c.String("into") == "" {
		return fmt.Errorf("give --into DIR: the new directory the kit is written to")
	}
	k, err := adopt.Plan(c.Args().Slice(), adopt.Options{ServerVersion: c.String("server-version"), PageSize: c.Int("page-size"), Frm: c.String("frm")})
	if err != nil {
		return err
	}
	if err := k.Write(c.String("into")); err != nil {
		return err
	}
	if c.Bool("json") {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		if err := enc.Encode(k); err != nil {
			return err
		}
	} else {
		view.AdoptKit(c.App.Writer, k)
	}
	if len(k.Attached()) < len(k.Tables) {
		return errFindings
	}
	return nil
}
