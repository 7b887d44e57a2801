package view

import (
	"fmt"
	"io"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/report"
	"innoscope/rows"
)

// Pages prints `pages`: one row per page as the file is read (with --verify, only the bad
// pages, after the summary), then the file's fields, the page types and the checksum verdict.
type Pages struct {
	out                  *report.Output
	verify, summary, all bool
	list, bad            []discovery.PageInfo
	table                *report.Stream
}

// PagesJSON is the --json form of `pages`.
type PagesJSON struct {
	*discovery.Report
	PageList []discovery.PageInfo `json:"page_list,omitempty"`
	Findings []finding.Finding    `json:"findings"`
}

// NewPages starts the listing: verify checks checksums, summary prints no page rows, all prints
// every page even with verify.
func NewPages(out *report.Output, verify, summary, all bool) (*Pages, error) {
	p := &Pages{out: out, verify: verify, summary: summary, all: all}
	if !summary && !out.JSON && !p.onlyBad() {
		var err error
		p.table, err = out.Stream([]string{"PAGE", "TYPE", "LSN", "SPACE", "CHECKSUM", "INDEX"}, []int{10, 16, 14, 12, 28, 40})
		return p, err
	}
	return p, nil
}

func (p *Pages) onlyBad() bool { return p.verify && !p.all && !p.out.JSON }

// Each is the discovery.InspectOptions callback that takes every page, or nil for a summary.
func (p *Pages) Each() func(discovery.PageInfo) {
	switch {
	case p.summary:
		return nil
	case p.out.JSON:
		return func(pi discovery.PageInfo) { p.list = append(p.list, pi) }
	case p.onlyBad():
		return func(pi discovery.PageInfo) {
			if v := pi.Verdict; v != nil && (v.Corrupt || v.InnochecksumCorrupt) {
				p.bad = append(p.bad, pi)
			}
		}
	}
	return func(pi discovery.PageInfo) { p.table.Row(p.row(pi)...) }
}

// Print ends the listing with the file's report r and its findings fs.
func (p *Pages) Print(r *discovery.Report, fs []finding.Finding) error {
	out := p.out
	if p.table != nil {
		if err := p.table.Close(); err != nil {
			return err
		}
	}
	if out.JSON {
		return out.WriteJSON(PagesJSON{Report: r, PageList: p.list, Findings: fs})
	}
	if p.verify {
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
	if p.onlyBad() && !p.summary && len(p.bad) > 0 {
		rows := make([][]string, len(p.bad))
		for i, pi := range p.bad {
			rows[i] = p.row(pi)
			if why := r.Reasons[pi.No]; why != "" {
				rows[i][5] = why
			}
		}
		if err := out.Table([]string{"BAD PAGE", "TYPE", "LSN", "SPACE", "CHECKSUM", "WHY"}, rows); err != nil {
			return err
		}
	}
	if !p.verify {
		return nil
	}
	fmt.Fprintf(out.Writer(), "checksums: %s; corrupt pages: %d; pages innochecksum 10.11 would report: %d\n",
		r.ChecksumCounts(), len(r.Corrupt), len(r.InnochecksumCorrupt))
	return findings(out, fs)
}

// row is one page's row: number, type, LSN, space id, checksum verdict and index header.
func (p *Pages) row(pi discovery.PageInfo) []string {
	ck := "-"
	if v := pi.Verdict; v != nil {
		switch {
		case v.Corrupt:
			ck = p.out.Paint(report.Bad, "CORRUPT")
		case v.InnochecksumCorrupt:
			ck = p.out.Paint(report.Warn, string(v.Algorithm)+" (innochecksum: bad)")
		default:
			ck = p.out.Paint(report.Good, string(v.Algorithm))
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

// PageRecords prints `pages FILE --page N --records`: the records of one clustered index page,
// after a warning on errw when the directory needs crash recovery.
func PageRecords(out *report.Output, errw io.Writer, fp *rows.FilePage) error {
	t, recs := fp.Table, fp.Records
	if fp.Stale != nil {
		fmt.Fprintf(errw, "warning: %v; the page below is as on disk, without those changes\n", fp.Stale)
	}
	if out.JSON {
		if recs == nil {
			recs = []rows.PageRecord{}
		}
		return out.WriteJSON(recs)
	}
	head, tab := rows.RecordRows(t, recs)
	return out.Table(head, tab)
}
