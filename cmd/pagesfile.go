package cmd

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"innoscope/discovery"
	"innoscope/report"
)

// refuseNonTablespace refuses, in one line, a file that is recognisably not a tablespace: a
// redo log (its header block) or a .frm (its magic bytes). Any other file is left to the page
// reader, whose own errors name what is wrong with page 0 (MySQL 5.0 files have no page type on
// page 0, so the type is not asked for).
func refuseNonTablespace(path string) error {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return nil // the page reader names it
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	head := make([]byte, discovery.MinPhysicalPageSize)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	what := ""
	switch {
	case n < 38 || discovery.IsZero(head):
		return nil
	case bytes.HasPrefix(head, []byte{0xfe, 0x01}):
		what = "a .frm table definition"
	case bytes.HasPrefix(head, []byte("Phys")) || bytes.HasPrefix(head, []byte("PHYS")) ||
		n >= 24 && (bytes.HasPrefix(head[16:], []byte("MariaDB")) || bytes.HasPrefix(head[16:], []byte("MySQL")) ||
			bytes.HasPrefix(head[16:], []byte("ibbackup"))):
		what = "a redo log (read it with `innoscope log`)"
	default:
		return nil
	}
	return fmt.Errorf("%s: offset 0: not a tablespace: %s", path, what)
}

// pagesVerdict is the first line of `pages --verify`: how many pages are corrupt by the
// server's rule, and what innochecksum 10.11 would say.
func pagesVerdict(r *discovery.Report) report.Verdict {
	ic := ""
	if n := len(r.InnochecksumCorrupt); n > 0 {
		ic = fmt.Sprintf("; innochecksum 10.11 would report %s", report.Thousands(int64(n)))
		if r.InnochecksumStops {
			ic += " (it stops at page 0)"
		}
	}
	if n := len(r.Corrupt); n > 0 {
		return report.Verdict{Severity: report.Error, Code: "CORRUPT_PAGE", Count: n,
			Sentence: fmt.Sprintf("%s: CORRUPT_PAGE: %s of %s pages corrupt by the server's rule (first: page %d)%s",
				r.Path, report.Thousands(int64(n)), report.Thousands(r.Pages), r.Corrupt[0], ic)}
	}
	v := report.Verdict{Severity: report.Info,
		Sentence: fmt.Sprintf("%s: all %s pages valid by the server's rule%s", r.Path, report.Thousands(r.Pages), ic)}
	if ic != "" {
		v.Severity = report.Warning
	}
	return v
}
