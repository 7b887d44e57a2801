package view

import (
	"fmt"
	"io"
	"strings"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/report"
)

// Spaces prints `spaces`: a row for every tablespace file, then the location findings.
func Spaces(out *report.Output, ts []discovery.Tablespace, src *analysis.SpaceSources, fs []finding.Finding) error {
	if out.JSON {
		if ts == nil {
			ts = []discovery.Tablespace{}
		}
		return out.WriteJSON(ts)
	}
	var rows [][]string
	for _, t := range ts {
		loc := t.Location
		switch loc {
		case discovery.LocKnown:
			loc = out.Paint(report.Good, loc)
		default:
			loc = out.Paint(report.Warn, loc)
		}
		sz := fmt.Sprint(t.PageSize)
		if t.PhysicalPageSize != t.PageSize {
			sz += fmt.Sprintf("/%d", t.PhysicalPageSize)
		}
		extra := t.Note
		if t.Error != "" {
			extra = out.Paint(report.Bad, t.Error)
		}
		if dd := dictionaryNote(t.Tables, t.DDPath); dd != "" {
			extra = strings.TrimPrefix(extra+"; "+dd, "; ")
		}
		rows = append(rows, []string{src.ShownID(t), t.Path, t.FoundBy, fmt.Sprintf("0x%x", t.Flags.Raw), sz,
			fmt.Sprint(t.Pages), t.ChecksumAlgorithm, fmt.Sprint(t.FirstPageLSN), loc, extra})
	}
	if err := out.Table([]string{"SPACE", "PATH", "FOUND BY", "FLAGS", "PAGE SIZE", "PAGES", "CHECKSUM", "PAGE 0 LSN", "LOCATION", "NOTE"}, rows); err != nil {
		return err
	}
	return findings(out, fs)
}

// SpaceAnswer prints the answer for one space id (`spaces --space`): a verdict line, then each
// source.
func SpaceAnswer(out *report.Output, a *analysis.SpaceAnswer) error {
	if out.JSON {
		return out.WriteJSON(a)
	}
	disk := "on disk"
	if !a.OnDisk {
		disk = out.Paint(report.Bad, "not on disk")
	}
	what := "is " + a.Table
	if a.Table == "" {
		what = "(no table)" // the system, an undo or the temporary tablespace
	}
	fmt.Fprintf(out.Writer(), "space %d %s: %s (%s); trusted: %s\n", a.SpaceID, what, a.File, disk, a.Trusted)
	var rows [][]string
	for _, f := range a.Page0 {
		id := "unknown (page 0 is all zero)"
		if f.Page0ID != nil {
			id = fmt.Sprint(*f.Page0ID)
		}
		v := fmt.Sprintf("%s: space id %s, %d pages, page 0 LSN %d", f.Path, id, f.Pages, f.Page0LSN)
		if f.LogID != nil {
			v += fmt.Sprintf("; the log gives it space %d", *f.LogID)
		}
		rows = append(rows, []string{"page 0", v})
	}
	if len(a.Page0) == 0 {
		rows = append(rows, []string{"page 0", "no file found carries this id"})
	}
	if a.Log != nil {
		var ev []string
		for _, e := range a.Log.Events {
			x := fmt.Sprintf("%s@%d %s", e.Kind, e.LSN, e.Name)
			if e.NewName != "" {
				x += " -> " + e.NewName
			}
			ev = append(ev, x)
		}
		rows = append(rows, []string{"redo log", a.Log.Name + ": " + strings.Join(ev, ", ")})
	} else {
		rows = append(rows, []string{"redo log", "no file record for this id after the checkpoint"})
	}
	for _, d := range a.Dict {
		rows = append(rows, []string{"dictionary", fmt.Sprintf("%s (table id %d)", d.Name, d.ID)})
	}
	if len(a.Dict) == 0 {
		rows = append(rows, []string{"dictionary", "no live SYS_TABLES row on disk for this id (a row the log inserts is not read here)"})
	}
	for _, s := range a.Sources {
		rows = append(rows, []string{"unreadable", s})
	}
	rows = append(rows, []string{"trusted", a.Trusted + ": " + a.Why})
	return out.Table([]string{"SOURCE", "SAYS"}, rows)
}

// Map prints `map`: each space with its file's state and its events, the LSN range and the
// findings (on stderr with --json, whose document is the list of spaces).
func Map(out *report.Output, stderr io.Writer, m *analysis.Map, datadir string, fs []finding.Finding) error {
	spaces := m.Sorted()
	if out.JSON {
		if err := Trailing(out, stderr, fs); err != nil {
			return err
		}
		return out.WriteJSON(spaces)
	}
	var rows [][]string
	for _, s := range spaces {
		var ev []string
		for _, e := range s.Events {
			x := fmt.Sprintf("%s@%d", e.Kind, e.LSN)
			if e.Kind == analysis.Rename {
				x += " " + e.Name + " -> " + e.NewName
			} else if e.Name != s.Name {
				x += " " + e.Name
			}
			ev = append(ev, x)
		}
		name := s.Name
		if dd := dictionaryNote(s.Tables, s.DDPath); dd != "" {
			name += "\n" + dd
		}
		rows = append(rows, []string{fmt.Sprint(s.ID), name, s.FileState(datadir), strings.Join(ev, "\n")})
	}
	if err := out.Table([]string{"SPACE", "NAME", "STATE", "EVENTS (kind@mini-transaction LSN)"}, rows); err != nil {
		return err
	}
	if m.AtLSN != 0 && m.AtLSN < m.EndLSN {
		fmt.Fprintf(out.Writer(), "file records from LSN %d to the mini-transactions before LSN %d (--at-lsn; the log ends at %d)\n", m.FromLSN, m.AtLSN, m.EndLSN)
	} else {
		fmt.Fprintf(out.Writer(), "file records from LSN %d to the end of the log at %d\n", m.FromLSN, m.EndLSN)
	}
	return findings(out, fs)
}

// dictionaryNote is what a MySQL 8 data dictionary says of a tablespace: its tables and the
// file name it gives ("" where no dictionary was read).
func dictionaryNote(tables []string, ddPath string) string {
	var parts []string
	if len(tables) > 0 {
		shown := tables
		if len(shown) > 3 {
			shown = append(append([]string(nil), tables[:3]...), fmt.Sprintf("and %d more", len(tables)-3))
		}
		parts = append(parts, "tables: "+strings.Join(shown, ", "))
	}
	if ddPath != "" {
		parts = append(parts, "dictionary: "+ddPath)
	}
	return strings.Join(parts, "; ")
}
