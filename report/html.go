package report

import (
	"html/template"
	"io"
	"sort"
	"strings"

	"innoscope/finding"
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
	// Counts are the numbers the banner and the tables give, as the diagnosis counted them.
	Counts Counts
	// Timeline is the redo log from the checkpoint to its end, with the file operations.
	Timeline Timeline
	// Spaces are the tablespaces: pages with log records and the page-LSN heat map.
	Spaces []SpaceHeat
	// Next are the commands that apply to this directory, in the order to run them.
	Next []NextStep
	// Trx are the transactions in the log after the checkpoint (nil: not part of the page).
	Trx *TrxSection
}

// Counts are the page counts of a report, each labelled where it is shown.
type Counts struct {
	// ToRecover is the verdict's count: the server's "InnoDB: To recover: N pages" (0 when it
	// cannot be known, as without the datafiles).
	ToRecover int
	// PagesWithRecords is every distinct page a record after the checkpoint names: the sum of
	// the tablespace table, more than ToRecover where the server drops pages before counting.
	PagesWithRecords int
	// PageRecords is the number of page records after the checkpoint.
	PageRecords int
	// Known: ToRecover is the server's count (the log is usable and the datafiles were read).
	Known bool
}

// NextStep is one command a report advises, with why.
type NextStep struct {
	Command string
	Why     string
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

// SpaceHeat is one tablespace: how many of its pages have log records, which are corrupt, and
// its pages' LSNs, reduced to at most HeatCells cells (each the highest LSN of its pages).
type SpaceHeat struct {
	ID    uint32
	Name  string
	Pages int64
	// PagesWithRecords are its pages that records after the checkpoint name.
	PagesWithRecords int
	// Cells are the page LSNs by cell; PagesPerCell pages make a cell (0: an empty page).
	Cells        []uint64
	PagesPerCell int64
	// Recover marks the cells holding a page recovery applies log records to.
	Recover []bool
	// Corrupt marks the cells holding a page that fails its checksum; CorruptPages counts them.
	Corrupt      []bool
	CorruptPages int
	// Rebuilt: page 0 is blank and the log creates the tablespace: recovery rebuilds it.
	Rebuilt bool
	Note    string // what is special about it (page 0 blank, unreadable, no file)
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
	sort.SliceStable(p.Spaces, func(i, j int) bool { return p.Spaces[i].PagesWithRecords > p.Spaces[j].PagesWithRecords })
	data := struct {
		*Page
		Sorted   []finding.Finding
		Tone     string
		Timeline template.HTML
		Heat     []heatView
		Legend   template.HTML
		Total    int // the sum of the tablespace table's pages with records
		Corrupt  int
		Refused  bool // the verdict: the server refuses to start
	}{Page: p, Sorted: fs, Refused: p.Verdict.Severity == finding.Error && len(fs) > 0 && finding.Refuses(fs[0]), Tone: [...]string{"ok", "warn", "bad"}[p.Verdict.Severity], Timeline: timelineSVG(&p.Timeline)}
	if p.Verdict.Severity == finding.Info {
		data.Tone = "ok"
	}
	for i := range p.Spaces {
		data.Total += p.Spaces[i].PagesWithRecords
		data.Corrupt += p.Spaces[i].CorruptPages
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

// breakable is s escaped for HTML with a line-break opportunity after every '/', and every word
// holding a '-' (where browsers break too) kept whole, so that a path wraps between its
// directories, never inside a name ("innoscope-|lab", "#sql-|ib37.ibd"). Spaces still break.
func breakable(s string) template.HTML {
	var b strings.Builder
	word := func(w string) {
		if strings.Contains(w, "-") {
			b.WriteString(`<span class="nw">` + template.HTMLEscapeString(w) + `</span>`)
		} else {
			b.WriteString(template.HTMLEscapeString(w))
		}
	}
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '/' || s[i] == ' ' {
			word(s[start:i])
			if s[i] == '/' {
				b.WriteString("/<wbr>")
			} else {
				b.WriteByte(' ')
			}
			start = i + 1
		}
	}
	word(s[start:])
	return template.HTML(b.String())
}
