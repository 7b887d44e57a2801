package cmd

import (
	"fmt"
	"os"
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
	if p := c.String("defaults-file"); p != "" {
		var err error
		if opt, err = discovery.ReadMyCnf(p); err != nil {
			return discovery.Layout{}, err
		}
	}
	for _, name := range discovery.LayoutOptions {
		if flag := strings.ReplaceAll(name, "_", "-"); c.IsSet(flag) {
			opt[name] = c.String(flag)
		}
	}
	if dirArg != "" {
		if c.IsSet("datadir") && !sameDir(dirArg, c.String("datadir")) {
			return discovery.Layout{}, fmt.Errorf("DIR %s and --datadir %s name different directories: give one", dirArg, c.String("datadir"))
		}
		opt["datadir"] = dirArg
	}
	if opt["datadir"] == "" {
		return discovery.Layout{}, fmt.Errorf("no data directory: give DIR, --datadir or a --defaults-file with datadir")
	}
	return discovery.NewLayout(opt)
}

// sameDir reports whether a and b name the same directory (the same path, or one reached
// through a symbolic link).
func sameDir(a, b string) bool {
	if discovery.AbsPath(a) == discovery.AbsPath(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// absFlag is the value of a path flag (--into, --keep, --tmpdir, --external-dir), made
// absolute where it is read.
func absFlag(c *cli.Context, name string) string { return discovery.AbsPath(c.String(name)) }
