// Package clikit is how innoscope's command line behaves on top of urfave/cli v2, apart from
// any command: flags may follow the arguments (HoistFlags), and a mistyped name is answered
// with the one most likely meant (Suggest).
package clikit

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// HoistFlags lets flags follow positional arguments (`log records DIR --type FILE_*`), which
// urfave/cli v2 does not parse: it finds the command path in args and moves the flags of the
// final command before its positional arguments, keeping each flag's value with it. A flag that
// takes a value but ends the command line is an error (it would otherwise take the "--" that
// separates the positional arguments as its value).
func HoistFlags(app *cli.App, args []string) ([]string, error) {
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

// Suggest is the candidate a mistyped name most likely meant, or "": the nearest by edit
// distance (a swap of two neighbouring letters counts as one edit), when it is within about one
// edit in four letters, else the one candidate the name begins (at least three letters).
// Garbage suggests nothing.
func Suggest(typed string, candidates []string) string {
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
