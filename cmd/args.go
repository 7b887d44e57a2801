package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// hoistFlags lets flags follow positional arguments (`log records DIR --type FILE_*`), which
// urfave/cli v2 does not parse: it finds the command path in args and moves the flags of the
// final command before its positional arguments, keeping each flag's value with it. A flag that
// takes a value but ends the command line is an error (it would otherwise take the "--" that
// separates the positional arguments as its value).
func hoistFlags(app *cli.App, args []string) ([]string, error) {
	if len(args) < 2 {
		return args, nil
	}
	cmds := app.Commands
	i := 1
	var cur *cli.Command
	for ; i < len(args); i++ {
		var next *cli.Command
		for _, c := range cmds {
			if c.HasName(args[i]) {
				next = c
			}
		}
		if next == nil {
			break
		}
		cur, cmds = next, next.Subcommands
	}
	if cur == nil || len(cur.Subcommands) > 0 {
		return args, nil
	}
	takesValue := map[string]bool{}
	for _, f := range cur.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	out := append([]string{}, args[:i]...)
	var pos []string
	for j := i; j < len(args); j++ {
		a := args[j]
		switch {
		case a == "--":
			pos = append(pos, args[j+1:]...)
			j = len(args)
		case strings.HasPrefix(a, "-") && a != "-":
			out = append(out, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue[name] {
				if j+1 == len(args) || args[j+1] == "--" {
					return nil, fmt.Errorf("flag needs an argument: %s", a)
				}
				j++
				out = append(out, args[j])
			}
		default:
			pos = append(pos, a)
		}
	}
	if len(pos) > 0 {
		out = append(append(out, "--"), pos...)
	}
	return out, nil
}

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
