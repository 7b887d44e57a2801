package cmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/report"
	"innoscope/report/view"
	"innoscope/rows"
)

func pagesCommand() *cli.Command {
	return &cli.Command{
		Name:      "pages",
		Usage:     "per-page type, LSN and checksum verdict of one tablespace file; page-type summary; instant ADD COLUMN roots",
		ArgsUsage: "FILE",
		Flags: append(append([]cli.Flag{}, outputFlags...),
			&cli.BoolFlag{Name: "verify", Usage: "check every page's checksum (server rule, and innochecksum 10.11 parity)"},
			&cli.BoolFlag{Name: "summary", Usage: "only the page-type summary, no per-page rows"},
			&cli.BoolFlag{Name: "all", Usage: "with --verify, a row for every page (default: only the bad ones)"},
			&cli.Int64Flag{Name: "page", Value: -1, Usage: "only this page"},
			&cli.BoolFlag{Name: "records", Usage: "with --page: decode the records of that clustered index page (the table from the dictionary of the file's data directory)"}),
		Action: pagesAction,
	}
}

func pagesAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return fmt.Errorf("expected one FILE argument (a tablespace file such as ibdata1 or db/t.ibd)")
	}
	page, err := idFlag(c, "page")
	if err != nil {
		return err
	}
	path := discovery.AbsPath(c.Args().First())
	if err := discovery.NotTablespace(path); err != nil {
		return err
	}
	t, err := discovery.OpenFile(path)
	if err != nil {
		return err
	}
	defer t.Close()
	opt := discovery.InspectOptions{Verify: c.Bool("verify"), From: 0, To: -1}
	if p := page; p >= 0 {
		if p >= t.Pages() {
			return fmt.Errorf("%s: page %d is beyond the last page %d", t.Path, p, t.Pages()-1)
		}
		opt.From, opt.To = p, p+1
	}
	if c.Bool("records") {
		if opt.To-opt.From != 1 {
			return fmt.Errorf("--records needs --page N")
		}
		fp, err := rows.PageRecordsOfFile(t.Path, uint32(opt.From))
		if err != nil {
			return err
		}
		return show(c, func(out *report.Output) ([]finding.Finding, error) {
			return nil, view.PageRecords(out, c.App.ErrWriter, fp)
		})
	}
	return show(c, func(out *report.Output) ([]finding.Finding, error) {
		pv, err := view.NewPages(out, opt.Verify, c.Bool("summary"), c.Bool("all"))
		if err != nil {
			return nil, err
		}
		opt.Each = pv.Each()
		prog := report.NewProgress("reading "+t.Path, t.Pages())
		opt.Progress = func(done int64) { prog.Set(done) }
		r, err := discovery.Inspect(t, opt)
		prog.Done()
		if err != nil {
			return nil, err
		}
		fs := []finding.Finding{}
		if opt.Verify {
			fs = analysis.PageFindings(r)
		}
		return fs, pv.Print(r, fs)
	})
}
