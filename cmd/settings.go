package cmd

import (
	"fmt"
	"os"
	"path/filepath"
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
	cnf := c.String("defaults-file")
	if cnf != "" {
		var err error
		if opt, err = discovery.ReadMyCnf(cnf); err != nil {
			return discovery.Layout{}, err
		}
	}
	fromCnf := map[string]bool{}
	for _, name := range discovery.LayoutOptions {
		if flag := strings.ReplaceAll(name, "_", "-"); c.IsSet(flag) {
			opt[name] = c.String(flag)
		} else if opt[name] != "" {
			fromCnf[name] = true
		}
	}
	if dirArg != "" {
		if c.IsSet("datadir") && !sameDir(dirArg, c.String("datadir")) {
			return discovery.Layout{}, fmt.Errorf("DIR %s and --datadir %s name different directories: give one", dirArg, c.String("datadir"))
		}
		if fromCnf["datadir"] && !sameDir(dirArg, opt["datadir"]) {
			if err := otherDatadir(c, dirArg, cnf, opt, fromCnf); err != nil {
				return discovery.Layout{}, err
			}
		}
		opt["datadir"] = dirArg
	}
	if opt["datadir"] == "" && cnf == "" {
		return discovery.Layout{}, fmt.Errorf("no data directory: give DIR, --datadir or a --defaults-file")
	}
	if opt["datadir"] == "" { // as the server started with that my.cnf: its built-in one
		opt["datadir"] = discovery.DefaultDatadir
		fmt.Fprintf(c.App.ErrWriter, "innoscope: note: %s sets no datadir (nor do the flags): reading the server's built-in default %s, as mariadbd does (mariadbd --help --verbose | grep ^datadir)\n",
			cnf, discovery.DefaultDatadir)
	}
	return discovery.NewLayout(opt)
}

// cnfDirs are the location settings whose absolute value names a directory of the server
// the my.cnf describes, whatever the data directory.
var cnfDirs = []string{"innodb_data_home_dir", "innodb_log_group_home_dir", "innodb_undo_directory", "innodb_directories"}

// otherDatadir judges DIR given with a --defaults-file whose datadir is another directory (a
// copy of the server's data directory, read with its my.cnf): refused when the my.cnf places
// files outside the data directory by an absolute path (they would be read with DIR's files:
// the server's own redo log or undo tablespaces with a copy's datafiles), else a note that DIR
// is read instead.
func otherDatadir(c *cli.Context, dirArg, cnf string, opt map[string]string, fromCnf map[string]bool) error {
	for _, name := range cnfDirs {
		if !fromCnf[name] {
			continue
		}
		for _, d := range strings.Split(opt[name], ";") {
			if filepath.IsAbs(strings.TrimSpace(d)) {
				return fmt.Errorf("DIR %s is not the datadir %s of %s, whose %s=%s would be read with DIR's files: "+
					"give --%s for DIR's own (or --datadir alone without --defaults-file)",
					dirArg, opt["datadir"], cnf, name, opt[name], strings.ReplaceAll(name, "_", "-"))
			}
		}
	}
	fmt.Fprintf(c.App.ErrWriter, "innoscope: note: reading DIR %s, not the datadir %s of %s (its other settings apply)\n",
		dirArg, opt["datadir"], cnf)
	return nil
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
