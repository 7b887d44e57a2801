package replay

import (
	"fmt"
	"sort"
	"strings"
)

// SpaceRows are the tablespaces with records as SPACE/FILE/PAGES rows, by space id.
func (pl *Plan) SpaceRows() [][]string {
	ids := make([]uint32, 0, len(pl.PagesBySpace))
	for id := range pl.PagesBySpace {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	var rows [][]string
	for _, id := range ids {
		name := pl.Files[id] // the file read; else the log's name for the space
		for _, s := range pl.FileEvents {
			if s.ID == id && name == "" {
				name = s.Name
			}
		}
		rows = append(rows, []string{fmt.Sprint(id), name, fmt.Sprint(pl.PagesBySpace[id])})
	}
	return rows
}

// EventRows are the file operations as LSN/FILE OPERATION/SPACE/NAME rows: the log's file
// events by space, then the undo truncations by space id.
func (pl *Plan) EventRows() [][]string {
	var rows [][]string
	for _, s := range pl.FileEvents {
		for _, e := range s.Events {
			name := e.Name
			if e.NewName != "" {
				name += " -> " + e.NewName
			}
			rows = append(rows, []string{fmt.Sprint(e.LSN), string(e.Kind), fmt.Sprint(s.ID), name})
		}
	}
	ids := make([]uint32, 0, len(pl.Trims))
	for id := range pl.Trims {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		rows = append(rows, []string{"", "truncate", fmt.Sprint(id), fmt.Sprintf("undo tablespace to %d pages", pl.Trims[id])})
	}
	return rows
}

// Fields are what Run did as FIELD/VALUE rows, in the words `recover` prints.
func (o *Outcome) Fields(into string) [][]string {
	st, r, sec := &o.Copy, o.Result, o.Seconds
	return [][]string{
		{"copy", into},
		{"files copied", fmt.Sprintf("%d (%d bytes, %d bytes left as holes, %d external, %d .isl relinked)",
			st.Files, st.Bytes, st.Holes, st.External, st.Relinked)},
		{"checkpoint LSN", fmt.Sprint(r.CheckpointLSN)},
		{"end of log LSN", fmt.Sprint(r.EndLSN)},
		{"mini-transactions", fmt.Sprint(r.MTRs)},
		{"records applied", fmt.Sprint(r.RecordsApplied)},
		{"records skipped", fmt.Sprintf("%d (already in the page, before an INIT_PAGE, or of dropped/truncated spaces)", r.RecordsSkipped)},
		{"pages read / applied", fmt.Sprintf("%d / %d (%d from the doublewrite buffer, %d freed)", r.PagesRead, r.PagesApplied, r.PagesFromDblwr, r.PagesFreed)},
		{"batches", fmt.Sprint(r.Batches)},
		{"seconds", fmt.Sprintf("copy %.2f, replay %.2f, log %.2f", sec["copy"], sec["replay"], sec["log"])},
	}
}

// SpaceRows are the tablespaces recovery wrote as SPACE/FILE/PAGES WRITTEN/FILE OPERATIONS rows.
func (r *RecoverResult) SpaceRows() [][]string {
	var rows [][]string
	for _, s := range r.Spaces {
		var ops []string
		if s.Created {
			ops = append(ops, "created")
		}
		if s.RenamedFrom != "" {
			ops = append(ops, "renamed from "+s.RenamedFrom)
		}
		if s.TrimmedTo > 0 {
			ops = append(ops, fmt.Sprintf("truncated to %d pages", s.TrimmedTo))
		}
		if s.ExtendedTo > 0 {
			ops = append(ops, fmt.Sprintf("extended to %d pages", s.ExtendedTo))
		}
		rows = append(rows, []string{fmt.Sprint(s.ID), s.Path, fmt.Sprint(s.PagesWritten), strings.Join(ops, ", ")})
	}
	return rows
}
