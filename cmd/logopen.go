package cmd

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"innoscope/discovery"
	"innoscope/logformat/redo"
)

// logLocation is where the log named by the command's DIR|FILE argument (or --datadir) is,
// with the settings.
func logLocation(c *cli.Context) (redo.Location, discovery.Layout, error) {
	arg := c.Args().First()
	if c.NArg() > 1 {
		return redo.Location{}, discovery.Layout{}, fmt.Errorf("expected one DIR or FILE argument, got %d", c.NArg())
	}
	s, err := settingsOf(c)
	if err != nil {
		return redo.Location{}, s, err
	}
	if arg == "" {
		arg = s.Datadir
	}
	return redoLocation(s, discovery.AbsPath(arg)), s, nil
}

// redoLocation is the log at arg (a data directory or a file) under the settings s.
func redoLocation(s discovery.Layout, arg string) redo.Location {
	return redo.Location{Arg: arg, Datadir: s.Datadir, LogDir: s.LogDir}
}

// openRedo opens the log named by the command's DIR|FILE argument (or --datadir), read-only,
// with the innodb_page_size its records are checked against.
func openRedo(c *cli.Context) (*redo.Log, error) {
	w, s, err := logLocation(c)
	if err != nil {
		return nil, err
	}
	l, err := redo.Open(w)
	if err != nil {
		return nil, err
	}
	l.PageSize, l.PageSizeSource = pageSizeOf(s)
	return l, nil
}

// settingsOf loads the settings for the command's DIR|FILE argument (a file's directory).
func settingsOf(c *cli.Context) (discovery.Layout, error) {
	arg := c.Args().First()
	if fi, err := os.Stat(arg); arg != "" && err == nil && fi.Mode().IsRegular() {
		arg = filepath.Dir(arg)
	}
	return loadSettings(c, arg)
}

// pageSizeOf is innodb_page_size: the flag, else the system tablespace's, else 16 KiB; and
// where it came from.
func pageSizeOf(s discovery.Layout) (int, string) {
	if s.PageSize != 0 {
		return s.PageSize, "flag"
	}
	if n, err := discovery.SystemPageSize(s.SystemFile()); err == nil {
		return n, "system tablespace"
	}
	return 16384, "default"
}
