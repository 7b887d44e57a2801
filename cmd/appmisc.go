package cmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"innoscope/finding"
	"innoscope/report"
)

// prepareCommands gives every command of the tree the same usage-error handling (one line,
// not the whole help) and sets the colour mode from --color before a command runs.
func prepareCommands(cmds []*cli.Command) {
	for _, c := range cmds {
		c.OnUsageError = usageError
		if len(c.Subcommands) > 0 {
			c.Action = missingCommand // `innoscope log` alone, or `innoscope log recrods`
			prepareCommands(c.Subcommands)
			continue
		}
		// No `help`/`h` subcommand: a data directory of that name is an argument like any other.
		c.HideHelpCommand = true
		c.Before = func(c *cli.Context) error {
			if c.IsSet("fail-on") { // a bad value is refused before the work, not after it
				if _, err := finding.ParseSeverity(c.String("fail-on")); err != nil {
					return fmt.Errorf("--fail-on: %w", err)
				}
			}
			if m := c.String("color"); m != "" {
				return report.SetColor(m)
			}
			return nil
		}
	}
}

// usageError is a bad flag or argument: one line naming where the help is, and the flag meant
// when an undefined one looks like a typo of it.
func usageError(c *cli.Context, err error, _ bool) error {
	var flags []cli.Flag
	if c.Command != nil {
		flags = c.Command.Flags
	}
	return fmt.Errorf("%v%s (see %s --help)", err, flagSuggestion(err, flags), commandPath(c))
}

// helpTopic turns `innoscope help CMD [SUB]` into `innoscope CMD [SUB] --help`.
func helpTopic(args []string) []string {
	if len(args) < 2 || args[1] != "help" {
		return args
	}
	if len(args) == 2 {
		return []string{args[0], "--help"}
	}
	return append(append([]string{args[0]}, args[2:]...), "--help")
}

// wantsJSON tells whether the command line asked for JSON output.
func wantsJSON(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" || a == "-json" || a == "--json=true" {
			return true
		}
	}
	return false
}

// nArgs is "1 argument" or "N arguments".
func nArgs(n int) string {
	if n == 1 {
		return "1 argument"
	}
	return fmt.Sprintf("%d arguments", n)
}
