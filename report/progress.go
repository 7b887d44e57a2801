package report

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mattn/go-isatty"
)

// Progress is a one-line progress bar on stderr, drawn only when stderr is a terminal.
type Progress struct {
	w     io.Writer
	label string
	total int64
	last  time.Time
	shown bool
}

// NewProgress returns a progress bar for work of the given total size (e.g. bytes).
func NewProgress(label string, total int64) *Progress {
	p := &Progress{label: label, total: total}
	if isatty.IsTerminal(os.Stderr.Fd()) && total > 0 {
		p.w = os.Stderr
	}
	return p
}

// Set reports that done units of the total are finished; it redraws at most 10 times a second.
func (p *Progress) Set(done int64) {
	if p.w == nil || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last, p.shown = time.Now(), true
	pct := float64(done) * 100 / float64(p.total)
	if pct > 100 {
		pct = 100
	}
	const width = 30
	n := int(pct * width / 100)
	bar := make([]byte, width)
	for i := range bar {
		bar[i] = '.'
		if i < n {
			bar[i] = '#'
		}
	}
	fmt.Fprintf(p.w, "\r%s [%s] %5.1f%%", fitLabel(p.label, Width(p.w)-(width+10)), bar, pct)
}

// fitLabel shortens label to room characters by eliding its middle ("reading /a/…/ibdata1"),
// so that the bar stays on one line of the terminal (room <= 0: unlimited).
func fitLabel(label string, room int) string {
	r := []rune(label)
	if room <= 0 || len(r) <= room || room < 9 {
		return label
	}
	keep := room - 1
	return string(r[:keep/2]) + "…" + string(r[len(r)-(keep-keep/2):])
}

// Done clears the bar.
func (p *Progress) Done() {
	if p.w != nil && p.shown {
		fmt.Fprintf(p.w, "\r%*s\r", len(fitLabel(p.label, Width(p.w)-40))+42, "")
	}
}

// ProgressFunc is a progress bar labelled label on a terminal, as a callback for the library, and
// the function that ends it.
func ProgressFunc(label string) (set func(done, total int64), done func()) {
	var p *Progress
	ended := false
	return func(n, total int64) {
			if p == nil && !ended {
				p = NewProgress(label, total)
			}
			if p != nil {
				p.Set(n)
			}
		}, func() {
			if p != nil {
				p.Done()
			}
			p, ended = nil, true
		}
}
