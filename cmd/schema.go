package cmd

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"innoscope/discovery"
	"innoscope/schema"
)

func schemaCommand() *cli.Command {
	return &cli.Command{
		Name:      "schema",
		Usage:     "print a table's CREATE TABLE statement from its own files: its .frm, or the SDI inside a MySQL 8 .ibd",
		ArgsUsage: "FILE.frm | FILE.ibd",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "one JSON object: the table, the file and the statement"}},
		Action:    schemaAction,
	}
}

func schemaAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return fmt.Errorf("expected FILE.ibd, got %s", nArgs(c.NArg()))
	}
	path := c.Args().First()
	frm := ""
	switch {
	case strings.HasSuffix(strings.ToLower(path), ".frm"):
		frm = path
	case isTableFile(path):
		if f := schema.FrmBeside(path); f != "" {
			frm = f
		}
	default:
		return fmt.Errorf("%s: give a table's .frm (MariaDB, MySQL 5.x) or .ibd file (MySQL 8: the statement is read from the SDI inside it)", path)
	}
	if frm != "" {
		name := discovery.SQLName(schema.TableOf(strings.TrimSuffix(filepath.Base(frm), filepath.Ext(frm))))
		stmt, err := schema.CreateTableFrm(frm, name)
		if err != nil {
			return err
		}
		return printSchema(c, frm, discovery.SQLName(filepath.Base(filepath.Dir(frm))), name, 0, stmt)
	}
	_, obj, err := schema.FromSDI(path)
	if err != nil {
		return err
	}
	return printSchema(c, path, obj.Table.SchemaRef, obj.Table.Name, obj.MysqldVersionID, schema.CreateTable(&obj.Table))
}

// printSchema writes the statement, or with --json an object naming its source.
func printSchema(c *cli.Context, path, db, table string, version int, stmt string) error {
	if c.Bool("json") {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		m := map[string]any{"file": path, "database": db, "table": table, "create_table": stmt}
		if version != 0 {
			m["mysqld_version_id"] = version
		}
		return enc.Encode(m)
	}
	_, err := fmt.Fprintln(c.App.Writer, stmt+";")
	return err
}
