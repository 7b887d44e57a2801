package view

import (
	"fmt"
	"strings"

	"innoscope/report"
	"innoscope/rows"
)

// Dropped prints the dropped indexes `undrop --list` found: as a table, or with --json as
// {"dropped": [...]}.
func Dropped(out *report.Output, ds []rows.DroppedTable, scanned int64) error {
	if out.JSON {
		if ds == nil {
			ds = []rows.DroppedTable{}
		}
		return out.WriteJSON(map[string]any{"dropped": ds, "bytes_scanned": scanned})
	}
	var tbl [][]string
	for _, d := range ds {
		name, tid := d.Name, ""
		if name == "" {
			name = "?"
		}
		if d.TableID != 0 {
			tid = fmt.Sprint(d.TableID)
		}
		tbl = append(tbl, []string{name, tid, fmt.Sprint(d.IndexID), d.Index, fmt.Sprint(d.Leaves), fmt.Sprint(d.Upper),
			fmt.Sprint(d.Space), fmt.Sprint(d.PageSize), strings.Join(d.Sources, ", ")})
	}
	if err := out.Table([]string{"TABLE", "TABLE ID", "INDEX ID", "INDEX", "LEAF PAGES", "OTHER PAGES", "SPACE", "PAGE SIZE", "FOUND IN"}, tbl); err != nil {
		return err
	}
	what := fmt.Sprintf("%d indexes no live table has", len(ds))
	if len(ds) == 1 {
		what = "1 index no live table has"
	}
	_, err := fmt.Fprintf(out.Writer(), "%s, with pages whose checksums hold; read one with `innoscope undrop DIR DB.TABLE` (--index-id N, --schema FILE.sql)\n", what)
	return err
}
