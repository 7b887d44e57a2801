package view

import (
	"sort"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/report"
)

// ReportPage gathers what the HTML report shows from the diagnosis: the findings and verdict,
// the log's file operations, the pages recovery applies records to per tablespace and, when heat
// is set, every datafile's page LSNs. version names the tool that made it.
func ReportPage(d *analysis.Diagnosis, version string, heat bool) *report.Page {
	p := &report.Page{Title: d.Layout.Datadir, Version: version, Findings: d.Findings, Summary: d.Summary,
		Verdict:  finding.MakeVerdict(d.Findings, d.Outcome()),
		Timeline: report.Timeline{Checkpoint: d.CheckpointLSN, End: d.Analysis.Map.EndLSN, NoLog: d.Input.Analysis == nil}}
	toRecover := map[uint32]int{}
	for id := range d.Analysis.Pages {
		toRecover[id.Space]++
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
		if t.Error != "" {
			sh.Note = t.Error
		} else if heat && t.Note != discovery.NotePage0Zero {
			sh.Cells, sh.PagesPerCell = pageHeat(t.Path)
			sh.Recover = make([]bool, len(sh.Cells))
			for id := range d.Analysis.Pages {
				if c := int64(id.Page) / max(sh.PagesPerCell, 1); id.Space == sh.ID && c < int64(len(sh.Recover)) {
					sh.Recover[c] = true
				}
			}
		}
		if !seen[sh.ID] {
			sh.PagesToRecover = toRecover[sh.ID]
			seen[sh.ID] = true
		}
		p.Spaces = append(p.Spaces, sh)
	}
	ids := make([]uint32, 0, len(toRecover))
	for id := range toRecover {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		if n := toRecover[id]; !seen[id] {
			note := "no file found"
			if s := d.Analysis.Map.Spaces[id]; s != nil && s.Deleted {
				note = "the log deletes it: recovery does not apply its records"
			}
			p.Spaces = append(p.Spaces, report.SpaceHeat{ID: id, Name: names[id], PagesToRecover: n, Note: note})
		}
	}
	return p
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
