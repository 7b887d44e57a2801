package analysis

import (
	"fmt"
	"path/filepath"
	"strings"

	"innoscope/discovery"
	"innoscope/finding"
)

// A datafile whose page 0 is all zero (a torn or never written first page) has no flags, so
// neither the page size nor the checksum scheme of its other pages is known: every check of
// them is derived from the missing page 0. Unless crash recovery restores page 0 from the
// doublewrite buffer (RestorePage0), the server judges such a file by page 0 alone (measured on
// MariaDB 10.11 with page 0 of real files zeroed):
//   - the system tablespace: it refuses to start ("The data file './ibdata1' has the wrong space
//     ID. It should be 0, but 0 was found");
//   - a tablespace the log must read pages of, page 0 not being rebuilt by an INIT_PAGE: it
//     refuses to start ("Cannot apply log to [page id: space=S, page number=P] of corrupted
//     file 'NAME'", P the lowest page recovery reads);
//   - any other tablespace the dictionary or the log names: it starts, and the table is
//     unusable ("Expected tablespace id S but found 0 in the file NAME").

// Page0Refusal is the error recover gives before it copies anything when a datafile's page 0
// is all zero and the server refuses to start for it (the system tablespace, or a tablespace
// whose pages the log must read) as the doublewrite buffer has no copy recovery can restore it
// from (RestorePage0, with innodb_page_size pageSize); nil when there is none. in needs Datadir,
// Analysis and Spaces (not changed); the dictionary is not needed, as the log names every
// tablespace it changes.
func Page0Refusal(in Input, pageSize int) error {
	in.Spaces = append([]discovery.Tablespace(nil), in.Spaces...)
	RestorePage0(&in, pageSize)
	fs, _, refuses := page0Faults(in, expectations(in))
	for i, f := range fs {
		if refuses[i] {
			return fmt.Errorf("%s: %s: %s", f.File, f.Code, f.Message)
		}
	}
	return nil
}

// page0Findings reports each datafile whose page 0 is all zero and not rebuilt by the log
// once (SPACE_ID_MISMATCH, error), with how many pages depend on it; it returns the set of
// those files (absolute paths), whose pages get no finding of their own.
func page0Findings(in Input, exp map[string]expectation) ([]finding.Finding, map[string]bool) {
	fs, bad, _ := page0Faults(in, exp)
	return fs, bad
}

// page0Faults is page0Findings with, for each finding, whether the server refuses to start.
func page0Faults(in Input, exp map[string]expectation) ([]finding.Finding, map[string]bool, []bool) {
	var fs []finding.Finding
	var refuses []bool
	bad := map[string]bool{}
	eachBlankPage0(in.Spaces, func(i int, system bool) {
		t := in.Spaces[i]
		p := absPath(in.Datadir, t.Path)
		e, named := exp[p]
		if !system && !named {
			return // nothing refers to it: the server never opens it
		}
		id := e.id
		if system {
			id, e.name = 0, serverName(in.Datadir, t.Path)
		}
		if in.Analysis != nil && !system {
			if read, ok := in.Analysis.Pages[PageID{id, 0}]; ok && !read {
				return // an INIT_PAGE rebuilds it: a file created after the checkpoint
			}
		}
		bad[p] = true
		first, needed := in.Analysis.NeededPages(id)
		var msg string
		switch {
		case system:
			msg = fmt.Sprintf("page 0 of the system tablespace is all zero and the doublewrite buffer has no copy of it that crash recovery uses (none written after the checkpoint): the server refuses to start (\"The data file '%s' has the wrong space ID. It should be 0, but 0 was found\")", e.name)
		case needed > 0:
			msg = fmt.Sprintf("page 0 is all zero, the log does not rebuild it and the doublewrite buffer has no copy of it that crash recovery uses, and recovery must read %d pages of this tablespace: the server refuses to start (\"Cannot apply log to [page id: space=%d, page number=%d] of corrupted file '%s'\")",
				needed, id, first, e.name)
		default:
			msg = fmt.Sprintf("page 0 is all zero and the log does not rebuild it; the server starts and the table is unusable (\"Expected tablespace id %d but found 0 in the file %s\")", id, e.name)
		}
		if r := in.Pages[t.Path]; r != nil && len(r.Corrupt) > 0 {
			msg += fmt.Sprintf("; without page 0's flags %d pages fail the checks (no finding is given for each)", len(r.Corrupt))
		}
		fs = append(fs, finding.Finding{Severity: finding.Error, Code: "SPACE_ID_MISMATCH", SpaceID: u32(id), File: p, LSN: e.lsn, Message: msg})
		refuses = append(refuses, system || needed > 0)
	})
	return fs, bad, refuses
}

// eachBlankPage0 calls fn with the index in ts of each readable datafile whose page 0 is all
// zero, and whether it is the first system tablespace file: only the first innodb_data_file_path
// file starts with page 0 of the system tablespace, so the other system files are left out.
func eachBlankPage0(ts []discovery.Tablespace, fn func(i int, system bool)) {
	firstSystem := true
	for i, t := range ts {
		system := t.FoundBy == discovery.FoundSystem && firstSystem
		firstSystem = firstSystem && t.FoundBy != discovery.FoundSystem
		if t.Note == discovery.NotePage0Zero && t.Error == "" && (t.FoundBy != discovery.FoundSystem || system) {
			fn(i, system)
		}
	}
}

// RestoresFromDoublewrite reports whether crash recovery opens tablespace space before it
// applies the log, and so writes back the doublewrite buffer's copies of its pages that are all
// zero, corrupt or newer than the end of the log (buf_dblwr_t::recover): when the log has pages
// to apply (the server runs it in crash recovery only), for the tablespaces the log names and
// the system tablespace. A nil Analysis (no log read) restores nothing.
func (a *Analysis) RestoresFromDoublewrite(space uint32) bool {
	if a == nil || len(a.Pages) == 0 {
		return false
	}
	_, logged := a.Map.Spaces[space]
	return logged || space == 0
}

// NeededPages returns the lowest page of space that recovery reads from its file, and how many
// it reads.
func (a *Analysis) NeededPages(space uint32) (first uint32, n int) {
	if a == nil {
		return 0, 0
	}
	for id, read := range a.Pages {
		if id.Space == space && read && !a.Freed[id] {
			if n == 0 || id.Page < first {
				first = id.Page
			}
			n++
		}
	}
	return first, n
}

// serverName is a file's name as the server prints it: relative to the data directory with a
// leading "./", or as it is when outside.
func serverName(datadir, p string) string {
	if rel, err := filepath.Rel(datadir, p); err == nil && !strings.HasPrefix(rel, "..") {
		return "./" + rel
	}
	return p
}

// unknownOrphans is what stands for the ORPHAN_FILE findings when the dictionary could not be
// read: without it nothing tells which datafiles the server knows of, so one finding names the
// files no log record refers to instead of one (false) ORPHAN_FILE each.
func unknownOrphans(in Input, exp map[string]expectation) []finding.Finding {
	var names []string
	for _, t := range in.Spaces {
		if t.FoundBy != discovery.FoundScan && t.FoundBy != discovery.FoundISL {
			continue
		}
		if _, ok := exp[absPath(in.Datadir, t.Path)]; !ok {
			names = append(names, t.Path)
		}
	}
	if len(names) == 0 {
		return nil
	}
	list := strings.Join(names, ", ")
	if len(names) > 5 {
		list = strings.Join(names[:5], ", ") + fmt.Sprintf(" and %d more", len(names)-5)
	}
	return []finding.Finding{{Severity: finding.Info, Code: "ORPHANS_NOT_CHECKED", File: in.Datadir,
		Message: fmt.Sprintf("the dictionary could not be read, so whether the %d datafiles no log record refers to belong to tables is unknown (no ORPHAN_FILE is reported for each): %s",
			len(names), list)}}
}
