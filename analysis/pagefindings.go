package analysis

import (
	"fmt"
	"sort"
	"strings"

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
	blank := map[string]bool{}   // files whose page 0 is all zero: no flags to check pages by
	startup := map[string]bool{} // the system and undo tablespaces: read while recovery runs
	for _, t := range in.Spaces {
		if t.Note == discovery.NotePage0Zero {
			blank[absPath(in.Datadir, t.Path)] = true
		}
		if t.FoundBy == discovery.FoundSystem || t.FoundBy == discovery.FoundUndo {
			startup[absPath(in.Datadir, t.Path)] = true
		}
	}
	recovery := in.Analysis != nil && len(in.Analysis.Pages) > 0
	var from uint64 // the checkpoint: doublewrite copies older than it are not used
	if in.Analysis != nil {
		from = in.Analysis.Map.FromLSN
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
			if !touched && in.Analysis.RestoresFromDoublewrite(id) && copyOK(in.Dblwr[[2]uint32{id, uint32(no)}], r.Flags, uint32(no), id, from, in.EndLSN) {
				fs = append(fs, finding.Finding{Severity: finding.Warning, Code: "CORRUPT_PAGE", SpaceID: u32(id), File: p,
					Message: fmt.Sprintf("page %d: %s; recovery does not touch it, but the doublewrite buffer holds a copy written since the checkpoint, which crash recovery writes back (\"Recovered page ... from the doublewrite buffer\")", no, r.Reasons[no])})
				continue
			}
			if !touched {
				fs = append(fs, finding.Finding{Severity: finding.Error, Code: "CORRUPT_PAGE", SpaceID: u32(id), File: p,
					Message: fmt.Sprintf("page %d: %s; recovery does not touch it, reading it later fails", no, r.Reasons[no])})
				continue
			}
			if copyOK(in.Dblwr[[2]uint32{id, uint32(no)}], r.Flags, uint32(no), id, from, in.EndLSN) {
				fs = append(fs, finding.Finding{Severity: finding.Warning, Code: "CORRUPT_PAGE_NEEDED", SpaceID: u32(id), File: p,
					Message: fmt.Sprintf("page %d: %s; recovery needs it and will restore it from the doublewrite buffer", no, r.Reasons[no])})
				continue
			}
			fs = append(fs, finding.Finding{Severity: finding.Error, Code: "CORRUPT_PAGE_NEEDED", SpaceID: u32(id), File: p,
				Message: fmt.Sprintf("page %d: %s; recovery must apply log records to it, no INIT_PAGE rebuilds it and the doublewrite buffer has no valid copy that recovery uses (one written between the checkpoint LSN %d and the end of the log)%s", no, r.Reasons[no], from, staleCopy(in.Dblwr[[2]uint32{id, uint32(no)}], from))})
		}
		if len(r.Future) > 0 && in.EndLSN != 0 {
			fs = append(fs, futureFinding(in, r, p, id, need[id], recovery, startup[absPath(in.Datadir, p)], from))
		}
	}
	return fs
}

// futureFinding is FILE_AHEAD_OF_LOG for the file p (tablespace id, pages r) whose pages
// r.Future carry LSNs beyond the end of the log. Before it applies the log, the server's crash
// recovery writes back the doublewrite buffer's copy (one from the checkpoint, at from, to the
// end of the log) of every page of a tablespace it has open that is all zero, corrupt, or from
// the future (buf_dblwr_t::recover: "Recovered page ... from the doublewrite buffer"); recovery
// then brings that copy up to the end of the log. A page the log rebuilds (INIT_PAGE) is never
// read, and one free at the end of the log is never used. When every page from the future is
// one of these the file comes out consistent with the log (a warning: its changes past the log
// are dropped); checked on MariaDB 10.11 (run r1 of f56c5d3, TestDiagnoseAgainstServer's "datafile
// newer than the log": it started and CHECK TABLE passed). Otherwise it is an error: the pages
// the server keeps mix the file's later state with the log's.
func futureFinding(in Input, r *discovery.Report, p string, id uint32, need map[uint32]bool, recovery, startup bool, from uint64) finding.Finding {
	log := in.LogName
	if log == "" {
		log = "the redo log"
	}
	var left []int64 // the pages from the future the server keeps
	restored, rebuilt := 0, 0
	for _, no := range r.Future {
		read, touched := need[uint32(no)]
		switch {
		case in.Analysis.RestoresFromDoublewrite(id) && copyOK(in.Dblwr[[2]uint32{id, uint32(no)}], r.Flags, uint32(no), id, from, in.EndLSN):
			restored++
		case touched && !read || in.Analysis != nil && in.Analysis.Freed[PageID{Space: id, Page: uint32(no)}]:
			rebuilt++ // an INIT_PAGE rebuilds it without reading it, or it is free at the end of the log
		default:
			left = append(left, no)
		}
	}
	msg := fmt.Sprintf("%d pages carry LSNs beyond the end of the log (page %d; largest LSN %d): this file is newer than %s, the server reports \"log sequence number ... is in the future\"",
		len(r.Future), r.Future[0], r.MaxLSN, log)
	var fates []string
	if restored > 0 {
		fates = append(fates, fmt.Sprintf("crash recovery writes back %d of them from the doublewrite buffer (copies written since the checkpoint, LSN %d) before it applies the log (\"Recovered page ... from the doublewrite buffer\")", restored, from))
	}
	if rebuilt > 0 {
		fates = append(fates, fmt.Sprintf("the log rebuilds or frees %d without reading them", rebuilt))
	}
	if len(left) == 0 {
		return finding.Finding{Severity: finding.Warning, Code: "FILE_AHEAD_OF_LOG", SpaceID: u32(id), File: p, LSN: u64(in.EndLSN),
			Message: msg + "; " + strings.Join(fates, ", and ") + ": the file comes out as the log leaves it, and what these pages held past the end of the log is dropped"}
	}
	if len(fates) > 0 {
		msg += "; " + strings.Join(fates, ", and ") + fmt.Sprintf("; %d are left as they are (page %d)", len(left), left[0])
	}
	rest := *r
	rest.Future = left
	if no, ok := futureNeeded(&rest, need, in.Dblwr, id, from, in.EndLSN); ok {
		// Seen on MariaDB 10.11 with a truncated log (TestTruncatedLog): a page from the
		// future is corrupt to recovery; the doublewrite buffer's older copy replaces it
		// when it has one, else the server stops.
		msg += fmt.Sprintf("; crash recovery must apply log records to page %d and the doublewrite buffer has no older copy of it, so the server refuses to start (\"Unable to apply log to corrupted page %d\")", no, no)
	} else if recovery && startup {
		// The server reads its system and undo pages (transaction system, rollback
		// segments, undo logs, dictionary) while crash recovery is still on, and a page
		// from the future then fails the read: seen on MariaDB 10.11 with a truncated log
		// and ibdata1 page 53, which the log does not change (TestTruncatedLog).
		msg += "; this tablespace is read during crash recovery, where such a page fails its read, so the server refuses to start (\"Failed to read page ... Data structure corruption\")"
	}
	return finding.Finding{Severity: finding.Error, Code: "FILE_AHEAD_OF_LOG", SpaceID: u32(id), File: p, LSN: u64(in.EndLSN), Message: msg}
}

// copyOK reports whether a doublewrite copy of the page that crash recovery from the checkpoint
// at from uses (DoublewriteCopy.Usable) validates.
func copyOK(copies []discovery.DoublewriteCopy, fl discovery.Flags, page, space uint32, from, to uint64) bool {
	for _, c := range copies {
		if c.Usable(from, to) && len(c.Image) == fl.PageSize && !discovery.CheckPage(c.Image, fl, page, space).Corrupt {
			return true
		}
	}
	return false
}

// staleCopy says why a valid-looking doublewrite copy of a page is not used: it is older than
// the checkpoint at from ("" when there is no such copy).
func staleCopy(copies []discovery.DoublewriteCopy, from uint64) string {
	for _, c := range copies {
		if c.LSN < from {
			return fmt.Sprintf("; the doublewrite buffer's copy (page LSN %d) is older than the checkpoint, and the server ignores such copies", c.LSN)
		}
	}
	return ""
}

// futureNeeded is the first page of r newer than the end of the log (endLSN) that crash
// recovery reads to apply records to (need: the space's pages recovery reads, true, or
// rebuilds, false) and for which the doublewrite buffer (dblwr) holds no valid copy that
// recovery from the checkpoint at from uses.
func futureNeeded(r *discovery.Report, need map[uint32]bool, dblwr map[[2]uint32][]discovery.DoublewriteCopy, id uint32, from, endLSN uint64) (int64, bool) {
	for _, no := range r.Future {
		if !need[uint32(no)] {
			continue
		}
		older := false
		for _, c := range dblwr[[2]uint32{id, uint32(no)}] {
			older = older || copyOK([]discovery.DoublewriteCopy{c}, r.Flags, uint32(no), id, from, endLSN)
		}
		if !older {
			return no, true
		}
	}
	return 0, false
}

// cutShortFindings: a datafile the log or the dictionary names that is shorter than the
// FSP_SIZE of its page 0 (discovery.CutShort), with pages recovery must read (no INIT_PAGE
// rebuilds them) beyond where the server finds its end: the server refuses to start, "Unable to
// apply log to corrupted page N" for the first of them (checked on a real crash whose table file
// was cut short: TestCutShortFile). One finding per file, naming the pages.
func cutShortFindings(in Input, exp map[string]expectation) []finding.Finding {
	if in.Analysis == nil {
		return nil
	}
	var fs []finding.Finding
	for _, t := range in.Spaces {
		if t.Error != "" || t.Note == discovery.NotePage0Zero || t.FoundBy == discovery.FoundSystem || t.FoundBy == discovery.FoundTemporary {
			continue
		}
		p := absPath(in.Datadir, t.Path)
		e, named := exp[p]
		id := t.SpaceID
		if named {
			id = e.id
		} else if t.FoundBy != discovery.FoundUndo {
			continue // nothing refers to it: the server never opens it
		}
		if _, trimmed := in.Analysis.Trims[id]; trimmed || id != t.SpaceID {
			continue // an undo truncation cuts the file first; another id: SPACE_ID_MISMATCH
		}
		cut, short := discovery.CutShort(t.Pages, t.FSPSize, t.PhysicalPageSize, t.PageSize)
		if !short {
			continue
		}
		var first, last uint32
		n := 0
		for pid, read := range in.Analysis.Pages {
			if pid.Space != id || !read || in.Analysis.Freed[pid] || int64(pid.Page) < cut {
				continue
			}
			if n == 0 || pid.Page < first {
				first = pid.Page
			}
			last = max(last, pid.Page)
			n++
		}
		if n == 0 {
			continue
		}
		fs = append(fs, finding.Finding{Severity: finding.Error, Code: "TRUNCATED_FILE", SpaceID: u32(id), File: t.Path,
			Message: fmt.Sprintf("the file holds %d pages (the server counts %d: whole extents) where the FSP_SIZE of its page 0 says %d: it was cut short, and recovery must read %d pages beyond that end (pages %d to %d) that no INIT_PAGE rebuilds: the server refuses to start (\"Unable to apply log to corrupted page %d in file %s\"); restore the whole file, or `innoscope recover --salvage` quarantines it (the table is lost in the copy)",
				t.Pages, cut, t.FSPSize, n, first, last, first, serverName(in.Datadir, t.Path))})
	}
	return fs
}
