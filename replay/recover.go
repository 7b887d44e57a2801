// Package replay does crash recovery in a working copy: it copies a data directory, applies the
// redo log's records to the pages as the server's recovery does (which page image each record
// goes to, the page LSN rule, the doublewrite buffer, writing pages; package pageapply changes
// their bytes), carries out the file operations, undo truncation and the rollback of
// uncommitted DDL, and gives the copy a log with nothing to recover. What to apply, and
// whether to refuse, comes from package analysis.
package replay

import (
	"encoding/binary"
	"fmt"
	"os"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/logformat"
	"innoscope/logformat/redo"
)

// RecoverOptions drive Recover.
type RecoverOptions struct {
	// Copy describes the working copy (its data directory and the system and undo files in it).
	Copy discovery.Layout
	// PageSize is innodb_page_size.
	PageSize int
	// Analysis is the pre-pass over the same log range (Analyze from the checkpoint).
	Analysis *analysis.Analysis
	// CopyPath maps a file name from the redo log (relative to the source data directory, or
	// absolute for DATA DIRECTORY tables) to its path in the copy.
	CopyPath func(logName string) string
	// CacheBytes bounds the page images held in memory; past it, recovered pages are written
	// to the copy in a batch (as the server does when its buffer pool fills). Default 512 MiB.
	CacheBytes int64
	// Progress, if set, is called with the records processed and their total.
	Progress func(done, total int)
	// Skip are tablespaces whose records are not applied (a salvage's skipped_records and
	// quarantined: SalvagePlan.Skip).
	Skip map[uint32]bool
	// deferred are the pages the copy left out (Run), read from the source until written.
	deferred *deferredFiles
	// last maps pages to the start LSN of the last mini-transaction naming them (nil: unknown):
	// such a page is written once that one is applied (early.go).
	last map[[2]uint32]uint64
	// mkdir creates a directory of the copy (Copy.mkdir; nil: os.MkdirAll).
	mkdir func(dir string) error
}

// mkdirAll creates dir for a file of the copy (RecoverOptions.mkdir).
func (o *RecoverOptions) mkdirAll(dir string) error {
	if o.mkdir != nil {
		return o.mkdir(dir)
	}
	return os.MkdirAll(dir, 0o750)
}

// SpaceResult is what recovery did to one tablespace.
type SpaceResult struct {
	ID           uint32 `json:"space_id"`
	Path         string `json:"path"`
	PagesWritten int    `json:"pages_written"`
	Created      bool   `json:"created,omitempty"`
	RenamedFrom  string `json:"renamed_from,omitempty"`
	TrimmedTo    int64  `json:"trimmed_to_pages,omitempty"`
	ExtendedTo   int64  `json:"extended_to_pages,omitempty"`
}

// RecoverResult summarises a replay.
type RecoverResult struct {
	CheckpointLSN  uint64 `json:"checkpoint_lsn"`
	EndLSN         uint64 `json:"end_lsn"`
	MTRs           int    `json:"mtr_count"`
	RecordsApplied int    `json:"records_applied"`
	RecordsSkipped int    `json:"records_skipped"` // already in the page (page LSN rule), before an INIT, or of dropped/trimmed spaces
	PagesRead      int    `json:"pages_read"`
	PagesFromDblwr int    `json:"pages_from_doublewrite"`
	PagesApplied   int    `json:"pages_applied"` // distinct pages written with applied records
	PagesFreed     int    `json:"pages_freed"`
	Batches        int    `json:"batches"`
	// Applied counts the applied records by type (EXTENDED ones by subtype).
	Applied map[string]int `json:"applied_by_type"`
	Spaces  []SpaceResult  `json:"spaces"`
	// RolledBackDDL are the file effects of rolling back the DDL transactions the crash left
	// uncommitted (see rollbackDDL), in the order done.
	RolledBackDDL []analysis.RolledBackDDL `json:"rolled_back_ddl,omitempty"`
	// Links are the .isl files of the copy written from its recovered SYS_TABLES.
	Links []RecoveredLink `json:"isl_written,omitempty"`
	// early is how many pages were written once their last mini-transaction was applied.
	early int
}

// cached is one page image held during recovery.
type cached struct {
	ts      *tsFile
	no      uint32 // page number
	data    []byte // nil: not read and not yet initialised by INIT_PAGE
	diskLSN uint64 // FIL_PAGE_LSN when read (0 when rebuilt from INIT_PAGE)
	endLSN  uint64 // end LSN of the last mini-transaction touching the page
	dirty   bool   // records were applied since the page was read
	restore bool   // read from the doublewrite buffer: written back even if no record applies
	freed   bool   // the last mini-transaction touching it freed it
	mtr     uint64 // the mini-transaction currently being applied to it
	mtrDid  bool   // that mini-transaction changed more than freeing it
	lastMTR uint64 // the start LSN of the last mini-transaction naming it (0: unknown)
}

// recovery is the state of one Recover run.
type recovery struct {
	opt     RecoverOptions
	an      *analysis.Analysis
	spaces  map[uint32]*tsFile // nil value: the space's records are skipped (dropped space)
	cache   map[analysis.PageID]*cached
	written map[analysis.PageID]bool // pages this run wrote to the copy (their disk image is recovered)
	applied map[analysis.PageID]bool
	dblwr   map[[2]uint32][]discovery.DoublewriteCopy
	// sysPage0 is the doublewrite copy written over the system tablespace's blank page 0 (nil:
	// page 0 is there).
	sysPage0 []byte
	found    map[uint32][]string         // space id -> files with that id on page 0 (scan of the copy)
	bound    map[uint32]analysis.Binding // the file recovery opens for each space the log names
	res      RecoverResult
	done     int
	// readOnly opens the files read-only and never writes (RecoveredUndo); only, when set,
	// limits recovery to those tablespaces (the others' records are skipped).
	readOnly bool
	only     map[uint32]bool
	// follow applies the records of pages freed later in the log too, and drops the image of a
	// page a record does not apply to instead of failing (WatchPages: every image on the way).
	follow bool
	// recovered is the copy's undo logs and dictionary after the replay, read once (undo).
	recovered *recoveredState
	// frames holds the cached pages' frames.
	frames frameSlab
	// nType and nExt count the applied records by type and EXTENDED subtype (res.Applied).
	nType, nExt [256]int
	// last is the page page returned last (nil after a flush), when no truncation of its
	// tablespace makes the answer depend on the LSN.
	last    *cached
	lastID  analysis.PageID
	touched []*cached // applyMTR's, kept for the next mini-transaction
	// keep, when set, keeps the pages read for the replay (PlanSalvage's pre-flight read).
	keep *pageStore
	// early writes the pages whose last mini-transaction has been applied (nil: none).
	early *earlyWriter
}

// countApplied adds nType and nExt to res.Applied by name.
func (r *recovery) countApplied() {
	for t, n := range r.nType {
		if n > 0 {
			r.res.Applied[logformat.Type(t).String()] += n
		}
	}
	for s, n := range r.nExt {
		if n > 0 {
			r.res.Applied[logformat.ExtSubtype(s).String()] += n
		}
	}
	r.nType, r.nExt = [256]int{}, [256]int{}
}

// recoveredState is what the copy's undo logs and data dictionary say after the replay (as the
// server's crash recovery leaves them, before its rollback): the rollback of uncommitted DDL
// and the links of DATA DIRECTORY tables both read it.
type recoveredState struct {
	trxs    []discovery.UndoTrx
	tables  []discovery.DictTable
	indexes []discovery.DictIndex
}

// Recover applies every mini-transaction of sc (from the checkpoint to the end of the log)
// to the working copy described by opt, as the server's crash recovery does: pages are read
// (torn ones from the doublewrite buffer), a mini-transaction is applied to a page only if it
// starts at or after the page's LSN, pages that a later INIT_PAGE rebuilds are not read, freed
// pages are not written, and the written pages carry the end LSN of their last
// mini-transaction and a checksum in their tablespace's scheme. File operations follow: undo
// truncation, extension to FSP_SIZE, and renames; then the file effects of rolling back the DDL
// transactions the crash left uncommitted (rollbackDDL). The copy's redo log is not touched.
func Recover(sc redo.MTRs, opt RecoverOptions) (*RecoverResult, error) {
	if opt.CacheBytes <= 0 {
		opt.CacheBytes = 512 << 20
	}
	r := &recovery{opt: opt, an: opt.Analysis, spaces: map[uint32]*tsFile{}, cache: map[analysis.PageID]*cached{},
		written: map[analysis.PageID]bool{}, applied: map[analysis.PageID]bool{}}
	r.res.CheckpointLSN, r.res.Applied = sc.LSN(), map[string]int{}
	defer r.closeAll()
	defer opt.deferred.close()
	if err := r.openSpaces(); err != nil {
		return nil, err
	}
	if err := r.trimUndo(); err != nil {
		return nil, err
	}
	if err := r.restoreFuture(); err != nil {
		return nil, err
	}
	// The frames of the pages the log names (but those Open kept), as many as the cache holds.
	defer r.frames.prepare(min(int64(len(r.an.Pages)-opt.deferred.keptPages())+1, opt.CacheBytes/int64(opt.PageSize)+1) * int64(opt.PageSize))()
	r.startEarly()
	defer r.waitEarly()
	for sc.Next() {
		m := sc.MTR()
		r.res.MTRs++
		if err := r.applyMTR(m); err != nil {
			return nil, err
		}
		if r.cachedBytes() > opt.CacheBytes {
			if err := r.flush(); err != nil {
				return nil, err
			}
		}
		if opt.Progress != nil {
			opt.Progress(r.done, r.an.PageRecords)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if err := sc.StopError(); err != nil {
		return nil, err
	}
	r.res.EndLSN = sc.LSN()
	if err := r.flush(); err != nil {
		return nil, err
	}
	if err := r.waitEarly(); err != nil {
		return nil, err
	}
	// The pages the copy left out that no batch wrote, before any file operation.
	if err := opt.deferred.materializeAll(); err != nil {
		return nil, err
	}
	if err := r.finishFiles(); err != nil {
		return nil, err
	}
	if err := r.rollbackDDL(); err != nil {
		return nil, err
	}
	var err error
	if r.res.Links, err = r.linkRecovered(); err != nil {
		return nil, err
	}
	r.res.PagesApplied, r.res.PagesFreed = len(r.applied), len(r.an.Freed)
	r.countApplied()
	return &r.res, nil
}

func (r *recovery) cachedBytes() int64 { return int64(len(r.cache)) * int64(r.opt.PageSize) }

// applyMTR applies the page records of one mini-transaction.
func (r *recovery) applyMTR(m *logformat.MTR) error {
	var cur *cached
	skip := false
	touched := r.touched[:0]
	defer func() { r.touched = touched[:0] }()
	for i := range m.Records {
		rec := &m.Records[i]
		if rec.Type.IsFile() || rec.Type == logformat.Padding {
			continue // file operations were gathered by the pre-pass
		}
		r.done++
		if rec.Type == logformat.Extended && rec.ExtSub() == logformat.TrimPages {
			cur, skip = nil, true // handled before applying (trimUndo)
			r.res.RecordsSkipped++
			continue
		}
		if !rec.SamePage {
			var err error
			if cur, err = r.page(analysis.PageID{Space: rec.Space, Page: rec.Page}, m.LSN); err != nil {
				return err
			}
			skip = cur == nil
			if cur != nil {
				if cur.mtr != m.LSN {
					cur.mtr, cur.mtrDid = m.LSN, false
					cur.endLSN = m.EndLSN
					touched = append(touched, cur)
				}
				// The page LSN rule: a page that already holds this mini-transaction's changes
				// (its LSN is past the mini-transaction's start) is left alone.
				skip = m.LSN < cur.diskLSN
			}
		}
		if skip {
			r.res.RecordsSkipped++
			continue
		}
		if cur.data == nil && rec.Type != logformat.InitPage && rec.Type != logformat.FreePage {
			r.res.RecordsSkipped++ // before the INIT_PAGE that rebuilds the page
			continue
		}
		if err := r.applyRecord(cur, rec); err != nil && r.follow {
			cur.data = nil // followed, not recovered: the page's image is unknown until an INIT_PAGE
			continue
		} else if err != nil {
			return fmt.Errorf("%s page %d: mini-transaction at LSN %d, record %d (%s): %w",
				cur.ts, rec.Page, m.LSN, i, rec.Type, err)
		}
		r.res.RecordsApplied++
		if rec.Type == logformat.Extended {
			r.nExt[rec.Sub]++
		} else {
			r.nType[rec.Type]++
		}
	}
	for _, p := range touched {
		if p.mtrDid {
			p.dirty, p.freed = true, false
		} else if p.freed {
			p.dirty = false // a page whose last change frees it is not written
		}
		if p.dirty && p.no == 0 && !p.ts.flagsSet {
			p.ts.setFlags(p.data)
			r.fitFrames(p.ts)
		}
		if p.lastMTR == m.LSN {
			r.handEarly(p, analysis.PageID{Space: p.ts.id, Page: p.no})
		}
	}
	return nil
}

// fitFrames cuts the cached frames of ts to its physical page size once page 0 has given its
// flags. Until then the pages of a tablespace the log creates (or whose page 0 is still blank)
// are built in innodb_page_size frames, as the server recovers such a page 0 before it knows
// the tablespace; a ROW_FORMAT=COMPRESSED page is only its first ZipSize bytes, and its
// checksum covers exactly those.
func (r *recovery) fitFrames(ts *tsFile) {
	if !ts.flagsSet {
		return
	}
	for _, p := range r.cache {
		if p.ts == ts && len(p.data) > ts.phys {
			p.data = p.data[:ts.phys:ts.phys]
		}
	}
}

// page returns the cached image of id, reading it if needed; nil when the space's records
// are skipped (a dropped tablespace) or the mini-transaction at lsn precedes its truncation.
func (r *recovery) page(id analysis.PageID, lsn uint64) (*cached, error) {
	if r.last != nil && r.lastID == id {
		return r.last, nil
	}
	var t analysis.Trim
	trimmed := false
	if len(r.an.Trims) > 0 {
		t, trimmed = r.an.Trims[id.Space]
	}
	if trimmed && lsn < t.LSN {
		return nil, nil
	}
	if p := r.cache[id]; p != nil { // never a freed page (below)
		if !trimmed {
			r.last, r.lastID = p, id
		}
		return p, nil
	}
	if r.an.Freed[id] && !r.follow {
		return nil, nil // freed at the end of the log: the server applies nothing to it
	}
	ts, err := r.space(id.Space)
	if ts == nil || err != nil {
		return nil, err
	}
	p := &cached{ts: ts, no: id.Page}
	if r.opt.last != nil {
		p.lastMTR = r.opt.last[[2]uint32{id.Space, id.Page}]
	}
	// A page that some INIT_PAGE or FREE_PAGE in the log rebuilds or frees is not read: its
	// records before that are not applied (the server's mlog_init / skip_read).
	if r.an.Pages[id] || r.written[id] {
		if err := r.read(p, id); err != nil {
			return nil, err
		}
	}
	r.cache[id] = p
	if !trimmed {
		r.last, r.lastID = p, id
	}
	return p, nil
}

// read loads a page from the copy, from the doublewrite buffer when the file's copy is torn.
func (r *recovery) read(p *cached, id analysis.PageID) error {
	if t := p.ts; t.cut > 0 && int64(id.Page) >= t.cut && !r.written[id] {
		fi, _ := t.segs[0].f.Stat()
		var fsp uint32
		if b, err := t.read(0); err == nil {
			fsp = binary.BigEndian.Uint32(b[discovery.FSPSize:])
		}
		return &TruncatedError{Space: id.Space, Path: t.path, Page: id.Page, Pages: fi.Size() / int64(t.phys), Cut: t.cut, Phys: t.phys, FSPSize: fsp}
	}
	if r.keep != nil && r.frames.pf == nil {
		r.frames.pf = r.keep.ready // the blocks prepared for the pages to keep
	}
	img, kept, err := p.ts.readFrame(id.Page, &r.frames)
	if err != nil {
		return err
	}
	raw := img
	r.res.PagesRead++
	fl := p.ts.flags
	if good := r.futureCopy(id, img, fl, p.ts.flagsSet); good != nil {
		r.keepRead(p.ts, id.Page, raw, false, false)
		p.data, p.restore = good, true // restored before recovery applies the log (restoreFuture)
		p.diskLSN = binary.BigEndian.Uint64(good[discovery.FilPageLSN:])
		r.res.PagesFromDblwr++
		return nil
	}
	if kept.checked && p.ts.flagsSet && fl.Raw == kept.raw && kept.space == id.Space {
		// The pre-flight read found these bytes sound under these flags (keptPage).
		p.data, p.diskLSN = img, binary.BigEndian.Uint64(img[discovery.FilPageLSN:])
		return nil
	}
	checked := false
	if kv := discovery.KeyVersion(img, fl, id.Page); kv != 0 && p.ts.flagsSet && !discovery.IsZero(img) {
		return unsupported("%s page %d is encrypted (key version %d): innoscope cannot decrypt it; recover with the server and its key management plugin",
			p.ts, id.Page, kv)
	}
	if p.ts.flagsSet && discovery.IsPageCompressed(img, fl) {
		if img, err = discovery.Decompress(img, fl, p.ts.logical); err != nil {
			return fmt.Errorf("%s page %d: %w", p.ts, id.Page, err)
		}
	} else if v := discovery.CheckPage(img, fl, id.Page, id.Space); v.Corrupt && p.ts.flagsSet {
		good := r.fromDoublewrite(id, fl)
		if good == nil {
			return fmt.Errorf("%s page %d is corrupt (%s) and the doublewrite buffer has no valid copy written since the checkpoint (LSN %d), the only ones crash recovery uses: the server cannot recover it either (\"Unable to apply log to corrupted page %d\")",
				p.ts, id.Page, v.Reason, r.an.Map.FromLSN, id.Page)
		}
		img = good
		p.restore = true // the server writes the doublewrite copy back to the file
		r.res.PagesFromDblwr++
	} else {
		checked = !v.Corrupt
	}
	r.keepRead(p.ts, id.Page, raw, &img[0] == &raw[0], checked)
	p.data = img
	p.diskLSN = binary.BigEndian.Uint64(img[discovery.FilPageLSN:])
	return nil
}

// fromDoublewrite returns the newest valid doublewrite copy of id that the server's crash
// recovery uses (discovery.DoublewriteCopy.Usable), or nil.
func (r *recovery) fromDoublewrite(id analysis.PageID, fl discovery.Flags) []byte {
	var best []byte
	var bestLSN uint64
	for _, c := range r.dblwr[[2]uint32{id.Space, id.Page}] {
		if len(c.Image) != r.spaces[id.Space].phys || !c.Usable(r.an.Map.FromLSN, r.an.Map.EndLSN) {
			continue
		}
		if v := discovery.CheckPage(c.Image, fl, id.Page, id.Space); !v.Corrupt && c.LSN >= bestLSN {
			best, bestLSN = append([]byte(nil), c.Image...), c.LSN
		}
	}
	return best
}
