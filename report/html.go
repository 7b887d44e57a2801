package report

import (
	"fmt"
	"html/template"
	"innoscope/finding"
	"io"
	"sort"
	"strings"
)

// Page is one incident report: what `innoscope report` writes as a self-contained HTML file
// (inline CSS and SVG, no script, no external URL), for a ticket.
type Page struct {
	Title    string // the data directory
	Version  string // innoscope's version
	Verdict  finding.Verdict
	Findings []finding.Finding
	// Summary counts findings per severity name.
	Summary map[string]int
	// Timeline is the redo log from the checkpoint to its end, with the file operations.
	Timeline Timeline
	// Spaces are the tablespaces: pages to recover and the page-LSN heat map.
	Spaces []SpaceHeat
}

// Timeline is the stretch of the log recovery reads.
type Timeline struct {
	Checkpoint uint64
	End        uint64
	Events     []TimelineEvent
	NoLog      bool // the log could not be used
}

// TimelineEvent is one file operation at its mini-transaction's LSN.
type TimelineEvent struct {
	LSN   uint64
	Kind  string // create, modify, rename, delete
	Space uint32
	Name  string
}

// SpaceHeat is one tablespace: how many of its pages recovery applies records to, and its
// pages' LSNs, reduced to at most HeatCells cells (each the highest LSN of its pages).
type SpaceHeat struct {
	ID             uint32
	Name           string
	Pages          int64
	PagesToRecover int
	// Cells are the page LSNs by cell; PagesPerCell pages make a cell (0: an empty page).
	Cells        []uint64
	PagesPerCell int64
	// Recover marks the cells holding a page recovery applies log records to.
	Recover []bool
	Note    string // why there is no heat map (page 0 blank, unreadable)
	Unknown bool   // the space id is not known (page 0 unreadable, not named by the log)
}

// HeatCells is the most cells a tablespace's heat map has.
const HeatCells = 512

// HeatOf reduces a file's page LSNs (lsns[i] of page i) to at most HeatCells cells.
func HeatOf(lsns []uint64) ([]uint64, int64) {
	per := int64(1)
	for int64(len(lsns)) > per*HeatCells {
		per *= 2
	}
	cells := make([]uint64, (int64(len(lsns))+per-1)/per)
	for i, l := range lsns {
		if c := int64(i) / per; l > cells[c] {
			cells[c] = l
		}
	}
	return cells, per
}

// WriteHTML writes the report as one HTML document.
func WriteHTML(w io.Writer, p *Page) error {
	fs := finding.SortFindings(p.Findings)
	sort.SliceStable(p.Spaces, func(i, j int) bool { return p.Spaces[i].PagesToRecover > p.Spaces[j].PagesToRecover })
	data := struct {
		*Page
		Sorted   []finding.Finding
		Tone     string
		Timeline template.HTML
		Heat     []heatView
		Legend   template.HTML
	}{Page: p, Sorted: fs, Tone: [...]string{"ok", "warn", "bad"}[p.Verdict.Severity], Timeline: timelineSVG(&p.Timeline)}
	if p.Verdict.Severity == finding.Info {
		data.Tone = "ok"
	}
	for i := range p.Spaces {
		data.Heat = append(data.Heat, heatView{SpaceHeat: &p.Spaces[i], SVG: heatSVG(&p.Spaces[i], &p.Timeline)})
	}
	data.Legend = legendSVG()
	return pageTemplate.Execute(w, data)
}

// heatView is a tablespace with its rendered heat map.
type heatView struct {
	*SpaceHeat
	SVG template.HTML
}

// Heat map colours: a page older than the checkpoint (light to dark blue by age), written
// after the checkpoint (purple), one recovery applies log records to (orange), newer than the
// end of the log (red), empty (grey).
const (
	colEmpty   = "#e5e7eb"
	colRecover = "#f59e0b"
	colAfter   = "#7c3aed"
	colFuture  = "#dc2626"
)

// cellColour is the colour of a cell's LSN.
func cellColour(lsn uint64, recover bool, t *Timeline, min uint64) string {
	switch {
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

// heatSVG draws a tablespace's cells, 32 to a row, each with its pages and LSN as a tooltip.
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
	fmt.Fprintf(&b, `<svg class="heat" width="%d" height="%d" role="img" aria-label="page LSNs of space %d">`, per*size, rows*size, s.ID)
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
		note := ""
		if rec {
			note = "; recovery applies log records"
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"><title>%s: LSN %d%s</title></rect>`,
			(i%per)*size, (i/per)*size, size-1, size-1, cellColour(l, rec, t, min), what, l, note)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// legendSVG is the heat map's legend.
func legendSVG() template.HTML {
	items := []struct{ col, text string }{{"#dbeafe", "older than the checkpoint"}, {"#1d4ed8", "just before the checkpoint"},
		{colAfter, "written after the checkpoint"}, {colRecover, "recovery applies log records to it"},
		{colFuture, "newer than the end of the log"},
		{colEmpty, "empty page"}}
	var b strings.Builder
	b.WriteString(`<ul class="legend">`)
	for _, it := range items {
		fmt.Fprintf(&b, `<li><svg width="12" height="12"><rect width="11" height="11" fill="%s"/></svg> %s</li>`, it.col, template.HTMLEscapeString(it.text))
	}
	b.WriteString(`</ul>`)
	return template.HTML(b.String())
}

// timelineSVG draws the log from the checkpoint to its end, each file operation a tick at its
// LSN (its tooltip names it); the operations are listed in the table under it.
func timelineSVG(t *Timeline) template.HTML {
	if t.NoLog {
		return `<p>The redo log could not be used: no timeline.</p>`
	}
	const w, left, right = 900, 20, 20
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
	fmt.Fprintf(&b, `<svg class="timeline" width="%d" height="64" role="img" aria-label="LSN timeline">`, w)
	fmt.Fprintf(&b, `<line x1="%d" y1="36" x2="%d" y2="36" stroke="#374151" stroke-width="3"/>`, left, w-right)
	fmt.Fprintf(&b, `<text x="%d" y="16" class="lbl">checkpoint %d</text>`, left, t.Checkpoint)
	fmt.Fprintf(&b, `<text x="%d" y="16" class="lbl" text-anchor="end">end of log %d</text>`, w-right, t.End)
	for _, e := range t.Events {
		px := x(e.LSN)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="26" x2="%.1f" y2="46" stroke="%s" stroke-width="2"><title>%s@%d space %d %s</title></line>`,
			px, px, eventColour(e.Kind), template.HTMLEscapeString(e.Kind), e.LSN, e.Space, template.HTMLEscapeString(e.Name))
	}
	fmt.Fprintf(&b, `<circle cx="%d" cy="36" r="6" fill="#2563eb"><title>checkpoint %d</title></circle>`, left, t.Checkpoint)
	fmt.Fprintf(&b, `<circle cx="%d" cy="36" r="6" fill="#111827"><title>end of log %d</title></circle>`, w-right, t.End)
	fmt.Fprintf(&b, `<text x="%d" y="60" class="ev">%s bytes of log, %d file operations</text>`, left, finding.Thousands(int64(t.End-t.Checkpoint)), len(t.Events))
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

var pageTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"lsn": func(p *uint64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	},
	"space": func(p *uint32) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	},
	"thousands": func(n int64) string { return finding.Thousands(n) },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>innoscope report: {{.Title}}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#111827;max-width:1200px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px;border-bottom:1px solid #e5e7eb}
.verdict{font-size:18px;font-weight:600;padding:12px 16px;border-radius:6px;margin:12px 0}
.verdict.ok{background:#dcfce7;color:#14532d}.verdict.warn{background:#fef3c7;color:#78350f}.verdict.bad{background:#fee2e2;color:#7f1d1d}
table{border-collapse:collapse;width:100%}th,td{border:1px solid #e5e7eb;padding:4px 8px;text-align:left;vertical-align:top}td.w{overflow-wrap:anywhere}td.n{white-space:nowrap}
svg{max-width:100%;height:auto}
th{background:#f9fafb}td.sev-error{color:#b91c1c;font-weight:600}td.sev-warning{color:#b45309;font-weight:600}
code{font-family:ui-monospace,monospace}.muted{color:#6b7280}
.lbl{font:12px sans-serif;fill:#111827}.ev{font:11px ui-monospace,monospace;fill:#374151}
td.op-create{color:#16a34a}td.op-delete{color:#dc2626}td.op-rename{color:#9333ea}
.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:16px}.space{margin:12px 0}
</style>
</head>
<body>
<h1>innoscope report</h1>
<div class="muted"><code>{{.Title}}</code> · innoscope {{.Version}} · {{index .Summary "error"}} errors, {{index .Summary "warning"}} warnings, {{index .Summary "info"}} info</div>
<div class="verdict {{.Tone}}" id="verdict">{{.Verdict.Sentence}}</div>

<h2>Findings</h2>
{{if .Sorted}}<table id="findings"><thead><tr><th>Severity</th><th>Code</th><th>Space</th><th>File</th><th>LSN</th><th>Message</th></tr></thead><tbody>
{{range .Sorted}}<tr><td class="sev-{{.Severity}}">{{.Severity}}</td><td class="n"><code>{{.Code}}</code></td><td class="n">{{space .SpaceID}}</td><td class="w"><code>{{.File}}</code></td><td class="n">{{lsn .LSN}}</td><td class="w">{{.Message}}</td></tr>
{{end}}</tbody></table>{{else}}<p>No findings.</p>{{end}}

<h2>Redo log timeline</h2>
{{.Timeline}}
{{if .Page.Timeline.Events}}<table id="fileops"><thead><tr><th>LSN</th><th>File operation</th><th>Space</th><th>Name</th></tr></thead><tbody>
{{range .Page.Timeline.Events}}<tr><td class="n">{{.LSN}}</td><td class="op-{{.Kind}}">{{.Kind}}</td><td>{{.Space}}</td><td class="w"><code>{{.Name}}</code></td></tr>
{{end}}</tbody></table>{{end}}

<h2>Pages to recover per tablespace</h2>
<table id="pages"><thead><tr><th>Space</th><th>File</th><th>Pages</th><th>Pages to recover</th><th>Note</th></tr></thead><tbody>
{{range .Spaces}}<tr><td>{{if .Unknown}}?{{else}}{{.ID}}{{end}}</td><td class="w"><code>{{.Name}}</code></td><td>{{thousands .Pages}}</td><td>{{.PagesToRecover}}</td><td>{{.Note}}</td></tr>
{{end}}</tbody></table>

<h2>Page LSN heat map</h2>
{{.Legend}}
{{range .Heat}}<div class="space"><div><b>space {{if .Unknown}}?{{else}}{{.ID}}{{end}}</b> <code>{{.Name}}</code> <span class="muted">{{thousands .Pages}} pages{{if gt .PagesPerCell 1}}, {{.PagesPerCell}} pages per cell{{end}}{{if .Note}}; {{.Note}}{{end}}</span></div>{{.SVG}}</div>
{{end}}
</body>
</html>
`))
