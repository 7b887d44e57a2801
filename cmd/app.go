// Package cmd holds innoscope's command-line interface: flag parsing and wiring only.
package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"innoscope/finding"
	"innoscope/internal/clikit"
	"innoscope/internal/interrupt"
	"innoscope/report"
)

// Exit codes.
const (
	ExitClean    = 0 // nothing at or above --fail-on
	ExitFindings = 1 // findings at or above --fail-on
	ExitError    = 2 // could not run: bad input, unreadable file
)

// Version is innoscope's version.
const Version = "0.2.0"

// errFindings makes a command exit 1 after it has printed its result.
var errFindings = errors.New("findings at or above --fail-on")

// App builds the command tree; stdout and stderr are where results and errors go.
func App(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:  "innoscope",
		Usage: "offline crash-recovery and redo-log forensics for InnoDB data directories",
		Description: "innoscope reads a MariaDB/MySQL data directory (never writing to it), tells what crash\n" +
			"recovery will find, and can replay that recovery into a working copy (recover, verify).\n" +
			"Exit status: 0 clean, 1 findings at or above --fail-on, 2 could not run.",
		Version:         Version,
		Writer:          stdout,
		ErrWriter:       stderr,
		HideHelpCommand: true,
		Commands:        []*cli.Command{logCommand(), spacesCommand(), pagesCommand(), mapCommand(), diagnoseCommand(), recoverCommand(), verifyCommand(), rowsCommand(), undropCommand(), schemaCommand(), adoptCommand(), reportCommand()},
		ExitErrHandler:  func(*cli.Context, error) {},
		OnUsageError:    usageError,
		Action:          missingCommand,
	}
	prepareCommands(app.Commands)
	return app
}

// Run runs innoscope with os.Args-style args and returns the process exit code.
func Run(args []string, stdout, stderr io.Writer) int {
	app := App(stdout, stderr)
	var unknown error // a help topic that is no command
	app.CommandNotFound = func(c *cli.Context, name string) { unknown = unknownCommand(c, name) }
	defer interrupt.Handle(stderr)()
	report.SetColor("auto")
	args = helpTopic(args)
	args, err := clikit.HoistFlags(app, args)
	if err == nil {
		err = app.Run(args)
	}
	if unknown != nil {
		err = unknown
	}
	switch {
	case err == nil:
		return ExitClean
	case errors.Is(err, errFindings):
		return ExitFindings
	}
	fmt.Fprintf(stderr, "innoscope: %v\n", err)
	if wantsJSON(args) {
		report.JSONError(stdout, err)
	}
	return ExitError
}

// Main is what main.go calls.
func Main() { os.Exit(Run(os.Args, os.Stdout, os.Stderr)) }

// outputFlags are on every command that prints a result.
var outputFlags = []cli.Flag{
	&cli.BoolFlag{Name: "json", Usage: "print JSON instead of a table (a failure prints {\"error\", \"file\", \"offset\"})"},
	&cli.StringFlag{Name: "color", Value: "auto", Usage: "colour: auto (on a terminal, unless NO_COLOR is set or TERM=dumb), always, never"},
	&cli.StringFlag{Name: "fail-on", Value: "error", Usage: "exit 1 when a finding is at or above this severity (info, warning, error, none)"},
}

// dirFlags are the flags of a command that reads a data directory: outputFlags, locationFlags,
// then the command's own.
func dirFlags(own ...cli.Flag) []cli.Flag {
	return append(append(append([]cli.Flag{}, outputFlags...), locationFlags...), own...)
}

// finish prints nothing more; it turns the findings into the exit status.
func finish(c *cli.Context, fs []finding.Finding) error {
	level, err := finding.ParseSeverity(c.String("fail-on"))
	if err != nil {
		return err
	}
	if w, ok := finding.Worst(fs); ok && w >= level {
		return errFindings
	}
	return nil
}

// show prints a command's result with fn, on a table or JSON output as --json asks, then turns
// the findings fn returns into the exit status.
func show(c *cli.Context, fn func(*report.Output) ([]finding.Finding, error)) error {
	out := report.New(c.App.Writer, c.Bool("json"))
	fs, err := fn(out)
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	return finish(c, fs)
}
