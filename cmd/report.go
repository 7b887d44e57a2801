package cmd

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/internal/regular"
	"innoscope/replay"
	"innoscope/report"
	"innoscope/report/view"
)

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "one self-contained HTML file for the incident ticket: verdict, what to do next, findings, LSN timeline, pages with log records, page-LSN heat map",
		Description: "Runs the diagnosis (as diagnose does) and writes --out: inline CSS and SVG, no script and no\n" +
			"external URL, so it opens offline. Exit status as diagnose's.",
		ArgsUsage: "DIR --out FILE.html",
		Flags: dirFlags(
			&cli.StringFlag{Name: "out", Usage: "the HTML file to write (a new file or one to overwrite; never inside DIR)"},
			policyFlag(),
			&cli.BoolFlag{Name: "skip-pages", Usage: "read only page 0 of each datafile (no page-level findings; no heat map)"}),
		Action: reportAction,
	}
}

func reportAction(c *cli.Context) error {
	if err := dirArg(c, "out"); err != nil {
		return err
	}
	outPath := absFlag(c, "out")
	if outPath == "" {
		return fmt.Errorf("--out FILE.html is required")
	}
	s, err := loadSettings(c, c.Args().First())
	if err != nil {
		return err
	}
	if err := discovery.SourcePlaces(s).CheckOutput("--out", outPath); err != nil {
		return err
	}
	d, err := runDiagnosis(c, s)
	if err != nil {
		return err
	}
	p := view.ReportPage(d, Version, !c.Bool("skip-pages"))
	trxs, terr := replay.LogChanges(s, replay.ChangesOptions{})
	p.Trx = view.ReportTransactions(trxs, terr, replay.LossLedger(s, d.Findings), "innoscope log changes "+c.Args().First())
	for _, n := range replay.NextSteps(d, scanOptions(c), locationArgs(c)) {
		p.Next = append(p.Next, report.NextStep(n))
	}
	if err := regular.Replace(outPath, 0o644, func(f *os.File) error { return report.WriteHTML(f, p) }); err != nil {
		return fmt.Errorf("%s: %w", outPath, err)
	}
	return show(c, func(out *report.Output) ([]finding.Finding, error) {
		return d.Findings, view.ReportWritten(out, outPath, p, d.Findings)
	})
}
