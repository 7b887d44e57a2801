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
	fmt.Fprintf(p.w, "\r%s [%s] %5.1f%%", p.label, bar, pct)
}

// Done clears the bar.
func (p *Progress) Done() {
	if p.w != nil && p.shown {
		fmt.Fprintf(p.w, "\r%*s\r", len(p.label)+42, "")
	}
}
