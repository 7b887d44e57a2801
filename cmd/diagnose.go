package cmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/replay"
	"innoscope/report"
)

func diagnoseCommand() *cli.Command {
	return &cli.Command{
		Name:      "diagnose",
		Usage:     "all findings: dictionary vs filesystem vs redo log, pages recovery needs, locations",
		ArgsUsage: "DIR",
		Flags: dirFlags(
			&cli.StringFlag{Name: "policy", Value: "mariadb", Usage: "location rules: mariadb (warn) or mysql8 (WL#13065: unprotected and undo-dir datafiles are errors)"},
			&cli.BoolFlag{Name: "skip-pages", Usage: "do not read every page of every datafile (no CORRUPT_PAGE*, FILE_AHEAD_OF_LOG checks): fast on large directories"}),
		Action: diagnoseAction,
	}
}

// diagnoseJSON is the --json form of `diagnose` (schemas/diagnose.schema.json).
type diagnoseJSON struct {
	Datadir       string           `json:"datadir"`
	CheckpointLSN uint64           `json:"checkpoint_lsn"`
	EndLSN        uint64           `json:"end_lsn"`
	Findings      []report.Finding `json:"findings"`
	Summary       map[string]int   `json:"summary"`
	// Dictionary: SYS_TABLES as on disk (changes still in the log are not in it).
	Dictionary []analysis.DictEntry `json:"dictionary"`
	// Rollback is what crash recovery will roll back (absent when the undo logs were not read).
	Rollback *discovery.RollbackForecast `json:"rollback,omitempty"`
}

func diagnoseAction(c *cli.Context) error {
	if c.NArg() != 1 && !c.IsSet("datadir") && !c.IsSet("defaults-file") {
		return fmt.Errorf("expected one DIR argument")
	}
	d, err := runDiagnosis(c)
	if err != nil {
		return err
	}
	fs, sum := d.Findings, d.Summary
	out := report.New(c.App.Writer, c.Bool("json"))
	defer out.Flush()
	if out.JSON {
		dict := analysis.Dictionary(d.Input)
		if dict == nil {
			dict = []analysis.DictEntry{}
		}
		return writeJSON(c, out, diagnoseJSON{Datadir: d.Layout.Datadir, CheckpointLSN: d.CheckpointLSN, EndLSN: d.Analysis.Map.EndLSN,
			Findings: orEmpty(fs), Summary: sum, Dictionary: dict, Rollback: d.RollbackForecast()}, fs)
	}
	out.Verdict(report.MakeVerdict(fs, d.Outcome()))
	if len(fs) > 0 {
		if err := out.Findings(fs); err != nil {
			return err
		}
	}
	where := fmt.Sprintf("checkpoint LSN %d, end of log %d", d.CheckpointLSN, d.Analysis.Map.EndLSN)
	if d.Input.Analysis == nil {
		where = "no usable redo log"
	}
	fmt.Fprintf(out.Writer(), "%s: %d errors, %d warnings, %d info (%s)\n",
		d.Layout.Datadir, sum["error"], sum["warning"], sum["info"], where)
	return finish(c, fs)
}

// runDiagnosis diagnoses the command's data directory with its --policy and --skip-pages.
func runDiagnosis(c *cli.Context) (*analysis.Diagnosis, error) {
	pol := analysis.Policy(c.String("policy"))
	if pol != analysis.PolicyMariaDB && pol != analysis.PolicyMySQL8 {
		return nil, fmt.Errorf("--policy %q: want mariadb or mysql8", pol)
	}
	s, err := loadSettings(c, c.Args().First())
	if err != nil {
		return nil, err
	}
	prog, done := progress("verifying datafiles")
	defer done()
	return analysis.Run(s, analysis.Options{Policy: pol, SkipPages: c.Bool("skip-pages"), Scan: scanOptions(c),
		Undo: replay.RecoveredUndo, Progress: prog})
}
