package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"innoscope/discovery"
	"innoscope/schema"
)

func schemaCommand() *cli.Command {
	return &cli.Command{
		Name:      "schema",
		Usage:     "print a table's CREATE TABLE statement from its own files: its .frm, or the SDI inside a MySQL 8 .ibd",
		ArgsUsage: "FILE.frm | FILE.ibd | DIR [DB.TABLE]",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "JSON: per table an object with the database, the table, the file and the statement"}},
		Action:    schemaAction,
	}
}

// schemaSource is one table's statement and where it was read.
type schemaSource struct {
	File    string `json:"file"`
	DB      string `json:"database"`
	Table   string `json:"table"`
	Version int    `json:"mysqld_version_id,omitempty"`
	Create  string `json:"create_table"`
}

func schemaAction(c *cli.Context) error {
	if c.NArg() < 1 || c.NArg() > 2 {
		return fmt.Errorf("expected FILE.frm, FILE.ibd, or DIR [DB.TABLE], got %s", nArgs(c.NArg()))
	}
	path := c.Args().First()
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		files, err := schemaFiles(path, c.Args().Get(1))
		if err != nil {
			return err
		}
		var out []schemaSource
		for _, f := range files {
			s, err := schemaOf(f)
			if err != nil {
				return err
			}
			out = append(out, s)
		}
		return printSchemas(c, out, true)
	}
	if c.NArg() != 1 {
		return fmt.Errorf("%s: DB.TABLE goes with a data directory; a file names its table itself", path)
	}
	s, err := schemaOf(path)
	if err != nil {
		return err
	}
	return printSchemas(c, []schemaSource{s}, false)
}

// schemaFiles lists the files the statements of DIR are read from: the table's .frm (or its
// .ibd without one: MySQL 8) of DB.TABLE, or of every table in DIR's database directories.
func schemaFiles(dir, name string) ([]string, error) {
	if name != "" {
		db, table, ok := strings.Cut(name, ".")
		if !ok || db == "" || table == "" {
			return nil, fmt.Errorf("%q: give the table as DB.TABLE", name)
		}
		base := filepath.Join(dir, schema.FileName(db), schema.FileName(table))
		for _, ext := range []string{".frm", ".ibd"} {
			if _, err := os.Stat(base + ext); err == nil {
				return []string{base + ext}, nil
			}
		}
		return nil, fmt.Errorf("%s: neither %s.frm nor %s.ibd is there: is %s the data directory, and %s the table's name?", dir, base, base, dir, name)
	}
	var out []string
	dbs, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, d := range dbs {
		switch d.Name() {
		case "mysql", "sys", "performance_schema", "#innodb_redo", "#innodb_temp":
			continue // the server's own tables
		}
		if !d.IsDir() {
			continue
		}
		sub := filepath.Join(dir, d.Name())
		frms, _ := filepath.Glob(filepath.Join(sub, "*.frm"))
		ibds, _ := filepath.Glob(filepath.Join(sub, "*.ibd"))
		have := map[string]bool{}
		for _, f := range frms {
			have[strings.TrimSuffix(f, ".frm")] = true
			out = append(out, f)
		}
		for _, f := range ibds {
			t := schema.TableOf(strings.TrimSuffix(f, ".ibd"))
			if !have[t] && !strings.Contains(strings.ToUpper(f), "#P#") && !strings.HasPrefix(strings.ToLower(filepath.Base(f)), "fts_") {
				out = append(out, f)
			}
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no .frm or .ibd file in its database directories: give the data directory", dir)
	}
	return out, nil
}

// schemaOf reads the statement of the table of a .frm, or of an .ibd (its .frm beside it, else
// the SDI inside it).
func schemaOf(path string) (schemaSource, error) {
	frm := ""
	switch {
	case strings.HasSuffix(strings.ToLower(path), ".frm"):
		frm = path
	case isTableFile(path):
		frm = schema.FrmBeside(path)
	default:
		return schemaSource{}, fmt.Errorf("%s: give a table's .frm (MariaDB, MySQL 5.x) or .ibd file (MySQL 8: the statement is read from the SDI inside it), or a data directory", path)
	}
	if frm != "" {
		name := discovery.SQLName(schema.TableOf(strings.TrimSuffix(filepath.Base(frm), filepath.Ext(frm))))
		stmt, err := schema.CreateTableFrm(frm, name)
		if err != nil {
			return schemaSource{}, err
		}
		return schemaSource{File: frm, DB: discovery.SQLName(filepath.Base(filepath.Dir(frm))), Table: name, Create: stmt}, nil
	}
	obj, err := schema.ReadSDITable(path)
	if err != nil {
		return schemaSource{}, err
	}
	return schemaSource{File: path, DB: obj.Table.SchemaRef, Table: obj.Table.Name, Version: obj.MysqldVersionID, Create: schema.CreateTable(&obj.Table)}, nil
}

// printSchemas writes the statements (several: each after a comment naming its table and
// file), or with --json an object (a list for a directory).
func printSchemas(c *cli.Context, ss []schemaSource, list bool) error {
	if c.Bool("json") {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		if list {
			return enc.Encode(ss)
		}
		return enc.Encode(ss[0])
	}
	for i, s := range ss {
		if list {
			if i > 0 {
				fmt.Fprintln(c.App.Writer)
			}
			fmt.Fprintf(c.App.Writer, "-- %s.%s (%s)\n", s.DB, s.Table, s.File)
		}
		if _, err := fmt.Fprintln(c.App.Writer, s.Create+";"); err != nil {
			return err
		}
	}
	return nil
}
