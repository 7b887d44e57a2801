package cmd

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"innoscope/analysis"
	"innoscope/replay"
	"innoscope/report"
)

func recoverCommand() *cli.Command {
	return &cli.Command{
		Name:  "recover",
		Usage: "replay crash recovery into a working copy (the source is never written)",
		Description: "Copies DIR into --into, sparsely. DATA DIRECTORY files go to --external-dir (default\n" +
			"COPY" + replay.ExternalSuffix + ") and the copy's .isl files are rewritten to point there. Then every\n" +
			"mini-transaction from the checkpoint to the end of the log is applied as the server's crash\n" +
			"recovery does, and the copy gets a redo log with nothing to recover. Start the server on it with\n" +
			"--datadir=COPY: system, undo and log files kept outside DIR are in the copy's root (drop those\n" +
			"directory options; keep innodb_data_file_path and innodb_undo_tablespaces), those inside DIR stay\n" +
			"where they were. Until it has finished, the copy holds " + replay.IncompleteMarker + "\n" +
			"and a redo log the server refuses; --force empties such a copy (only a marked one) and starts\n" +
			"again. A directory a server is running on is refused unless --allow-live.",
		ArgsUsage: "DIR",
		Flags: dirFlags(
			&cli.StringFlag{Name: "into", Usage: "the working copy to create (a new or empty directory)"},
			&cli.StringFlag{Name: "external-dir", Usage: "where files from outside the data directory go (default COPY" + replay.ExternalSuffix + ")"},
			&cli.BoolFlag{Name: "force", Usage: "use an existing empty --into, or restart an interrupted one"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print what would be applied (pages per space, file operations); write nothing"},
			&cli.Int64Flag{Name: "cache-mib", Value: 512, Usage: "page images held in memory before a batch is written"},
			allowLiveFlag, salvageFlag),
		Action: recoverAction,
	}
}

// recoverJSON is the --json form of `recover`.
type recoverJSON struct {
	Source string                `json:"source"`
	Into   string                `json:"into,omitempty"`
	DryRun bool                  `json:"dry_run"`
	Copy   *replay.CopyStats     `json:"copy,omitempty"`
	Result *replay.RecoverResult `json:"result,omitempty"`
	Plan   *replay.Plan          `json:"plan,omitempty"`
	// Seconds is the wall time of each phase (replay.Outcome).
	Seconds map[string]float64 `json:"seconds,omitempty"`
	// Relinked are .isl files of the copy that name another file than the source's (see
	// analysis.ISLRedirect).
	Relinked []analysis.ISLRedirect `json:"isl_redirects,omitempty"`
	// Salvage is what --salvage repaired or declared lost; Findings one per action.
	Salvage  []replay.SalvageAction `json:"salvage,omitempty"`
	Findings []report.Finding       `json:"findings,omitempty"`
}

func recoverAction(c *cli.Context) error {
	if c.NArg() != 1 && !c.IsSet("datadir") && !c.IsSet("defaults-file") {
		return fmt.Errorf("expected one DIR argument")
	}
	into := absFlag(c, "into")
	if into == "" && !c.Bool("dry-run") {
		return fmt.Errorf("--into COPY is required (or --dry-run)")
	}
	out := report.New(c.App.Writer, c.Bool("json"))
	defer out.Flush()
	p, err := openSource(c)
	if err != nil {
		return err
	}
	defer p.Close()
	j := recoverJSON{Source: p.Layout.Datadir, Into: into, DryRun: c.Bool("dry-run")}
	if p.Salvage != nil {
		j.Salvage, j.Findings = p.Salvage.Actions, p.Salvage.Findings()
		for _, n := range p.Salvage.Notes {
			fmt.Fprintf(c.App.ErrWriter, "innoscope: note: %s\n", n)
		}
	}
	if j.DryRun {
		j.Plan = p.Plan()
		if out.JSON {
			return orSalvageExit(out.WriteJSON(j), p.Salvage)
		}
		if err := printPlan(out, j.Plan); err != nil {
			return err
		}
		return orSalvageExit(printSalvage(out, p.Salvage), p.Salvage)
	}
	o, err := runRecovery(p, replay.RunOptions{Target: into, External: absFlag(c, "external-dir"), Force: c.Bool("force"),
		CacheBytes: c.Int64("cache-mib") << 20})
	if err != nil {
		return err
	}
	j.Copy, j.Result, j.Seconds, j.Relinked = &o.Copy, o.Result, o.Seconds, p.Redirects
	if out.JSON {
		return orSalvageExit(out.WriteJSON(j), p.Salvage)
	}
	for _, r := range p.Redirects {
		fmt.Fprintf(c.App.ErrWriter, "innoscope: note: %s\n", r)
	}
	for _, r := range o.Result.RolledBackDDL {
		fmt.Fprintf(c.App.ErrWriter, "innoscope: note: %s\n", r)
	}
	for _, l := range o.Result.Links {
		fmt.Fprintf(c.App.ErrWriter, "innoscope: note: %s\n", l)
	}
	if err := printRecovery(out, into, o); err != nil {
		return err
	}
	fmt.Fprintln(out.Writer(), "start the server on the copy:")
	out.Unwrapped("  " + replay.ServerCommand(into, p.Layout, p.Log.PageSize))
	return orSalvageExit(printSalvage(out, p.Salvage), p.Salvage)
}

// openSource opens the command's data directory for recovery (replay.Open), refusing a live
// server's unless --allow-live.
func openSource(c *cli.Context) (*replay.Source, error) {
	s, err := loadSettings(c, c.Args().First())
	if err != nil {
		return nil, err
	}
	if err := refuseLive(c, s); err != nil {
		return nil, err
	}
	if c.Bool("salvage") {
		return replay.OpenSalvage(s, scanOptions(c), absFlag(c, "into"))
	}
	return replay.Open(s, scanOptions(c))
}

// runRecovery is replay's Run with progress bars and, on SIGINT/SIGTERM, a word on the copy
// left incomplete.
func runRecovery(p *replay.Source, opt replay.RunOptions) (*replay.Outcome, error) {
	defer onInterrupt(incompleteNote(opt.Target))()
	copying, copied := progress("copying")
	applying, applied := progress("applying")
	defer applied()
	opt.CopyProgress = func(done, total int64) {
		copying(done, total)
		if done == total {
			copied()
		}
	}
	opt.ApplyProgress = applying
	o, err := p.Run(opt)
	copied()
	return o, err
}

func printPlan(out *report.Output, pl *replay.Plan) error {
	out.Verdict(planVerdict(pl))
	fmt.Fprintf(out.Writer(), "dry run: checkpoint LSN %d, end of log %d, %d page records\n", pl.CheckpointLSN, pl.EndLSN, pl.PageRecords)
	if err := out.Table([]string{"SPACE", "FILE", "PAGES"}, pl.SpaceRows()); err != nil {
		return err
	}
	return out.Table([]string{"LSN", "FILE OPERATION", "SPACE", "NAME"}, pl.EventRows())
}

func printRecovery(out *report.Output, into string, o *replay.Outcome) error {
	if err := out.Table([]string{"FIELD", "VALUE"}, o.Fields(into)); err != nil {
		return err
	}
	if err := out.Table([]string{"SPACE", "FILE", "PAGES WRITTEN", "FILE OPERATIONS"}, o.Result.SpaceRows()); err != nil {
		return err
	}
	fmt.Fprintf(out.Writer(), "recovered: the copy has nothing left to recover (log reset at LSN %d)\n", o.Result.EndLSN)
	return nil
}

// incompleteNote is what a SIGINT/SIGTERM leaves said of the copy target: nothing unless it is
// marked incomplete.
func incompleteNote(target string) func() string {
	return func() string {
		if _, err := os.Stat(filepath.Join(target, replay.IncompleteMarker)); err != nil {
			return ""
		}
		return fmt.Sprintf("the copy %s is left incomplete (%s kept): it is not usable; run again with --force to start over",
			target, replay.IncompleteMarker)
	}
}
