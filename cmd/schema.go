package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"innoscope/discovery"
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
		files, err := schema.Files(path, c.Args().Get(1))
		if err != nil && c.Args().Get(1) == "" {
			return err
		}
		if err != nil {
			// No file of the table's (its .frm gone, its rows in the system tablespace): the
			// InnoDB dictionary's statement.
			s, derr := dictStatement(path, c.Args().Get(1))
			if derr != nil {
				return fmt.Errorf("%v; and from the InnoDB dictionary: %v", err, derr)
			}
			return printSchemas(c, []schema.Source{s}, true)
		}
		var out []schema.Source
		for _, f := range files {
			var ss []schema.Source
			if strings.HasSuffix(f, ".ibd") && schema.HasSDI(f) {
				// MySQL 8: the table named, or every table of a general tablespace.
				ss, err = schema.StatementsOf(f, c.Args().Get(1))
			} else {
				var s schema.Source
				s, err = schema.StatementOf(f)
				if err != nil && strings.HasSuffix(f, ".ibd") {
					// A MariaDB table's .ibd without its .frm: the InnoDB dictionary's statement.
					db, table := filepath.Base(filepath.Dir(f)), strings.TrimSuffix(filepath.Base(f), ".ibd")
					s, err = dictStatement(path, discovery.SQLName(db)+"."+discovery.SQLName(table))
				}
				ss = []schema.Source{s}
			}
			if err != nil {
				return err
			}
			for _, s := range ss {
				s.WithDataDirectory()
				out = append(out, s)
			}
		}
		return printSchemas(c, out, true)
	}
	ss, err := schema.StatementsOf(path, c.Args().Get(1)) // DB.TABLE: of a general tablespace
	if err != nil {
		return err
	}
	for i := range ss {
		ss[i].WithDataDirectory()
	}
	return printSchemas(c, ss, len(ss) > 1)
}

// printSchemas writes the statements (several: each after a comment naming its table and
// file), or with --json an object (a list for a directory).
func printSchemas(c *cli.Context, ss []schema.Source, list bool) error {
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

// dictStatement is the statement of table name ("DB.TABLE") of the data directory dir from the
// InnoDB dictionary in its system tablespace (schema.CreateTableDict).
func dictStatement(dir, name string) (schema.Source, error) {
	db, table, ok := strings.Cut(name, ".")
	if !ok || db == "" || table == "" {
		return schema.Source{}, fmt.Errorf("%q: give the table as DB.TABLE", name)
	}
	l, err := discovery.NewLayout(map[string]string{"datadir": dir})
	if err != nil {
		return schema.Source{}, err
	}
	stmt, err := schema.CreateTableDict(l, db, table)
	if err != nil {
		return schema.Source{}, err
	}
	sysDir, sys := l.SystemFile()
	return schema.Source{File: filepath.Join(sysDir, sys), DB: db, Table: table, Create: stmt}, nil
}
