package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// suggest is the candidate a mistyped name most likely meant, or "": the nearest by edit
// distance (a swap of two neighbouring letters counts as one edit), when it is within about one
// edit in four letters, else the one candidate the name begins (at least three letters).
// Garbage suggests nothing.
func suggest(typed string, candidates []string) string {
	best, bestD := "", 0
	for _, c := range candidates {
		if d := editDistance(typed, c); d <= max(1, len(typed)/4) && (best == "" || d < bestD) {
			best, bestD = c, d
		}
	}
	if best != "" || len(typed) < 3 {
		return best
	}
	for _, c := range candidates {
		if strings.HasPrefix(c, typed) {
			if best != "" {
				return "" // ambiguous
			}
			best = c
		}
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b: insertions, deletions,
// substitutions and transpositions of neighbouring bytes, each one edit.
func editDistance(a, b string) int {
	prev2, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

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
	if s := suggest(name, names); s != "" {
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
	if s := suggest(typed, names); s != "" {
		return ": did you mean --" + s + "?"
	}
	return ""
}
