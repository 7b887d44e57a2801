package cmd

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"innoscope/analysis"
	"innoscope/finding"
	"innoscope/internal/interrupt"
	"innoscope/replay"
	"innoscope/report"
	"innoscope/report/view"
)

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:  "verify",
		Usage: "CI gate: diagnose, replay recovery into a temporary copy, validate every page of the copy",
		Description: "Exit 0 when recovery would succeed and the replayed copy validates, 1 when a finding is at or\n" +
			"above --fail-on (the diagnosis's, REPLAY_FAILED, COPY_CORRUPT_PAGE, COPY_PAGE_AHEAD_OF_LOG,\n" +
			"COPY_LOG_NOT_CLEAN), 2 when it could not run. The outcome printed (OK or FAILED, \"ok\" in JSON)\n" +
			"follows the same rule: with --fail-on info an info finding is FAILED; with --fail-on none\n" +
			"nothing is. The source is never written.",
		ArgsUsage: "DIR",
		Flags: dirFlags(
			policyFlag(),
			&cli.BoolFlag{Name: "skip-pages", Usage: "the diagnosis reads only page 0 of each source file (the copy is still verified page by page)"},
			&cli.StringFlag{Name: "tmpdir", Usage: "where the temporary copy goes (default: the system temporary directory)"},
			&cli.StringFlag{Name: "keep", Usage: "keep the replayed copy in this new (or empty) directory instead of a temporary one"},
			allowLiveFlag),
		Action: verifyAction,
	}
}

func verifyAction(c *cli.Context) error {
	if err := dirArg(c, "keep"); err != nil {
		return err
	}
	s, err := loadSettings(c, c.Args().First())
	if err != nil {
		return err
	}
	pol, err := analysis.Policy(c.String("policy")).For(s)
	if err != nil {
		return err
	}
	if err := s.RefuseLogOnly("replay and verify"); err != nil {
		return err
	}
	if err := refuseLive(c, s); err != nil {
		return err
	}
	if err := replay.CheckScratch(s, c.String("tmpdir"), c.String("keep")); err != nil {
		return err
	}
	target := absFlag(c, "keep")
	if target == "" {
		for _, d := range replay.RemoveStaleScratch(absFlag(c, "tmpdir")) {
			fmt.Fprintf(c.App.ErrWriter, "innoscope: note: removed %s, the temporary copy of an earlier verify that was killed\n", d)
		}
		tmp, unlock, err := replay.MakeScratch(absFlag(c, "tmpdir"))
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp) // the copy and its .external directory
		defer unlock()
		defer interrupt.On(func() string {
			if err := interrupt.RemoveAll(tmp); err != nil {
				return fmt.Sprintf("the temporary copy %s could not be removed: %v", tmp, err)
			}
			return fmt.Sprintf("the temporary copy %s was removed", tmp)
		})()
		target = filepath.Join(tmp, "copy")
	}
	defer interrupt.On(replay.IncompleteNoteFunc(target, "remove it, or give --keep a new directory"))()
	checking, checked := report.ProgressFunc("verifying datafiles")
	applying, applied := report.ProgressFunc("applying")
	j, err := replay.Verify(s, analysis.Options{Policy: pol, SkipPages: c.Bool("skip-pages"), Scan: scanOptions(c),
		Undo: replay.RecoveredUndo, Progress: checking}, replay.RunOptions{Target: target, ApplyProgress: applying,
		Flags: replay.TargetFlags{Dir: "--keep"}}) // verify has no --force
	checked()
	applied()
	if err != nil && c.IsSet("keep") { // a temporary copy is removed
		return replay.IncompleteError(err, target, "remove it, or give --keep a new directory")
	} else if err != nil {
		return err
	}
	if c.IsSet("keep") {
		j.Copy = target
	} else {
		j.StartCommand = "" // the temporary copy is removed
	}
	if err := j.Judge(c.String("fail-on")); err != nil { // OK/FAILED by the rule of the exit status
		return err
	}
	return show(c, func(out *report.Output) ([]finding.Finding, error) { return j.Findings, view.Verification(out, j) })
}
