package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// idFlag is the value of a space-id or page-number flag, -1 when it is not given. A given value
// must be an unsigned 32-bit number: -1 or 2^32 would otherwise silently mean "every".
func idFlag(c *cli.Context, name string) (int64, error) {
	if !c.IsSet(name) {
		return -1, nil
	}
	v := c.Int64(name)
	if v < 0 || v > 0xFFFFFFFF {
		return 0, fmt.Errorf("--%s %d: give a number from 0 to 4294967295", name, v)
	}
	return v, nil
}

// dirArg checks the arguments of a command that takes one data directory: DIR, or none with
// --datadir or --defaults-file. A second word, when valueFlag (recover's --into, verify's
// --keep, report's --out) is not given, is answered with that flag: `recover DIR COPY` meant
// --into COPY.
func dirArg(c *cli.Context, valueFlag string) error {
	n := c.NArg()
	switch {
	case n == 1 || n == 0 && (c.IsSet("datadir") || c.IsSet("defaults-file")):
		return nil
	case n == 0:
		return errors.New("expected one DIR argument (the data directory)")
	case n == 2 && valueFlag != "" && !c.IsSet(valueFlag):
		dir, extra := c.Args().Get(0), c.Args().Get(1)
		return fmt.Errorf("expected one DIR argument, got a second one, %s: did you mean --%s %s? (%s %s --%s %s)",
			extra, valueFlag, extra, commandPath(c), dir, valueFlag, extra)
	}
	return fmt.Errorf("expected one DIR argument, got %s: %s", nArgs(n), strings.Join(c.Args().Slice(), " "))
}
