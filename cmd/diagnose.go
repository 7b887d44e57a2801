package cmd

import (
	"github.com/urfave/cli/v2"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/replay"
	"innoscope/report"
	"innoscope/report/view"
)

func diagnoseCommand() *cli.Command {
	return &cli.Command{
		Name:      "diagnose",
		Usage:     "all findings: dictionary vs filesystem vs redo log, pages recovery needs, locations",
		ArgsUsage: "DIR",
		Flags: dirFlags(
			policyFlag(),
			&cli.BoolFlag{Name: "skip-pages", Usage: "do not read every page of every datafile (no CORRUPT_PAGE*, FILE_AHEAD_OF_LOG checks): fast on large directories"}),
		Action: diagnoseAction,
	}
}

func diagnoseAction(c *cli.Context) error {
	if err := dirArg(c, ""); err != nil {
		return err
	}
	s, err := loadSettings(c, c.Args().First())
	if err != nil {
		return err
	}
	d, err := runDiagnosis(c, s)
	if err != nil {
		return err
	}
	ledger := replay.LossLedger(s, d.Findings) // only when a finding cuts the log
	return show(c, func(out *report.Output) ([]finding.Finding, error) { return d.Findings, view.Diagnosis(out, d, ledger) })
}

// policyFlag is --policy, of diagnose, verify and report.
func policyFlag() cli.Flag {
	return &cli.StringFlag{Name: "policy", Value: string(analysis.PolicyAuto),
		Usage: "whose rules judge the directory: mariadb (datafile locations warn) or mysql8 (mysqld's; WL#13065: unprotected and undo-dir datafiles are errors); auto: mysql8 on a MySQL 8 directory (mysql.ibd or #innodb_redo), else mariadb"}
}

// runDiagnosis diagnoses the data directory laid out as s with the command's --policy and
// --skip-pages.
func runDiagnosis(c *cli.Context, s discovery.Layout) (*analysis.Diagnosis, error) {
	pol, err := analysis.Policy(c.String("policy")).For(s)
	if err != nil {
		return nil, err
	}
	prog, done := report.ProgressFunc("verifying datafiles")
	defer done()
	return analysis.Run(s, analysis.Options{Policy: pol, SkipPages: c.Bool("skip-pages"), Scan: scanOptions(c),
		Undo: replay.RecoveredUndo, Progress: prog})
}
