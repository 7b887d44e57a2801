package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"innoscope/finding"
	"innoscope/logformat"
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

// jsonError is what a failed command prints on stdout with --json.
type jsonError struct {
	Error  string  `json:"error"`
	File   *string `json:"file"`   // null when no file is concerned
	Offset *int64  `json:"offset"` // null when not known
	LSN    *uint64 `json:"lsn,omitempty"`
}

// printJSONError prints err as one JSON object, with the file, byte offset and LSN an
// error of the log's format carries, else the file (and offset) the message starts with, else
// the file of an OS error it wraps (*fs.PathError).
func printJSONError(w io.Writer, err error) {
	j := jsonError{Error: err.Error()}
	var fe *logformat.FormatError
	if errors.As(err, &fe) {
		j.File = &fe.File
		if fe.Offset >= 0 {
			off := fe.Offset
			j.Offset = &off
		}
		if fe.LSN != 0 {
			lsn := fe.LSN
			j.LSN = &lsn
		}
	} else if f := fileOf(err.Error()); f != "" {
		j.File = &f
		if off, ok := offsetOf(err.Error()[len(f)+2:]); ok {
			j.Offset = &off
		}
	} else if pe := (*fs.PathError)(nil); errors.As(err, &pe) && pe.Path != "" { // "stat /x: no such file"
		f := pe.Path
		if a, err := filepath.Abs(f); err == nil {
			f = a
		}
		j.File = &f
	}
	b, _ := json.Marshal(j)
	fmt.Fprintf(w, "%s\n", b)
}

// offsetOf is the byte offset a message names right after its file ("offset N: ..."), as the
// datafile readers write it.
func offsetOf(rest string) (int64, bool) {
	num, _, ok := strings.Cut(strings.TrimPrefix(rest, "offset "), ":")
	if !ok || !strings.HasPrefix(rest, "offset ") {
		return 0, false
	}
	n, err := strconv.ParseInt(num, 10, 64)
	return n, err == nil && n >= 0
}

// fileOf is the path an error message starts with ("/d/ib_logfile0: ..."), or "".
func fileOf(msg string) string {
	if !strings.HasPrefix(msg, "/") {
		return ""
	}
	if i := strings.Index(msg, ": "); i > 0 && !strings.Contains(msg[:i], " ") {
		return msg[:i]
	}
	return ""
}

// nArgs is "1 argument" or "N arguments".
func nArgs(n int) string {
	if n == 1 {
		return "1 argument"
	}
	return fmt.Sprintf("%d arguments", n)
}
