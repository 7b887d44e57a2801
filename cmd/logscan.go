package cmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"innoscope/finding"
	"innoscope/logformat/redo"
	"innoscope/report"
	"innoscope/report/view"
)

func logRecords(c *cli.Context) error {
	space, err := idFlag(c, "space")
	if err != nil {
		return err
	}
	page, err := idFlag(c, "page")
	if err != nil {
		return err
	}
	l, err := openRedo(c)
	if err != nil {
		return err
	}
	defer l.Close()
	opt := scanOptions(c)
	set, done := report.ProgressFunc("scanning redo log")
	defer done()
	opt.Progress = set
	rs, err := l.Records(opt)
	if err != nil {
		return err
	}
	match, err := l.TypeFilter(c.String("type"))
	if err != nil {
		return fmt.Errorf("--type %w", err)
	}
	return show(c, func(out *report.Output) ([]finding.Finding, error) {
		rp, err := view.NewRecords(out, c.App.ErrWriter, l.TypeWidth())
		if err != nil {
			return nil, err
		}
		ls, err := rs.Each(redo.Filter{Type: match, Space: space, Page: page}, rp.Row)
		if err != nil {
			return nil, err
		}
		return ls.Findings, rp.End(ls)
	})
}

func logStats(c *cli.Context) error {
	l, err := openRedo(c)
	if err != nil {
		return err
	}
	defer l.Close()
	j, err := l.Stats(scanOptions(c))
	if err != nil {
		return err
	}
	fs := append(logServerFindings(c), j.Findings...)
	return show(c, func(out *report.Output) ([]finding.Finding, error) { return fs, view.LogStats(out, j, fs) })
}
