// Package report renders results: tables (tablewriter), JSON, JSON Lines, colour and progress.
// It knows nothing about InnoDB.
package report

import (
	"bufio"
	"encoding/json"
	"io"
	"os"

	"github.com/fatih/color"
	"github.com/mattn/go-isatty"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// Output is where a command prints its result.
type Output struct {
	w     *bufio.Writer
	JSON  bool // print JSON instead of tables
	color bool
}

// New returns an Output on w. Colour is used only when w is a terminal and NO_COLOR is unset.
func New(w io.Writer, jsonOut bool) *Output {
	o := &Output{w: bufio.NewWriterSize(w, 1<<16), JSON: jsonOut}
	if f, ok := w.(*os.File); ok && !jsonOut && os.Getenv("NO_COLOR") == "" {
		o.color = isatty.IsTerminal(f.Fd())
	}
	return o
}

// Flush writes out buffered output; call it once at the end.
func (o *Output) Flush() error { return o.w.Flush() }

// Writer is the buffered writer under the output, for free-form lines.
func (o *Output) Writer() io.Writer { return o.w }

// Tone is the meaning of a value, used to colour it on a terminal.
type Tone int

// Tones.
const (
	Plain Tone = iota
	Good
	Warn
	Bad
)

// Paint colours s by its tone when the output is a terminal.
func (o *Output) Paint(t Tone, s string) string {
	if !o.color {
		return s
	}
	c := map[Tone]color.Attribute{Good: color.FgGreen, Warn: color.FgYellow, Bad: color.FgRed}[t]
	if c == 0 {
		return s
	}
	p := color.New(c)
	p.EnableColor()
	return p.Sprint(s)
}

// Table prints rows under headers as a boxed table.
func (o *Output) Table(headers []string, rows [][]string) error {
	t := tablewriter.NewTable(o.w, tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNone))
	t.Header(toAny(headers)...)
	if err := t.Bulk(rows); err != nil {
		return err
	}
	return t.Render()
}

// Stream is a table printed row by row, for listings too long to hold in memory.
type Stream struct{ t *tablewriter.Table }

// Stream starts a streaming table with fixed column widths.
func (o *Output) Stream(headers []string, widths []int) (*Stream, error) {
	cw := tw.NewMapper[int, int]()
	for i, w := range widths {
		cw.Set(i, w)
	}
	t := tablewriter.NewTable(o.w, tablewriter.WithStreaming(tw.StreamConfig{Enable: true}),
		tablewriter.WithColumnWidths(cw), tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapTruncate))
	if err := t.Start(); err != nil {
		return nil, err
	}
	t.Header(toAny(headers)...)
	return &Stream{t}, nil
}

// Row appends one row.
func (s *Stream) Row(cells ...string) error { return s.t.Append(cells) }

// Close prints the table's bottom border.
func (s *Stream) Close() error { return s.t.Close() }

func toAny(s []string) []any {
	a := make([]any, len(s))
	for i, x := range s {
		a[i] = x
	}
	return a
}

// WriteJSON prints v as indented JSON.
func (o *Output) WriteJSON(v any) error {
	e := json.NewEncoder(o.w)
	e.SetIndent("", "  ")
	return e.Encode(v)
}

// WriteJSONLine prints v as one line of JSON (JSON Lines).
func (o *Output) WriteJSONLine(v any) error { return json.NewEncoder(o.w).Encode(v) }
