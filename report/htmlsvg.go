package report

import (
	"fmt"
	"html/template"
	"strings"

	"innoscope/finding"
)

// Heat map colours: a page older than the checkpoint (light to dark blue by age), written
// after the checkpoint (purple), one recovery applies log records to (orange), newer than the
// end of the log (red), empty (grey), corrupt (black).
const (
	colEmpty   = "#e5e7eb"
	colRecover = "#f59e0b"
	colAfter   = "#7c3aed"
	colFuture  = "#dc2626"
	colCorrupt = "#111827"
)

// cellColour is the colour of a cell's LSN.
func cellColour(lsn uint64, recover, corrupt bool, t *Timeline, min uint64) string {
	switch {
	case corrupt:
		return colCorrupt
	case !t.NoLog && lsn > t.End:
		return colFuture
	case recover:
		return colRecover
	case lsn == 0:
		return colEmpty
	case !t.NoLog && lsn > t.Checkpoint:
		return colAfter
	}
	top := t.Checkpoint
	if t.NoLog || top <= min {
		top = min + 1
	}
	f := float64(lsn-min) / float64(top-min)
	if f > 1 {
		f = 1
	}
	// from #dbeafe (old) to #1d4ed8 (just before the checkpoint)
	r := 0xdb + int(f*float64(0x1d-0xdb))
	g := 0xea + int(f*float64(0x4e-0xea))
	b := 0xfe + int(f*float64(0xd8-0xfe))
	return fmt.Sprintf("#%02x%02x%02x", r, g, b)
}

// heatSVG draws a tablespace's cells, 32 to a row, each with its pages and LSN as a tooltip; a
// corrupt cell has a red border besides its colour.
func heatSVG(s *SpaceHeat, t *Timeline) template.HTML {
	if len(s.Cells) == 0 {
		return ""
	}
	const per, size = 32, 12
	min := uint64(0)
	for _, l := range s.Cells {
		if l != 0 && (min == 0 || l < min) {
			min = l
		}
	}
	rows := (len(s.Cells) + per - 1) / per
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="heat" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="page LSNs of space %d">`, per*size, rows*size, per*size, rows*size, s.ID)
	for i, l := range s.Cells {
		first := int64(i) * s.PagesPerCell
		last := first + s.PagesPerCell - 1
		if last >= s.Pages {
			last = s.Pages - 1
		}
		what := fmt.Sprintf("page %d", first)
		if last > first {
			what = fmt.Sprintf("pages %d-%d", first, last)
		}
		rec := i < len(s.Recover) && s.Recover[i]
		bad := i < len(s.Corrupt) && s.Corrupt[i]
		note := ""
		if rec {
			note += "; recovery applies log records"
		}
		if bad {
			note += "; corrupt (fails its checksum)"
		}
		stroke := ""
		if bad {
			stroke = ` stroke="#dc2626" stroke-width="2"`
		}
		fmt.Fprintf(&b, `<rect class="%s" x="%d" y="%d" width="%d" height="%d" fill="%s"%s><title>%s: LSN %d%s</title></rect>`,
			cellClass(rec, bad), (i%per)*size, (i/per)*size, size-1, size-1, cellColour(l, rec, bad, t, min), stroke, what, l, note)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// cellClass names what a cell shows, for the tests that read the DOM.
func cellClass(recover, corrupt bool) string {
	switch {
	case corrupt:
		return "corrupt"
	case recover:
		return "recover"
	}
	return "page"
}

// legendSVG is the heat map's legend.
func legendSVG() template.HTML {
	items := []struct{ col, text string }{{"#dbeafe", "older than the checkpoint"}, {"#1d4ed8", "just before the checkpoint"},
		{colAfter, "written after the checkpoint"}, {colRecover, "recovery applies log records to it"},
		{colFuture, "newer than the end of the log"}, {colCorrupt, "corrupt (fails its checksum)"},
		{colEmpty, "empty page"}}
	var b strings.Builder
	b.WriteString(`<ul class="legend">`)
	for _, it := range items {
		fmt.Fprintf(&b, `<li><svg width="12" height="12"><rect width="11" height="11" fill="%s"/></svg> %s</li>`, it.col, template.HTMLEscapeString(it.text))
	}
	b.WriteString(`</ul>`)
	return template.HTML(b.String())
}

// timelineSVG draws the log from the checkpoint to its end on an LSN axis with labelled ticks,
// each file operation a coloured mark at its LSN (its tooltip names it; the table under it
// lists them), and a legend of the operations.
func timelineSVG(t *Timeline) template.HTML {
	if t.NoLog {
		return `<p>The redo log could not be used: no timeline.</p>`
	}
	const w, left, right, axis = 900, 70, 30, 44
	span := float64(t.End - t.Checkpoint)
	if span == 0 {
		span = 1
	}
	x := func(lsn uint64) float64 {
		if lsn < t.Checkpoint {
			lsn = t.Checkpoint
		}
		return left + float64(lsn-t.Checkpoint)/span*(w-left-right)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="timeline" width="%d" height="118" viewBox="0 0 %d 118" role="img" aria-label="redo log timeline: LSN %d to %d">`, w, w, t.Checkpoint, t.End)
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="lbl" text-anchor="end">LSN</text>`, left-12, axis+4)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#374151" stroke-width="3"/>`, left, axis, w-right, axis)
	const ticks = 4
	for i := 0; i <= ticks; i++ {
		lsn := t.Checkpoint + uint64(float64(t.End-t.Checkpoint)*float64(i)/ticks)
		px, anchor := x(lsn), "middle"
		if i == 0 {
			anchor = "start"
		} else if i == ticks {
			anchor = "end"
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#374151"/><text x="%.1f" y="%d" class="tick" text-anchor="%s">%s</text>`,
			px, axis+6, px, axis+12, px, axis+26, anchor, finding.Thousands(int64(lsn)))
	}
	fmt.Fprintf(&b, `<text x="%d" y="16" class="lbl">checkpoint (recovery starts)</text>`, left)
	fmt.Fprintf(&b, `<text x="%d" y="16" class="lbl" text-anchor="end">end of log (recovery stops)</text>`, w-right)
	for _, e := range t.Events {
		px := x(e.LSN)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="2"><title>%s@%d space %d %s</title></line>`,
			px, axis-12, px, axis+2, eventColour(e.Kind), template.HTMLEscapeString(e.Kind), e.LSN, e.Space, template.HTMLEscapeString(e.Name))
	}
	fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="6" fill="#2563eb"><title>checkpoint %d</title></circle>`, left, axis, t.Checkpoint)
	fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="6" fill="#111827"><title>end of log %d</title></circle>`, w-right, axis, t.End)
	lx := left
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="ev">%s bytes of log, %d file operations:</text>`, lx, axis+58, finding.Thousands(int64(t.End-t.Checkpoint)), len(t.Events))
	lx += 300
	for _, k := range []string{"create", "modify", "rename", "delete"} {
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/><text x="%d" y="%d" class="ev">%s</text>`,
			lx, axis+48, lx, axis+60, eventColour(k), lx+6, axis+58, k)
		lx += 80
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func eventColour(kind string) string {
	switch kind {
	case "create":
		return "#16a34a"
	case "delete":
		return "#dc2626"
	case "rename":
		return "#9333ea"
	}
	return "#6b7280"
}
