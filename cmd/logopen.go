package cmd

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/logformat/redo"
)

// openRedo opens the log named by the command's DIR|FILE argument (or --datadir), read-only,
// with the innodb_page_size its records are checked against.
func openRedo(c *cli.Context) (*redo.Log, error) { return openLogArg(c, analysis.OpenLog) }

// openLogArg is openRedo with open as the opener (analysis.OpenLogHeader for log header).
func openLogArg(c *cli.Context, open func(discovery.Layout, string) (*redo.Log, error)) (*redo.Log, error) {
	if c.NArg() > 1 {
		return nil, fmt.Errorf("expected one DIR or FILE argument, got %s", nArgs(c.NArg()))
	}
	s, err := settingsOf(c)
	if err != nil {
		return nil, err
	}
	return open(s, c.Args().First())
}

// settingsOf loads the settings for the command's DIR|FILE argument (a file's directory).
func settingsOf(c *cli.Context) (discovery.Layout, error) {
	arg := c.Args().First()
	if fi, err := os.Stat(arg); arg != "" && err == nil && fi.Mode().IsRegular() {
		arg = filepath.Dir(arg)
	}
	return loadSettings(c, arg)
}
