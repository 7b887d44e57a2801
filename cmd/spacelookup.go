package cmd

import (
	"fmt"
	"strings"

	"innoscope/analysis"
	"innoscope/report"
)

// printSpaceAnswer prints the answer for one space id: a verdict line, then each source.
func printSpaceAnswer(out *report.Output, a *analysis.SpaceAnswer) error {
	disk := "on disk"
	if !a.OnDisk {
		disk = out.Paint(report.Bad, "not on disk")
	}
	fmt.Fprintf(out.Writer(), "space %d is %s: %s (%s); trusted: %s\n", a.SpaceID, a.Table, a.File, disk, a.Trusted)
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
