package cmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"innoscope/analysis"
	"innoscope/finding"
	"innoscope/internal/interrupt"
	"innoscope/replay"
	"innoscope/report"
	"innoscope/report/view"
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
			&cli.BoolFlag{Name: "force", Usage: "restart an interrupted copy: empty an --into that holds " + replay.IncompleteMarker + " and start again"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print what would be applied (pages per space, file operations); write nothing"},
			&cli.Int64Flag{Name: "cache-mib", Usage: "page images held in memory before a batch is written", DefaultText: "every page the log changes, up to half the available memory, at least 512"},
			&cli.BoolFlag{Name: "skip-pages", Usage: "do not check every page of the finished copy (a corrupt page the log does not change is then not reported): fast on large directories"},
			allowLiveFlag, salvageFlag),
		Action: recoverAction,
	}
}

func recoverAction(c *cli.Context) error {
	if err := dirArg(c, "into"); err != nil {
		return err
	}
	into := absFlag(c, "into")
	if into == "" && !c.Bool("dry-run") {
		return fmt.Errorf("--into COPY is required (or --dry-run)")
	}
	diagnosed := c.Bool("dry-run") && !c.Bool("salvage") // the dry run's verdict is diagnose's
	p, d, err := openSource(c, diagnosed)
	if err != nil {
		return err
	}
	defer p.Close()
	j := view.NewRecovery(p, into, c.Bool("dry-run"), c.App.ErrWriter)
	if d != nil {
		j.Diagnosed(finding.MakeVerdict(d.Findings, d.Outcome()), d.Findings)
	}
	if c.Bool("allow-live") {
		j.Findings = append(j.Findings, analysis.LiveSourceFindings(p.Layout)...)
	}
	opt := replay.RunOptions{Target: into, External: absFlag(c, "external-dir"), Force: c.Bool("force"),
		CacheBytes: c.Int64("cache-mib") << 20}
	if j.DryRun && into != "" { // the refusals of the target a real run makes, writing nothing
		if err := p.CheckTarget(opt); err != nil {
			return err
		}
	} else if !j.DryRun {
		o, err := runRecovery(p, opt)
		if err != nil {
			return err
		}
		j.Ran(p, o)
		// What the server will meet on the copy: the tables it will not open, the rollback.
		if j.OnCopy, err = replay.DiagnoseCopy(o.CopyLayout, o.Result.RolledBackDDL, !c.Bool("skip-pages") || p.Salvage.NewLog()); err != nil {
			fmt.Fprintf(c.App.ErrWriter, "innoscope: note: the copy could not be diagnosed, so what the server will meet on it is not said: %v\n", err)
		}
	}
	j.Ledger = p.Salvage.Ledger(p.Layout) // only when the salvage cuts the log
	err = show(c, func(out *report.Output) ([]finding.Finding, error) {
		return j.AllFindings(), j.Print(out, c.App.ErrWriter)
	})
	if err == nil && p.Salvage != nil && p.Salvage.Lost() {
		return errFindings // something was lost
	}
	return err
}

// openSource opens the command's data directory for recovery (replay.Open), refusing a live
// server's unless --allow-live; diagnosed: through its diagnosis (returned too).
func openSource(c *cli.Context, diagnosed bool) (*replay.Source, *analysis.Diagnosis, error) {
	s, err := loadSettings(c, c.Args().First())
	if err != nil {
		return nil, nil, err
	}
	if err := s.RefuseLogOnly("recover into a copy"); err != nil {
		return nil, nil, err
	}
	if err := refuseLive(c, s); err != nil {
		return nil, nil, err
	}
	if c.Bool("salvage") {
		p, err := replay.OpenSalvage(s, scanOptions(c), absFlag(c, "into"))
		return p, nil, err
	}
	if !diagnosed {
		p, err := replay.Open(s, scanOptions(c))
		return p, nil, err
	}
	d, err := analysis.Run(s, analysis.Options{Policy: analysis.PolicyMariaDB, Scan: scanOptions(c), Undo: replay.RecoveredUndo})
	if err != nil {
		return nil, nil, err
	}
	p, err := replay.OpenDiagnosed(d, scanOptions(c))
	return p, d, err
}

// runRecovery is replay's Run with progress bars and, on SIGINT/SIGTERM, a word on the copy
// left incomplete.
func runRecovery(p *replay.Source, opt replay.RunOptions) (*replay.Outcome, error) {
	defer interrupt.On(replay.IncompleteNoteFunc(opt.Target, "run again with --force to start over"))()
	copying, copied := report.ProgressFunc("copying")
	applying, applied := report.ProgressFunc("applying")
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
	return o, replay.IncompleteError(err, opt.Target, "run again with --force to start over")
}
