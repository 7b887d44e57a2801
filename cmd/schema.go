package cmd

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"innoscope/schema"
)

func schemaCommand() *cli.Command {
	return &cli.Command{
		Name:      "schema",
		Usage:     "print a table's CREATE TABLE statement from its own files: its .frm, or the SDI inside a MySQL 8 .ibd; with DIR DB.TABLE and the .frm gone, from the InnoDB dictionary in ibdata1",
		ArgsUsage: "FILE.frm | FILE.ibd [DB.TABLE] | DIR [DB.TABLE]",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "JSON: per table an object with the database, the table, the file and the statement"}},
		Action:    schemaAction,
	}
}

func schemaAction(c *cli.Context) error {
	if c.NArg() < 1 || c.NArg() > 2 {
		return fmt.Errorf("expected FILE.frm, FILE.ibd, or DIR [DB.TABLE], got %s", nArgs(c.NArg()))
	}
	path := c.Args().First()
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		ss, skipped, err := schema.DirStatements(path, c.Args().Get(1))
		if err != nil {
			return err
		}
		if c.Args().Get(1) == "" && !c.Bool("json") {
			// The whole directory as one script: tables in any order (foreign keys), each
			// after its database.
			fmt.Fprintln(c.App.Writer, "SET FOREIGN_KEY_CHECKS=0;")
		}
		if err := printSchemas(c, ss, true, c.Args().Get(1) == ""); err != nil {
			return err
		}
		for _, e := range skipped {
			fmt.Fprintf(c.App.ErrWriter, "innoscope: skipped: %v\n", e)
		}
		if len(skipped) > 0 {
			return errFindings // the others are printed
		}
		return nil
	}
	ss, err := schema.StatementsOf(path, c.Args().Get(1)) // DB.TABLE: of a general tablespace
	if err != nil {
		return err
	}
	for i := range ss {
		ss[i].WithDataDirectory()
	}
	return printSchemas(c, ss, len(ss) > 1, false)
}

// printSchemas writes the statements (several: each after a comment naming its table and
// file; with use, a USE of its database where the database changes), or with --json an object
// (a list for a directory).
func printSchemas(c *cli.Context, ss []schema.Source, list, use bool) error {
	if c.Bool("json") {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		if list {
			return enc.Encode(ss)
		}
		return enc.Encode(ss[0])
	}
	db := ""
	for i, s := range ss {
		if list {
			if i > 0 {
				fmt.Fprintln(c.App.Writer)
			}
			fmt.Fprintf(c.App.Writer, "-- %s.%s (%s)\n", s.DB, s.Table, s.File)
		}
		if use && s.DB != db {
			db = s.DB
			q := schema.QuoteName(db)
			fmt.Fprintf(c.App.Writer, "CREATE DATABASE IF NOT EXISTS %s;\nUSE %s;\n", q, q)
		}
		if _, err := fmt.Fprintln(c.App.Writer, s.Create+";"); err != nil {
			return err
		}
	}
	return nil
}
