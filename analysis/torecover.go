package analysis

import (
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"innoscope/discovery"
	"innoscope/internal/regular"
	"innoscope/logformat/redo"
)

// How MariaDB 10.11 counts the pages of "InnoDB: To recover: N pages" (log0recv.cc), in
// innoscope's words:
//
//   - The number is the size of the server's page → records map (recv_sys.pages) when the last
//     recovery batch starts (recv_sys_t::apply, report_progress), after the pages already
//     processed are dropped (garbage_collect) and before any other page is read.
//   - While it parses the log from the checkpoint to its end (parse_tail storing records,
//     parse_store, add), every page record makes an entry for its page: FREE_PAGE and INIT_PAGE
//     included (they only drop the page's earlier records and mark it as not to be read), WRITE,
//     MEMSET, MEMMOVE and EXTENDED records, and an OPTION record only when it is a page
//     checksum. EXTENDED TRIM_PAGES (an undo tablespace truncation) makes no entry: it drops
//     every record of that tablespace written before its mini-transaction (trim), and a page
//     left without records leaves the map; apply() repeats that with the last truncation. For
//     the system tablespace, a TRIM_PAGES (shrinking it) drops the pages from its new size on.
//   - Before the batch, the pages of a tablespace whose last file record is FILE_DELETE leave
//     the map (recv_validate_tablespace erases a DELETED space's pages, and
//     deferred_spaces.reinit_all a deferred one's).
//   - A tablespace whose file has no usable page 0 yet (FIL_LOAD_DEFER: created after the
//     checkpoint, page 0 blank) is recovered early by reinit_all → recover_deferred, which
//     rebuilds page 0 from the log and marks it processed: page 0 leaves the map, its other
//     pages stay.
//   - The same for a tablespace the log creates (FILE_CREATE, page 0 rebuilt from scratch) whose
//     file is missing: recovery creates the file, and its page 0 is not counted either (checked:
//     the ddl lab crash with db/fresh.ibd deleted, "To recover: 12 pages" as with the file).
//   - InnoDB's start-up reads some pages of the system and undo tablespaces before the last
//     batch (torecover_startup.go); each is recovered as it is read and leaves the map. MariaDB
//     11 prints the number before those reads (measured on 11.8: every lab crash's count is the
//     pages with records less the above, none of the start-up's pages taken off): for a log an
//     11.x server wrote (its creator string), they are counted.
//   - Pages of spaces the server cannot open or whose pages are freed are still counted: they
//     are skipped only after the number is printed (apply_batch).
//
// What innoscope cannot know offline: the server stores the parsed records in its buffer pool,
// and when they take more than about a third of it ("Multi-batch recovery needed at LSN") it
// applies them in several batches; the number printed is then the last batch's alone. That
// depends on innodb_buffer_pool_size, so ToRecover is the count of a recovery done in one batch.
// Records innoscope reads as OPTION or RESERVED (which the server stores only for a page
// checksum, written by debug builds) count like the others.

// ToRecover is the number of pages the server prints as "InnoDB: To recover: N pages" for
// the log a (read from its checkpoint), when it recovers it in one batch: the pages with
// records after the checkpoint, less those of deleted tablespaces, those an undo tablespace
// truncation discards, page 0 of each tablespace recovered early as deferred, and the pages in
// readFirst (what the start-up reads before the batch). path maps a log file name to the file
// to look at, stat says what is there (see Map.Bind). A log of MLOG records (before MariaDB
// 10.5, which 10.11 does not recover) gives the pages with records.
func (a *Analysis) ToRecover(path func(name string) string, stat func(path string) FileState, readFirst map[PageID]bool) int {
	if a == nil {
		return 0
	}
	if a.Last == nil {
		return len(a.Pages)
	}
	bound := a.Map.Bind(path, stat)
	n := 0
	for id := range a.Pages {
		if readFirst[id] {
			continue
		}
		if s := a.Map.Spaces[id.Space]; s != nil && s.Deleted {
			continue // erased before the batch: the log drops the tablespace
		}
		if t, ok := a.Trims[id.Space]; ok && a.Last[id] < t.LSN && (id.Space != 0 || id.Page >= t.Pages) {
			continue // every record of the page precedes the truncation
		}
		if b, ok := bound[id.Space]; ok && b.Deferred && id.Page == 0 {
			continue // recover_deferred rebuilt it before the batch
		}
		if _, ok := bound[id.Space]; !ok && id.Page == 0 && a.CreatesFile(id.Space) {
			continue // no file: recovery creates it and rebuilds page 0 early, as a deferred one's
		}
		n++
	}
	return n
}

// ToRecover is Analysis.ToRecover for the data directory the diagnosis read, its files looked
// at read-only (a page 0 crash recovery restores from the doublewrite buffer as restored), with
// what the start-up reads (0 when the log could not be used). Without the
// undo logs (Options.Undo nil, or unreadable) the start-up's reads are not known, and the
// count is larger than the server's.
func (d *Diagnosis) ToRecover() int {
	if d.Input.Analysis == nil || d.LogOnly { // without the files, what the server drops is not known
		return 0
	}
	stat := func(p string) FileState {
		st := firstPageState(p)
		if c := RestoredPage0(d.Input.Restored, p); c != nil {
			st.Deferred, st.SpaceID = false, c.Space // written back from the doublewrite buffer first
		}
		return st
	}
	var first map[PageID]bool
	if !d.countsStartupReads() {
		first = d.startupReads()
	}
	return d.Analysis.ToRecover(SourcePath(d.Layout.Datadir), stat, first)
}

// countsStartupReads reports whether the server that wrote the log (its creator, "MariaDB
// 11.8.9") prints "To recover: N pages" before its start-up reads: MariaDB 11 and later.
func (d *Diagnosis) countsStartupReads() bool {
	l, err := OpenLog(d.Layout, "")
	if err != nil {
		return false
	}
	defer l.Close()
	return CreatorMajor(l.Header.Creator) >= 11
}

// CreatorMajor is the major version of a redo log's creator string ("MariaDB 11.8.9": 11), 0
// when it names none (a backup tool, MySQL, an empty string).
func CreatorMajor(creator string) int {
	v, ok := strings.CutPrefix(creator, "MariaDB ")
	if !ok {
		return 0
	}
	major, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(major)
	if err != nil {
		return 0
	}
	return n
}

// startupReads is startupReads over the system and undo tablespaces as recovery leaves them,
// the log applied in memory (nil when the undo logs were not read).
func (d *Diagnosis) startupReads() map[PageID]bool {
	if d.Input.Undo == nil || d.Input.Undo.Pages == nil {
		return nil
	}
	l, err := OpenLog(d.Layout, "")
	if err != nil {
		return nil
	}
	defer l.Close()
	sc, _, err := l.Scanner(redo.ScanOptions{})
	if err != nil {
		return nil
	}
	spaces := map[uint32]bool{0: true}
	for id := range d.Analysis.Pages {
		if d.Analysis.Map.Spaces[id.Space] == nil {
			spaces[id.Space] = true
		}
	}
	read, closeFiles, err := d.Input.Undo.Pages(sc, spaces)
	if err != nil {
		return nil
	}
	defer closeFiles()
	return startupReads(read, d.Input.Undo)
}

// firstPageState is what the server's fil_ibd_load finds at p, judged like the replay judges
// its copy: absent; deferred when page 0 is blank (discovery.BlankPage0) or too short to carry a
// space id; otherwise the space id page 0 carries. An unreadable file counts as absent.
func firstPageState(p string) FileState {
	f, err := regular.Open(p)
	if err != nil {
		return FileState{Exists: !errors.Is(err, fs.ErrNotExist)}
	}
	defer f.Close()
	b := make([]byte, discovery.MinPhysicalPageSize)
	n, err := f.ReadAt(b, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return FileState{Exists: true}
	}
	const spaceIDOffset = 34 // FIL_PAGE_SPACE_ID
	if n < spaceIDOffset+4 {
		return FileState{Exists: true, Deferred: true}
	}
	return FileState{Exists: true, Deferred: discovery.BlankPage0(b[:n]), SpaceID: binary.BigEndian.Uint32(b[spaceIDOffset:])}
}
