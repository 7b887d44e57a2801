package analysis

import (
	"fmt"
	"sort"

	"innoscope/discovery"
	"innoscope/finding"
)

// PageFindings are the findings of a verified datafile: CORRUPT_PAGE (error) for each page the
// server rejects, and INNOCHECKSUM_REJECTS (info) for the pages only innochecksum 10.11 rejects.
func PageFindings(r *discovery.Report) []finding.Finding {
	fs := []finding.Finding{}
	sp := r.SpaceID
	for _, no := range r.Corrupt {
		fs = append(fs, finding.Finding{Severity: finding.Error, Code: "CORRUPT_PAGE", SpaceID: &sp, File: r.Path,
			Message: fmt.Sprintf("page %d: %s", no, r.Reasons[no])})
	}
	var only []int64 // valid for the server, rejected by innochecksum
	for _, no := range r.InnochecksumCorrupt {
		if i := sort.Search(len(r.Corrupt), func(i int) bool { return r.Corrupt[i] >= no }); i == len(r.Corrupt) || r.Corrupt[i] != no {
			only = append(only, no)
		}
	}
	if len(only) > 0 {
		msg := fmt.Sprintf("%d pages valid for the server but reported by innochecksum 10.11 (first: page %d: %s)",
			len(only), only[0], r.Reasons[only[0]])
		if r.InnochecksumStops {
			msg += "; innochecksum stops at page 0 and checks nothing after it"
		}
		fs = append(fs, finding.Finding{Severity: finding.Info, Code: "INNOCHECKSUM_REJECTS", SpaceID: &sp, File: r.Path, Message: msg})
	}
	return fs
}

// PagesVerdict is the first line of `pages --verify`: how many pages are corrupt by the
// server's rule, and what innochecksum 10.11 would say.
func PagesVerdict(r *discovery.Report) finding.Verdict {
	ic := ""
	if n := len(r.InnochecksumCorrupt); n > 0 {
		ic = fmt.Sprintf("; innochecksum 10.11 would report %s", finding.Thousands(int64(n)))
		if r.InnochecksumStops {
			ic += " (it stops at page 0)"
		}
	}
	if n := len(r.Corrupt); n > 0 {
		return finding.Verdict{Severity: finding.Error, Code: "CORRUPT_PAGE", Count: n,
			Sentence: fmt.Sprintf("%s: CORRUPT_PAGE: %s of %s pages corrupt by the server's rule (first: page %d)%s",
				r.Path, finding.Thousands(int64(n)), finding.Thousands(r.Pages), r.Corrupt[0], ic)}
	}
	v := finding.Verdict{Severity: finding.Info,
		Sentence: fmt.Sprintf("%s: all %s pages valid by the server's rule%s", r.Path, finding.Thousands(r.Pages), ic)}
	if ic != "" {
		v.Severity = finding.Warning
	}
	if _, short := discovery.CutShort(r.Pages, r.FSPSize, r.PhysicalSize, r.PageSize); short {
		// A crash never leaves a file shorter than its page 0 says: it was cut (a copy).
		v.Severity = finding.Warning
		v.Sentence += fmt.Sprintf("; but the file ends after %s pages where its page 0 (FSP_SIZE) gives %s: it was cut short, pages %d to %d are missing",
			finding.Thousands(r.Pages), finding.Thousands(int64(r.FSPSize)), r.Pages, r.FSPSize-1)
	}
	return v
}
