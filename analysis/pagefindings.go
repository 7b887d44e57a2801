package analysis

import (
	"fmt"
	"sort"

	"innoscope/discovery"
	"innoscope/finding"
)

// pageFindings: corrupt pages, pages recovery must read that are corrupt, pages from the future.
// The pages of the files in zero0 (page 0 all zero, reported by page0Findings) are checked
// against flags they do not have: their verdicts are derived and not reported.
func pageFindings(in Input, exp map[string]expectation, zero0 map[string]bool) []finding.Finding {
	var fs []finding.Finding
	need := map[uint32]map[uint32]bool{} // space → pages recovery reads (true) or rebuilds (false)
	if in.Analysis != nil {
		for id, read := range in.Analysis.Pages {
			if need[id.Space] == nil {
				need[id.Space] = map[uint32]bool{}
			}
			need[id.Space][id.Page] = read
		}
	}
	blank := map[string]bool{} // files whose page 0 is all zero: no flags to check pages by
	for _, t := range in.Spaces {
		if t.Note == discovery.NotePage0Zero {
			blank[absPath(in.Datadir, t.Path)] = true
		}
	}
	paths := make([]string, 0, len(in.Pages))
	for p := range in.Pages {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		r := in.Pages[p]
		id := r.SpaceID
		if e, ok := exp[absPath(in.Datadir, p)]; ok {
			id = e.id
		}
		corrupt := r.Corrupt
		switch a := absPath(in.Datadir, p); {
		case zero0[a]:
			corrupt = nil // page0Findings names the one fault
		case blank[a] && len(corrupt) > 0:
			// Page 0 not yet written (a file created after the checkpoint): the log rebuilds it,
			// and the server reads the other pages by the flags it gets there (page_compressed,
			// ROW_FORMAT=COMPRESSED sizes), which innoscope cannot know from the file.
			fs = append(fs, finding.Finding{Severity: finding.Info, Code: "PAGES_NOT_CHECKED", SpaceID: u32(id), File: p,
				Message: fmt.Sprintf("page 0 is all zero and the log rebuilds it; without its flags %d pages of this file cannot be checked (not reported as corrupt)", len(corrupt))})
			corrupt = nil
		}
		for _, no := range corrupt {
			read, touched := need[id][uint32(no)]
			if touched && !read {
				continue // an INIT_PAGE rebuilds it: its bytes on disk are never read
			}
			if !touched && id != 0 && r.PhysicalSize > 0 && no%int64(r.PhysicalSize) == 1 {
				// A change buffer bitmap page (FSP_IBUF_BITMAP_OFFSET of each descriptor group of
				// PhysicalSize pages). MariaDB 10.11, its change buffer off, still reads it: checked
				// on a dml crash with page 1 of a table corrupt, the server logs "Failed to read
				// page 1 ... corrupted" in crash recovery and at each page allocation, while
				// CHECK TABLE, CHECKSUM TABLE, INSERT and DELETE work; OPTIMIZE TABLE rebuilds it.
				fs = append(fs, finding.Finding{Severity: finding.Warning, Code: "CORRUPT_PAGE", SpaceID: u32(id), File: p,
					Message: fmt.Sprintf("page %d (a change buffer bitmap page): %s; the server logs \"Failed to read page %d ... corrupted\" errors in crash recovery and whenever it allocates or frees a page of the file, but the table's rows stay readable and writable (CHECK TABLE passes); OPTIMIZE TABLE rebuilds the file",
						no, r.Reasons[no], no)})
				continue
			}
			if !touched {
				fs = append(fs, finding.Finding{Severity: finding.Error, Code: "CORRUPT_PAGE", SpaceID: u32(id), File: p,
					Message: fmt.Sprintf("page %d: %s; recovery does not touch it, reading it later fails", no, r.Reasons[no])})
				continue
			}
			if copyOK(in.Dblwr[[2]uint32{id, uint32(no)}], r.Flags, uint32(no), id) {
				fs = append(fs, finding.Finding{Severity: finding.Warning, Code: "CORRUPT_PAGE_NEEDED", SpaceID: u32(id), File: p,
					Message: fmt.Sprintf("page %d: %s; recovery needs it and will restore it from the doublewrite buffer", no, r.Reasons[no])})
				continue
			}
			fs = append(fs, finding.Finding{Severity: finding.Error, Code: "CORRUPT_PAGE_NEEDED", SpaceID: u32(id), File: p,
				Message: fmt.Sprintf("page %d: %s; recovery must apply log records to it, no INIT_PAGE rebuilds it and the doublewrite buffer has no valid copy", no, r.Reasons[no])})
		}
		if len(r.Future) > 0 && in.EndLSN != 0 {
			log := in.LogName
			if log == "" {
				log = "the redo log"
			}
			fs = append(fs, finding.Finding{Severity: finding.Error, Code: "FILE_AHEAD_OF_LOG", SpaceID: u32(id), File: p, LSN: u64(in.EndLSN),
				Message: fmt.Sprintf("%d pages carry LSNs beyond the end of the log (page %d; largest LSN %d): this file is newer than %s, the server reports \"log sequence number ... is in the future\"",
					len(r.Future), r.Future[0], r.MaxLSN, log)})
		}
	}
	return fs
}

// copyOK reports whether a doublewrite copy of the page validates.
func copyOK(copies []discovery.DoublewriteCopy, fl discovery.Flags, page, space uint32) bool {
	for _, c := range copies {
		if len(c.Image) == fl.PageSize && !discovery.CheckPage(c.Image, fl, page, space).Corrupt {
			return true
		}
	}
	return false
}
