package cmd

import (
	"strings"

	"github.com/urfave/cli/v2"

	"innoscope/discovery"
)

// locationFlags are the server's location settings, as mariadbd spells them.
var locationFlags = []cli.Flag{
	&cli.StringFlag{Name: "datadir", Usage: "data directory (instead of the DIR argument)"},
	&cli.StringFlag{Name: "innodb-data-home-dir", Usage: "directory of the system tablespace files"},
	&cli.StringFlag{Name: "innodb-data-file-path", Usage: "system tablespace files, e.g. ibdata1:12M:autoextend"},
	&cli.StringFlag{Name: "innodb-directories", Usage: "extra datafile directories, ';'-separated"},
	&cli.StringFlag{Name: "innodb-undo-directory", Usage: "directory of the undo tablespaces"},
	&cli.StringFlag{Name: "innodb-log-group-home-dir", Usage: "directory of ib_logfile0"},
	&cli.StringFlag{Name: "innodb-page-size", Usage: "innodb_page_size (default: read from the system tablespace)"},
	&cli.StringFlag{Name: "defaults-file", Usage: "read the settings above from this my.cnf as mariadbd does (its groups, !include, !includedir)"},
}

// loadSettings is the server's layout from --defaults-file, the flags and the DIR argument
// (which wins for the data directory).
func loadSettings(c *cli.Context, dirArg string) (discovery.Layout, error) {
	opt := map[string]string{}
	for _, name := range discovery.LayoutOptions {
		if flag := strings.ReplaceAll(name, "_", "-"); c.IsSet(flag) {
			opt[name] = c.String(flag)
		}
	}
	return discovery.Settings{DefaultsFile: c.String("defaults-file"), Options: opt, Dir: dirArg, Notes: c.App.ErrWriter}.Resolve()
}

// locationArgs are the location flags given to the command, other than the data directory,
// as a command line that repeats them spells them ("--innodb-undo-directory=/u").
func locationArgs(c *cli.Context) []string {
	var out []string
	for _, f := range locationFlags {
		if n := f.Names()[0]; n != "datadir" && c.IsSet(n) {
			out = append(out, "--"+n+"="+c.String(n))
		}
	}
	return out
}

// absFlag is the value of a path flag (--into, --keep, --tmpdir, --external-dir), made
// absolute where it is read.
func absFlag(c *cli.Context, name string) string { return discovery.AbsPath(c.String(name)) }
