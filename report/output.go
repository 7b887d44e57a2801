// Package report renders results: tables fitted to the terminal, JSON, JSON Lines, colour,
// progress, the verdict line and the HTML report. It knows nothing about InnoDB.
package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"
	"unsafe"

	"github.com/fatih/color"
	"github.com/mattn/go-isatty"
)

// Output is where a command prints its result.
type Output struct {
	w     *bufio.Writer
	JSON  bool // print JSON instead of tables
	color bool
	width int // the widest a line may be; 0: unlimited
	lines *lineWrapper
}

// colorMode is the --color setting of the running command: auto, always or never.
var colorMode = "auto"

// SetColor sets how later Outputs colour: "auto" (on a terminal, unless NO_COLOR is set or
// TERM is dumb), "always" or "never".
func SetColor(mode string) error {
	switch mode {
	case "auto", "always", "never":
		colorMode = mode
		return nil
	}
	return fmt.Errorf("--color %q: want auto, always or never", mode)
}

// New returns an Output on w, coloured as SetColor says and as wide as Width(w).
func New(w io.Writer, jsonOut bool) *Output {
	o := &Output{w: bufio.NewWriterSize(w, 1<<16), JSON: jsonOut}
	if !jsonOut {
		o.color = UseColor(w)
		o.width = Width(w)
	}
	return o
}

// UseColor tells whether output to w is coloured: --color always, or auto on a terminal
// with NO_COLOR unset and TERM not dumb.
func UseColor(w io.Writer) bool {
	switch colorMode {
	case "always":
		return true
	case "never":
		return false
	}
	f, ok := w.(*os.File)
	return ok && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb" && isatty.IsTerminal(f.Fd())
}

// Width is the widest a line written to w may be: COLUMNS when set (tests and scripts force
// a width with it), else the terminal's width when w is a terminal, else 0 (unlimited: a
// pipe or a file gets whole lines).
func Width(w io.Writer) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	f, ok := w.(*os.File)
	if !ok || !isatty.IsTerminal(f.Fd()) {
		return 0
	}
	var ws struct{ row, col, x, y uint16 }
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TIOCGWINSZ, uintptr(unsafe.Pointer(&ws))); e != 0 {
		return 0
	}
	return int(ws.col)
}

// Width is the widest a line of this output may be (0: unlimited).
func (o *Output) Width() int { return o.width }

// Flush writes out buffered output; call it once at the end.
func (o *Output) Flush() error {
	if o.lines != nil {
		o.lines.flush()
	}
	return o.w.Flush()
}

// Writer is the buffered writer under the output, for free-form lines: on a width-limited
// output, lines longer than the width are wrapped at spaces.
func (o *Output) Writer() io.Writer {
	if o.width == 0 {
		return o.w
	}
	if o.lines == nil {
		o.lines = &lineWrapper{o: o}
	}
	return o.lines
}

// Unwrapped prints s as one line whatever the width (a command line to copy).
func (o *Output) Unwrapped(s string) {
	if o.lines != nil {
		o.lines.flush()
	}
	o.w.WriteString(s)
	o.w.WriteByte('\n')
}

// lineWrapper wraps the lines written through it at the output's width.
type lineWrapper struct {
	o       *Output
	pending []byte
}

func (l *lineWrapper) Write(p []byte) (int, error) {
	l.pending = append(l.pending, p...)
	for {
		i := bytes.IndexByte(l.pending, '\n')
		if i < 0 {
			return len(p), nil
		}
		for _, s := range wrapCell(string(l.pending[:i]), l.o.width) {
			l.o.w.WriteString(s)
			l.o.w.WriteByte('\n')
		}
		l.pending = l.pending[i+1:]
	}
}

func (l *lineWrapper) flush() {
	if len(l.pending) > 0 {
		l.o.w.Write(l.pending)
		l.pending = nil
	}
}

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

// WriteJSON prints v as indented JSON.
func (o *Output) WriteJSON(v any) error {
	e := json.NewEncoder(o.w)
	e.SetIndent("", "  ")
	return e.Encode(v)
}

// WriteJSONLine prints v as one line of JSON (JSON Lines).
func (o *Output) WriteJSONLine(v any) error { return json.NewEncoder(o.w).Encode(v) }
