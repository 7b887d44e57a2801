package cmd

import (
	"errors"
	"fmt"
	"innoscope/internal/clikit"
	"strings"

	"github.com/urfave/cli/v2"
)

// commandPath is "innoscope" and the names of the commands of c's lineage ("innoscope log").
func commandPath(c *cli.Context) string {
	var names []string
	for _, x := range c.Lineage() { // the command's own context first
		if x.Command != nil && x.Command.Name != "" && x.Command.Name != c.App.Name &&
			(len(names) == 0 || names[0] != x.Command.Name) {
			names = append([]string{x.Command.Name}, names...)
		}
	}
	return strings.TrimSpace(c.App.Name + " " + strings.Join(names, " "))
}

// subcommands are the commands under c's command (the app's at the top).
func subcommands(c *cli.Context) []*cli.Command {
	if c.Command != nil && len(c.Command.Subcommands) > 0 {
		return c.Command.Subcommands
	}
	return c.App.Commands
}

// unknownCommand is the error for a command name that is none of c's commands, with the
// nearest one when the name looks like a typo of it.
func unknownCommand(c *cli.Context, name string) error {
	var names []string
	for _, cmd := range subcommands(c) {
		if !cmd.Hidden {
			names = append(names, cmd.Name)
		}
	}
	path := commandPath(c)
	if s := clikit.Suggest(name, names); s != "" {
		return fmt.Errorf("unknown command %q: did you mean `%s %s`? (see %s --help)", name, path, s, path)
	}
	return fmt.Errorf("unknown command %q: the commands are %s (see %s --help)", name, strings.Join(names, ", "), path)
}

// missingCommand is the action of innoscope and of `innoscope log`, which need a command: with
// none, their help on stderr and exit 2 (a script whose command came out empty must not pass);
// with another word, the unknown command.
func missingCommand(c *cli.Context) error {
	if c.Args().Present() {
		return unknownCommand(c, c.Args().First())
	}
	w := c.App.Writer
	c.App.Writer = c.App.ErrWriter
	defer func() { c.App.Writer = w }()
	if c.Command != nil && len(c.Command.Subcommands) > 0 && c.Command.Name != c.App.Name {
		_ = cli.ShowSubcommandHelp(c)
	} else {
		_ = cli.ShowAppHelp(c)
	}
	return errors.New("no command given: " + commandPath(c) + " COMMAND ... (the commands are listed above)")
}

// flagSuggestion is " (did you mean --NAME?)" for the undefined flag an error of the flag parser
// names ("flag provided but not defined: -jsn"), when one of flags is near it; else "".
func flagSuggestion(err error, flags []cli.Flag) string {
	const undefined = "flag provided but not defined: "
	msg := err.Error()
	if !strings.HasPrefix(msg, undefined) {
		return ""
	}
	typed := strings.TrimLeft(strings.TrimPrefix(msg, undefined), "-")
	var names []string
	for _, f := range flags {
		for _, n := range f.Names() {
			if len(n) > 1 {
				names = append(names, n)
			}
		}
	}
	if s := clikit.Suggest(typed, names); s != "" {
		return ": did you mean --" + s + "?"
	}
	return ""
}
