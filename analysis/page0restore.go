package analysis

import (
	"fmt"

	"innoscope/discovery"
	"innoscope/finding"
)

// Before MariaDB's crash recovery reads a datafile whose page 0 is all zero (torn, or zeroed), it
// looks for that page in the doublewrite buffer and writes the copy it finds over it:
//   - the first system tablespace file: buf_dblwr_t::recover, which logs "Recovered page [page
//     id: space=0, page number=0] to './ibdata1' from the doublewrite buffer." and starts (without
//     a copy it refuses: "The data file './ibdata1' has the wrong space ID");
//   - a tablespace the log names (deferred, as its page 0 gives no id): deferred_dblwr, silently,
//     before it applies the log (without a copy it refuses when it must read the file's pages:
//     "Cannot apply log to ... of corrupted file").
// Which copy qualifies is discovery.DoublewritePage0. Whether the buffer holds one depends on the
// crash: it holds the pages of the last flush batches, page 0 among them only when page 0 was
// written after the checkpoint (lab scenario dblwr_page0 makes sure of it).

// Page0Restore is a datafile whose page 0 is all zero and which crash recovery restores from the
// doublewrite buffer.
type Page0Restore struct {
	Path  string // as found (Tablespace.Path)
	Space uint32
	Copy  *discovery.DoublewriteCopy
}

// RestorePage0 does to in what crash recovery does first to each datafile whose page 0 is all
// zero: where the doublewrite buffer has the copy the server writes back (the first system
// file, a tablespace the log names whose page 0 no INIT_PAGE rebuilds), the file's entry in
// in.Spaces is described from that copy (discovery.RestoredTablespace) and in.Restored lists it,
// so that every later check sees the file as the server's recovery does. in needs Datadir,
// Analysis and Spaces; in.Dblwr is read from the system tablespace when nil. pageSize is
// innodb_page_size. Nothing is done without a log that crash recovery applies.
func RestorePage0(in *Input, pageSize int) {
	a := in.Analysis
	if a == nil || len(a.Pages) == 0 {
		return
	}
	var exp map[string]expectation
	eachBlankPage0(in.Spaces, func(i int, system bool) {
		t := in.Spaces[i]
		id := uint32(0)
		if !system {
			if exp == nil {
				exp = expectations(*in)
			}
			e, ok := exp[absPath(in.Datadir, t.Path)]
			if !ok || !e.logged {
				return // the server does not open it during recovery
			}
			if read, ok := a.Pages[PageID{e.id, 0}]; ok && !read {
				return // an INIT_PAGE rebuilds it: a file created after the checkpoint
			}
			id = e.id
		}
		if in.Dblwr == nil {
			in.Dblwr = doublewriteOf(in.Spaces)
		}
		c := discovery.DoublewritePage0(in.Dblwr, id, a.Map.FromLSN, a.Map.EndLSN, pageSize)
		if c == nil {
			return
		}
		r, err := discovery.RestoredTablespace(t, c.Image)
		if err != nil {
			return // the file cannot be read that way either: its findings say so as it is
		}
		in.Spaces[i] = r
		in.Restored = append(in.Restored, Page0Restore{Path: t.Path, Space: id, Copy: c})
	})
}

// doublewriteOf reads the doublewrite buffer of the first system tablespace file of ts (nil when
// it cannot be read).
func doublewriteOf(ts []discovery.Tablespace) map[[2]uint32][]discovery.DoublewriteCopy {
	for _, t := range ts {
		if t.FoundBy != discovery.FoundSystem {
			continue
		}
		f, err := discovery.OpenFile(t.Path)
		if err != nil {
			return nil
		}
		defer f.Close()
		c, _ := discovery.DoublewriteCopies(f)
		return c
	}
	return nil
}

// restoredFindings says, for each file of in.Restored, that page 0 is all zero and that crash
// recovery restores it from the doublewrite buffer (a warning: the server starts and loses
// nothing, but the file was damaged).
func restoredFindings(in Input) []finding.Finding {
	var fs []finding.Finding
	for _, r := range in.Restored {
		msg := fmt.Sprintf("page 0 is all zero; the doublewrite buffer holds a valid copy of it (page LSN %d, not older than the checkpoint), which crash recovery writes back before it reads the file",
			r.Copy.LSN)
		if r.Space == 0 {
			msg += fmt.Sprintf(" (\"Recovered page [page id: space=0, page number=0] to '%s' from the doublewrite buffer.\"), then it applies the log", serverName(in.Datadir, r.Path))
		} else {
			msg += " (the server logs nothing about it), then it applies the log"
		}
		fs = append(fs, finding.Finding{Severity: finding.Warning, Code: "CORRUPT_PAGE_NEEDED", SpaceID: u32(r.Space),
			File: absPath(in.Datadir, r.Path), Message: msg})
	}
	return fs
}

// RestoredPage0 is the doublewrite copy recovery writes over page 0 of the file at path
// (absolute), resolved as RestorePage0 lists them; nil when none.
func RestoredPage0(rs []Page0Restore, path string) *discovery.DoublewriteCopy {
	for _, r := range rs {
		if discovery.ResolvePath(r.Path) == discovery.ResolvePath(path) {
			return r.Copy
		}
	}
	return nil
}
