package report

import (
	"bufio"
	"strings"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Tables: this file decides how a table fits the output's width (Output.Width; 0 is unlimited)
// and where its cells wrap, measuring text by its display width (a CJK character takes two
// columns, a colour escape none); tablewriter draws the box. A table whose columns cannot be
// narrowed enough turns into a list of one block per row. A streamed table (Stream, for
// listings of millions of rows) is drawn here with fixed column widths: tablewriter's streaming
// costs some 50 µs a row, 30 times what `log records` spends on a row.

// minWrapWidth is the narrowest a column is wrapped to before a table becomes a block list.
const minWrapWidth = 16

// readableWidth is the narrowest the last column (a message) may be wrapped to in a table:
// narrower, the rows are printed as blocks.
const readableWidth = 40

// lastColumnWidth is the narrowest the last column is made before other columns are narrowed.
const lastColumnWidth = readableWidth

// visibleLen is the number of terminal columns s takes: its display width (a wide character
// takes two, a colour escape none).
func visibleLen(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || s[i] == 0x1b {
			return twwidth.Width(s)
		}
	}
	return len(s)
}

// runeWidth is the number of columns r takes.
func runeWidth(r rune) int {
	if r < utf8.RuneSelf {
		return 1
	}
	return twwidth.Width(string(r))
}

// wrapCell splits s into lines of at most w visible characters, at spaces where it can and
// inside a word (a path) where it must. A cell painted as a whole keeps its colour on each line.
func wrapCell(s string, w int) []string {
	if visibleLen(s) <= w && !strings.Contains(s, "\n") {
		return []string{s}
	}
	pre, suf := "", ""
	if strings.HasPrefix(s, "\x1b[") && strings.HasSuffix(s, "\x1b[0m") {
		if j := strings.IndexByte(s, 'm'); j > 0 && j+1 <= len(s)-4 {
			pre, suf, s = s[:j+1], "\x1b[0m", s[j+1:len(s)-4]
		}
	}
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		lines = append(lines, wrapText(para, w)...)
	}
	if pre != "" {
		for i := range lines {
			lines[i] = pre + lines[i] + suf
		}
	}
	return lines
}

// wrapText wraps plain text at w columns: at spaces, and inside a word longer than a line.
func wrapText(s string, w int) []string {
	if w < 1 {
		w = 1
	}
	var lines []string
	var cur strings.Builder
	curW := 0
	for _, word := range strings.Split(s, " ") {
		ww := visibleLen(word)
		if curW > 0 && curW+1+ww <= w {
			cur.WriteByte(' ')
			cur.WriteString(word)
			curW += 1 + ww
			continue
		}
		if curW > 0 || cur.Len() > 0 {
			lines = append(lines, cur.String())
			cur.Reset()
			curW = 0
		}
		for ww > w {
			// Cut the longest head of the word that fits (at least one character), after its
			// last '/' when it has one (a path breaks between its names).
			n, cw, slash, slashW := 0, 0, 0, 0
			for i, r := range word {
				rw := runeWidth(r)
				if cw+rw > w && i > 0 {
					break
				}
				n, cw = i+utf8.RuneLen(r), cw+rw
				if r == '/' {
					slash, slashW = n, cw
				}
			}
			if slash > 0 && slash < n {
				n, cw = slash, slashW
			}
			lines = append(lines, word[:n])
			word, ww = word[n:], ww-cw
		}
		cur.WriteString(word)
		curW = ww
	}
	return append(lines, cur.String())
}

// tableWidth is the width of a line of a boxed table with these column widths (without padding).
func tableWidth(widths []int) int {
	n := 1
	for _, w := range widths {
		n += w + 3
	}
	return n
}

// fitWidths narrows the columns until the table is at most max wide: the last one (a message,
// a value) down to lastColumnWidth first, then the widest; false when that would take a column
// below minWrapWidth (or its own width, if smaller).
func fitWidths(widths []int, max int) bool {
	last := len(widths) - 1
	if over := tableWidth(widths) - max; over > 0 && last >= 0 && widths[last] > lastColumnWidth {
		widths[last] -= min(over, widths[last]-lastColumnWidth)
	}
	for tableWidth(widths) > max {
		wi := -1
		for i, w := range widths {
			if w > minWrapWidth && (wi < 0 || w > widths[wi]) {
				wi = i
			}
		}
		if wi < 0 {
			return false
		}
		widths[wi]--
	}
	return true
}

// border draws a horizontal line of the box.
func border(w *bufio.Writer, widths []int, left, mid, right string) {
	w.WriteString(left)
	for i, cw := range widths {
		if i > 0 {
			w.WriteString(mid)
		}
		for j := 0; j < cw+2; j++ {
			w.WriteString("─")
		}
	}
	w.WriteString(right)
	w.WriteByte('\n')
}

// writeRow draws one row, its cells wrapped to the column widths; centred for the header.
func writeRow(w *bufio.Writer, widths []int, cells []string, center bool) {
	if !center && fitsOneLine(widths, cells) {
		w.WriteString("│")
		for i, cw := range widths {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			w.WriteByte(' ')
			w.WriteString(c)
			spaces(w, cw+1-visibleLen(c))
			w.WriteString("│")
		}
		w.WriteByte('\n')
		return
	}
	wrapped := make([][]string, len(widths))
	lines := 1
	for i, cw := range widths {
		c := ""
		if i < len(cells) {
			c = cells[i]
		}
		wrapped[i] = wrapCell(c, cw)
		if len(wrapped[i]) > lines {
			lines = len(wrapped[i])
		}
	}
	for l := 0; l < lines; l++ {
		w.WriteString("│")
		for i, cw := range widths {
			c := ""
			if l < len(wrapped[i]) {
				c = wrapped[i][l]
			}
			pad := cw + 2 - visibleLen(c)
			left := 1
			if center {
				left = pad / 2
			}
			spaces(w, left)
			w.WriteString(c)
			spaces(w, pad-left)
			w.WriteString("│")
		}
		w.WriteByte('\n')
	}
}

// fitsOneLine tells whether every cell fits its column on one line.
func fitsOneLine(widths []int, cells []string) bool {
	for i, c := range cells {
		if i < len(widths) && (len(c) > widths[i] && visibleLen(c) > widths[i] || strings.IndexByte(c, '\n') >= 0) {
			return false
		}
	}
	return true
}

const blanks = "                                                                                "

// spaces writes n spaces.
func spaces(w *bufio.Writer, n int) {
	for n > len(blanks) {
		w.WriteString(blanks)
		n -= len(blanks)
	}
	if n > 0 {
		w.WriteString(blanks[:n])
	}
}

// Table prints rows under headers as a boxed table no wider than the output (its widest cells
// wrapped), or as one block per row when the columns would become too narrow.
func (o *Output) Table(headers []string, rows [][]string) error {
	widths := make([]int, len(headers))
	for i, h := range headers {
		widths[i] = visibleLen(h)
	}
	for _, r := range rows {
		for i, c := range r {
			if i < len(widths) {
				for _, line := range strings.Split(c, "\n") {
					if n := visibleLen(line); n > widths[i] {
						widths[i] = n
					}
				}
			}
		}
	}
	if o.width > 0 {
		last := len(widths) - 1
		natural := widths[last]
		if !fitWidths(widths, o.width) || widths[last] < min(natural, readableWidth) {
			o.blocks(headers, rows)
			return nil
		}
	}
	return o.drawTable(headers, rows, widths)
}

// drawTable has tablewriter draw a boxed table whose columns are widths wide (without their
// padding), every cell wrapped here to its column first.
func (o *Output) drawTable(headers []string, rows [][]string, widths []int) error {
	perColumn := tw.NewMapper[int, int]()
	for i, w := range widths {
		perColumn.Set(i, w+2)
	}
	t := tablewriter.NewTable(o.w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleLight)})),
		tablewriter.WithConfig(tablewriter.Config{
			Header: tw.CellConfig{Formatting: tw.CellFormatting{AutoFormat: tw.Off, AutoWrap: tw.WrapNone},
				Alignment: tw.CellAlignment{Global: tw.AlignCenter}},
			Row: tw.CellConfig{Formatting: tw.CellFormatting{AutoFormat: tw.Off, AutoWrap: tw.WrapNone},
				Alignment: tw.CellAlignment{Global: tw.AlignLeft}},
			Widths:   tw.CellWidth{PerColumn: perColumn},
			Behavior: tw.Behavior{TrimSpace: tw.Off},
		}))
	wrapped := func(cells []string) []string {
		out := make([]string, len(widths))
		for i := range widths {
			if i < len(cells) {
				out[i] = strings.Join(wrapCell(cells[i], widths[i]), "\n")
			}
		}
		return out
	}
	t.Header(wrapped(headers))
	for _, r := range rows {
		if err := t.Append(wrapped(r)); err != nil {
			return err
		}
	}
	return t.Render()
}

// blocks prints each row as a block: its first two cells on one line, then one line per other
// non-empty cell ("HEADER  value", the value wrapped under itself), a blank line between rows.
func (o *Output) blocks(headers []string, rows [][]string) {
	labels := make([]string, len(headers))
	label := 0
	for i, h := range headers {
		labels[i], _, _ = strings.Cut(h, " (") // "EVENTS (kind@LSN)": EVENTS
		if i >= 1 {
			label = max(label, len(labels[i]))
		}
	}
	indent := 2 + label + 2
	for n, r := range rows {
		if n > 0 {
			o.w.WriteByte('\n')
		}
		// Two cells head the block ("warning  CHECKPOINT_REJECTED", "5  ./db/t1.ibd"), but a
		// number in the second says nothing without its header ("4096  646535"): the first,
		// labelled, heads it then, and the second gets a line of its own.
		headCells := min(2, len(r))
		head := strings.TrimSpace(strings.Join(r[:headCells], "  "))
		if len(r) > 1 && len(headers) > 1 && isNumber(r[1]) {
			headCells, head = 1, strings.ToLower(labels[0])+" "+r[0]
		}
		for _, l := range wrapCell(head, o.width) {
			o.w.WriteString(l + "\n")
		}
		for i := headCells; i < len(r) && i < len(headers); i++ {
			if r[i] == "" || r[i] == "-" {
				continue
			}
			for j, l := range wrapCell(r[i], max(o.width-indent, minWrapWidth)) {
				if j == 0 {
					o.w.WriteString("  " + labels[i] + strings.Repeat(" ", indent-2-len(labels[i])) + l + "\n")
				} else {
					o.w.WriteString(strings.Repeat(" ", indent) + l + "\n")
				}
			}
		}
	}
	o.w.WriteByte('\n')
}

// isNumber reports a cell of decimal digits only.
func isNumber(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// Stream is a table printed row by row, for listings too long to hold in memory: the column
// widths are fixed when it starts, and a longer cell wraps within its row. When the output is
// too narrow for the box to leave the last column minStreamLast characters, the rows are
// printed without borders, the last cell wrapped under itself.
type Stream struct {
	o      *Output
	widths []int
	plain  bool
}

// minStreamLast is the narrowest the last column of a boxed stream may become.
const minStreamLast = 24

// Stream starts a streaming table; widths are the columns' widths including one space of
// padding on each side (the last one narrowed to fit the output's width).
func (o *Output) Stream(headers []string, widths []int) (*Stream, error) {
	inner := make([]int, len(widths))
	for i, w := range widths {
		inner[i] = max(w-2, 1)
	}
	s := &Stream{o: o, widths: inner}
	last := len(inner) - 1
	if o.width > 0 && tableWidth(inner) > o.width {
		inner[last] -= tableWidth(inner) - o.width
		if inner[last] < minStreamLast {
			s.plain = true
			used := 0
			for _, w := range inner[:last] {
				used += w + 1
			}
			inner[last] = max(o.width-used, minWrapWidth)
		}
	}
	if s.plain {
		writePlain(o.w, inner, headers)
		return s, nil
	}
	border(o.w, inner, "┌", "┬", "┐")
	writeRow(o.w, inner, headers, true)
	border(o.w, inner, "├", "┼", "┤")
	return s, nil
}

// writePlain writes a borderless row: cells padded to their widths, one space apart, the last
// wrapped under itself.
func writePlain(w *bufio.Writer, widths []int, cells []string) {
	last := len(widths) - 1
	indent := 0
	for i, cw := range widths[:last] {
		c := ""
		if i < len(cells) {
			c = cells[i]
		}
		w.WriteString(c)
		spaces(w, cw+1-visibleLen(c))
		indent += cw + 1
	}
	tail := ""
	if last < len(cells) {
		tail = cells[last]
	}
	for i, l := range wrapCell(tail, widths[last]) {
		if i > 0 {
			w.WriteByte('\n')
			spaces(w, indent)
		}
		w.WriteString(l)
	}
	w.WriteByte('\n')
}

// Row appends one row.
func (s *Stream) Row(cells ...string) error {
	if s.plain {
		writePlain(s.o.w, s.widths, cells)
		return nil
	}
	writeRow(s.o.w, s.widths, cells, false)
	return nil
}

// Close prints the table's bottom border.
func (s *Stream) Close() error {
	if !s.plain {
		border(s.o.w, s.widths, "└", "┴", "┘")
	}
	return nil
}
