package cmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/report"
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

// pagesJSON is the --json form of `pages`.
type pagesJSON struct {
	*discovery.Report
	PageList []discovery.PageInfo `json:"page_list,omitempty"`
	Findings []report.Finding     `json:"findings"`
}

func pagesAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return fmt.Errorf("expected one FILE argument (a tablespace file such as ibdata1 or db/t.ibd)")
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
	if p := c.Int64("page"); p >= 0 {
		if p >= t.Pages() {
			return fmt.Errorf("%s: page %d is beyond the last page %d", t.Path, p, t.Pages()-1)
		}
		opt.From, opt.To = p, p+1
	}
	if c.Bool("records") {
		return pageRecords(c, t.Path, opt.From, opt.To-opt.From == 1)
	}
	out := report.New(c.App.Writer, c.Bool("json"))
	defer out.Flush()
	summary := c.Bool("summary")
	var list, bad []discovery.PageInfo
	var table *report.Stream
	onlyBad := opt.Verify && !c.Bool("all") && !out.JSON
	if !summary {
		if out.JSON {
			opt.Each = func(pi discovery.PageInfo) { list = append(list, pi) }
		} else if onlyBad {
			opt.Each = func(pi discovery.PageInfo) {
				if v := pi.Verdict; v != nil && (v.Corrupt || v.InnochecksumCorrupt) {
					bad = append(bad, pi)
				}
			}
		} else {
			if table, err = out.Stream([]string{"PAGE", "TYPE", "LSN", "SPACE", "CHECKSUM", "INDEX"},
				[]int{10, 16, 14, 12, 28, 40}); err != nil {
				return err
			}
			opt.Each = func(pi discovery.PageInfo) { table.Row(pageRow(out, pi)...) }
		}
	}
	prog := report.NewProgress("reading "+t.Path, t.Pages())
	opt.Progress = func(done int64) { prog.Set(done) }
	r, err := discovery.Inspect(t, opt)
	prog.Done()
	if err != nil {
		return err
	}
	if table != nil {
		if err := table.Close(); err != nil {
			return err
		}
	}
	fs := []report.Finding{}
	if opt.Verify {
		fs = analysis.PageFindings(r)
	}
	if out.JSON {
		return writeJSON(c, out, pagesJSON{Report: r, PageList: list, Findings: fs}, fs)
	}
	if opt.Verify {
		out.Verdict(analysis.PagesVerdict(r))
	}
	if err := out.Table([]string{"FIELD", "VALUE"}, r.Fields()); err != nil {
		return err
	}
	if err := out.Table([]string{"PAGE TYPE", "COUNT"}, r.TypeRows()); err != nil {
		return err
	}
	if len(r.Instant) > 0 {
		if err := out.Table([]string{"INSTANT ROOT", "INDEX ID", "CORE FIELDS", "METADATA RECORD", "ON PAGE"}, r.InstantRows()); err != nil {
			return err
		}
	}
	if onlyBad && !summary && len(bad) > 0 {
		rows := make([][]string, len(bad))
		for i, pi := range bad {
			rows[i] = pageRow(out, pi)
			if why := r.Reasons[pi.No]; why != "" {
				rows[i][5] = why
			}
		}
		if err := out.Table([]string{"BAD PAGE", "TYPE", "LSN", "SPACE", "CHECKSUM", "WHY"}, rows); err != nil {
			return err
		}
	}
	if opt.Verify {
		fmt.Fprintf(out.Writer(), "checksums: %s; corrupt pages: %d; pages innochecksum 10.11 would report: %d\n",
			r.ChecksumCounts(), len(r.Corrupt), len(r.InnochecksumCorrupt))
		if len(fs) > 0 {
			if err := out.Findings(fs); err != nil {
				return err
			}
		}
	}
	return finish(c, fs)
}

func pageRow(out *report.Output, pi discovery.PageInfo) []string {
	ck := "-"
	if v := pi.Verdict; v != nil {
		switch {
		case v.Corrupt:
			ck = out.Paint(report.Bad, "CORRUPT")
		case v.InnochecksumCorrupt:
			ck = out.Paint(report.Warn, string(v.Algorithm)+" (innochecksum: bad)")
		default:
			ck = out.Paint(report.Good, string(v.Algorithm))
		}
	}
	ix := ""
	if x := pi.Index; x != nil {
		ix = fmt.Sprintf("id %d level %d recs %d", x.IndexID, x.Level, x.NRecs)
		if pi.Type == "INSTANT" {
			ix += fmt.Sprintf(" core %d", x.Instant)
		}
	}
	return []string{fmt.Sprint(pi.No), pi.Type, fmt.Sprint(pi.LSN), fmt.Sprint(pi.SpaceID), ck, ix}
}
