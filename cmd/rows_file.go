package cmd

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"innoscope/report/view"
	"innoscope/rows"
	"innoscope/schema"
)

// isTableFile: the argument of `rows FILE.ibd` (a table's own tablespace file).
func isTableFile(arg string) bool { return strings.HasSuffix(strings.ToLower(arg), ".ibd") }

// rowsFileAction is `rows FILE.ibd [DB.TABLE] [--frm FILE.frm]`: the rows of a table from its
// own files (name: a table of a MySQL general tablespace).
func rowsFileAction(c *cli.Context, format, name string) error {
	// Every other flag needs the data directory; none is ignored (--deleted was).
	fileFlags := map[string]bool{"json": true, "format": true, "time-zone": true, "frm": true, "scan": true}
	for _, fl := range c.Command.Flags {
		if f := fl.Names()[0]; !fileFlags[f] && c.IsSet(f) {
			return fmt.Errorf("--%s needs the data directory (DIR DB.TABLE): FILE.ibd reads a table's clustered index from its own files", f)
		}
	}
	def, err := schema.FromFile(c.Args().First(), c.String("frm"), name)
	if err != nil {
		return err
	}
	tz, err := rows.ParseTimeZone(c.String("time-zone"))
	if err != nil {
		return err
	}
	opt := rows.Options{Format: format, Scan: c.Bool("scan"), TimeZone: tz}
	res, err := rows.DumpTable(def, opt, bufio.NewWriterSize(c.App.Writer, 1<<16))
	if err != nil {
		return err
	}
	if view.RowsLost(c.App.ErrWriter, res) {
		return errFindings
	}
	return nil
}
