package cmd

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"innoscope/schema"
)

func schemaCommand() *cli.Command {
	return &cli.Command{
		Name:      "schema",
		Usage:     "print a table's CREATE TABLE statement from its own files (the SDI inside a MySQL 8 .ibd)",
		ArgsUsage: "FILE.ibd",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "one JSON object: the table, the file and the statement"}},
		Action:    schemaAction,
	}
}

func schemaAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return fmt.Errorf("expected FILE.ibd, got %s", nArgs(c.NArg()))
	}
	path := c.Args().First()
	if !isTableFile(path) {
		return fmt.Errorf("%s: give a table's .ibd file (MySQL 8: the statement is read from the SDI inside it; a .frm is not read yet)", path)
	}
	_, obj, err := schema.FromSDI(path)
	if err != nil {
		return err
	}
	stmt := schema.CreateTable(&obj.Table)
	if c.Bool("json") {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"file": path, "database": obj.Table.SchemaRef, "table": obj.Table.Name,
			"mysqld_version_id": obj.MysqldVersionID, "create_table": stmt})
	}
	_, err = fmt.Fprintln(c.App.Writer, strings.TrimRight(stmt, "\n")+";")
	return err
}
