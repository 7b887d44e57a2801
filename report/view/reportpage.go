package view

import (
	"sort"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/report"
)

// ReportPage gathers what the HTML report shows from the diagnosis: the findings and verdict,
// the counts the verdict and the tables give (as the diagnosis counted them), the log's file
// operations, the pages with records per tablespace and, when heat is set, every datafile's
// page LSNs with its corrupt pages. version names the tool that made it.
func ReportPage(d *analysis.Diagnosis, version string, heat bool) *report.Page {
	o := d.Outcome()
	p := &report.Page{Title: d.Layout.Datadir, Version: version, Findings: d.Findings, Summary: d.Summary,
		Verdict:  finding.MakeVerdict(d.Findings, o),
		Counts:   report.Counts{ToRecover: o.Pages, PagesWithRecords: len(d.Analysis.Pages), PageRecords: d.Analysis.PageRecords, Known: d.Input.Analysis != nil && !d.LogOnly},
		Timeline: report.Timeline{Checkpoint: d.CheckpointLSN, End: d.Analysis.Map.EndLSN, NoLog: d.Input.Analysis == nil}}
	withRecords := map[uint32]int{}
	for id := range d.Analysis.Pages {
		withRecords[id.Space]++
	}
	names := map[uint32]string{}
	for _, s := range d.Analysis.Map.Sorted() {
		names[s.ID] = s.Name
		for _, e := range s.Events {
			n := e.Name
			if e.NewName != "" {
				n += " -> " + e.NewName
			}
			p.Timeline.Events = append(p.Timeline.Events, report.TimelineEvent{LSN: e.LSN, Kind: string(e.Kind), Space: s.ID, Name: n})
		}
	}
	sort.SliceStable(p.Timeline.Events, func(i, j int) bool { return p.Timeline.Events[i].LSN < p.Timeline.Events[j].LSN })
	seen := map[uint32]bool{}
	for _, t := range d.Input.Spaces {
		if t.FoundBy == discovery.FoundTemporary {
			continue
		}
		sh := report.SpaceHeat{ID: t.SpaceID, Name: t.Path, Pages: t.Pages, Note: t.Note}
		if t.Note == discovery.NotePage0Zero || t.Error != "" {
			sh.ID, sh.Unknown = 0, true
			if id, ok := d.LogIDOfPath(t.Path); ok {
				sh.ID, sh.Unknown = id, false
			}
		}
		if t.Note == discovery.NotePage0Zero && !sh.Unknown && d.Analysis.CreatesFile(sh.ID) {
			sh.Rebuilt = true
			sh.Note = "page 0 is all zero (created after the checkpoint): crash recovery rebuilds the tablespace from the log"
		}
		if t.Error != "" {
			sh.Note = t.Error
		} else if heat {
			drawHeat(d, &sh, t.Path)
		}
		if !seen[sh.ID] && !sh.Unknown {
			sh.PagesWithRecords = withRecords[sh.ID]
			seen[sh.ID] = true
		}
		p.Spaces = append(p.Spaces, sh)
	}
	ids := make([]uint32, 0, len(withRecords))
	for id := range withRecords {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		if n := withRecords[id]; !seen[id] {
			note := "no file found"
			if s := d.Analysis.Map.Spaces[id]; s != nil && s.Deleted {
				note = "the log deletes it: recovery does not apply its records"
			} else if d.LogOnly {
				note = "only the log was given"
			}
			name := names[id]
			if name == "" && id == 0 {
				name = "(the system tablespace)"
			}
			p.Spaces = append(p.Spaces, report.SpaceHeat{ID: id, Name: name, PagesWithRecords: n, Note: note})
		}
	}
	return p
}

// drawHeat fills in the heat map of the tablespace sh (the file at path): its page LSNs by
// cell, the cells with a page recovery applies records to, and those with a page the
// diagnosis found corrupt.
func drawHeat(d *analysis.Diagnosis, sh *report.SpaceHeat, path string) {
	sh.Cells, sh.PagesPerCell = pageHeat(path)
	if len(sh.Cells) == 0 {
		return
	}
	per := max(sh.PagesPerCell, 1)
	sh.Recover = make([]bool, len(sh.Cells))
	if !sh.Unknown {
		for id := range d.Analysis.Pages {
			if c := int64(id.Page) / per; id.Space == sh.ID && c < int64(len(sh.Recover)) {
				sh.Recover[c] = true
			}
		}
	}
	if r := d.Input.Pages[path]; r != nil {
		sh.Corrupt = make([]bool, len(sh.Cells))
		for _, pg := range r.Corrupt {
			if c := pg / per; c < int64(len(sh.Corrupt)) {
				sh.Corrupt[c] = true
			}
		}
		sh.CorruptPages = len(r.Corrupt)
	}
}

// pageHeat reads every page's LSN of a datafile, reduced to heat map cells (none if it cannot
// be read: the diagnosis has its finding).
func pageHeat(path string) ([]uint64, int64) {
	f, err := discovery.OpenFile(path)
	if err != nil {
		return nil, 0
	}
	defer f.Close()
	var lsns []uint64
	if _, err := discovery.Inspect(f, discovery.InspectOptions{To: -1, Each: func(pi discovery.PageInfo) { lsns = append(lsns, pi.LSN) }}); err != nil {
		return nil, 0
	}
	return report.HeatOf(lsns)
}
