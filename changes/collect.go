package changes

import (
	"encoding/binary"
	"slices"
	"sort"

	"innoscope/discovery"
	"innoscope/logformat"
	"innoscope/rows"
)

// The undo page layout (trx0undo.h), as discovery reads it.
const (
	filPageData   = 38
	undoPageFree  = filPageData + 4  // TRX_UNDO_PAGE_FREE
	undoPageNode  = filPageData + 6  // TRX_UNDO_PAGE_NODE: FLST_PREV (page, offset), FLST_NEXT
	undoSegHdr    = filPageData + 18 // TRX_UNDO_SEG_HDR
	undoState     = undoSegHdr       // TRX_UNDO_STATE
	undoLastLog   = undoSegHdr + 2   // TRX_UNDO_LAST_LOG
	undoTrxNo     = 8                // in the undo log header: TRX_UNDO_TRX_NO
	stateActive   = 1                // TRX_UNDO_ACTIVE
	statePrepared = 5                // TRX_UNDO_PREPARED
	filNull       = 0xFFFFFFFF
	filPageType   = 24 // FIL_PAGE_TYPE
	pageTypeUndo  = 2  // FIL_PAGE_UNDO_LOG
	maxPrevHops   = 1 << 16
)

// States of a transaction at the end of the window.
const (
	Committed  = "committed"
	RolledBack = "rolled back"
	Open       = "open"     // no commit or rollback in the log: the server's recovery rolls it back
	Prepared   = "prepared" // XA PREPAREd, no commit in the log
)

type pageID struct{ space, page uint32 }

// Change is one row change of the log: where its undo record was written and what it holds.
type Change struct {
	LSN    uint64 `json:"lsn"`   // the mini-transaction that appended the undo record
	Space  uint32 `json:"space"` // the undo record's page and offset
	Page   uint32 `json:"page"`
	Offset int    `json:"offset"`
	// RolledBack: the transaction's rollback (whole or to a savepoint) removed the record.
	RolledBack bool    `json:"rolled_back,omitempty"`
	TableID    uint64  `json:"table_id"`
	Table      string  `json:"table,omitempty"` // db.table as SQL spells it ("": not in the dictionary)
	Op         Op      `json:"op"`
	UndoNo     uint64  `json:"undo_no"`
	Key        []Value `json:"key"`
	Old        []Value `json:"old,omitempty"` // an update's old values of the changed columns
	// New are an update's new values of the changed columns; Row the whole row as the change
	// left it (an insert's or an update's new row) or found it (a delete's old row), from the
	// clustered index page image right after the change.
	New []Value `json:"new,omitempty"`
	Row []Value `json:"row,omitempty"`
	// Inexact says per change what could not be turned into values exactly ("": nothing).
	Inexact string `json:"inexact,omitempty"`
	raw     []byte
	trx     *Trx
	table   *rows.Table // the table, while its row image is looked for
	// awaitUntil is the count of mini-transactions after which the row image is no longer
	// looked for (the clustered index change follows its undo record at once, in its thread).
	awaitUntil int
	image      *rows.RecordImage
	imgErr     string
	// layout is the clustered index's record layout when no row image was found (layoutErr:
	// why it is not known), to read the undo record's fields by (an instant DROP or reorder
	// makes them physical, not the dictionary's).
	layout    *rows.RecordImage
	layoutErr string
}

// Value is one column's value as the server prints it.
type Value struct {
	Column string `json:"column"`
	Value  string `json:"value"`
	Null   bool   `json:"null,omitempty"`
	// Binary: a statement gives the value as a hexadecimal literal (BIT, binary strings).
	Binary bool `json:"-"`
}

// Trx is a transaction with undo records in the window.
type Trx struct {
	ID    uint64 `json:"trx_id"`
	State string `json:"state"`
	// EndLSN is the mini-transaction that committed or finished the rollback (0: open).
	EndLSN uint64 `json:"end_lsn,omitempty"`
	TrxNo  uint64 `json:"trx_no,omitempty"` // the commit's serialisation number
	// Xid is the xid of the binary log's own XA under which the transaction is prepared (0:
	// none); Binlog says what the server's recovery does with it (ByBinlog).
	Xid     uint64    `json:"binlog_xid,omitempty"`
	Binlog  string    `json:"binlog,omitempty"`
	Changes []*Change `json:"changes"`
	header  pageID
	done    bool
	seq     int  // the order in which the collector met the transaction
	waiting int  // its changes whose row image is still looked for (Collector.await)
	emitted bool // handed to Collector.Emit
}

// Collector follows the log mini-transaction by mini-transaction (Observe) and gathers the
// row changes of the window [From, end of scan).
type Collector struct {
	From     uint64
	trxs     map[uint64]*Trx
	order    []*Trx
	byHeader map[pageID]*Trx      // the undo log header page of each open transaction
	pending  map[pageID][]*Change // changes of open transactions, by undo page
	read     discovery.PageReader
	tables   Tables
	await    []*Change // changes whose row image is looked for on the pages the next mini-transactions change
	mtrs     int       // mini-transactions observed
	// firstOf remembers the first page of the undo segment of a page (trxOf); a mini-transaction
	// that frees or initialises a page forgets it all (a page may then change segments).
	firstOf map[pageID]firstPage
	slab    []Change // the changes are allocated changeSlab at a time
	// Observe's buffers, kept from one mini-transaction to the next
	apps           []appended
	writes         []written
	touched, freed []pageID
	near           []int
	// Emit, when set, is handed each finished transaction (committed or rolled back) as soon as
	// the row images of its changes are settled, in the order Trxs gives them; Trxs then returns
	// only the others. Emit may Release the transaction once it has written it.
	Emit     func(*Trx) error
	finished []*Trx // finished transactions not yet emitted, in the order they finished
	seq      int    // transactions met
	nEmitted int    // emitted transactions still in order
}

// changeSlab is how many changes are allocated at once.
const changeSlab = 1024

// awaitMTRs is how many mini-transactions (of all threads) a change's row image is looked for
// in after its undo record: the one that changes the clustered index comes right after the undo
// record's in the same thread.
const awaitMTRs = 256

// NewCollector starts a collection of the changes from LSN from on; tables (nil: none) gives
// the definitions with which each change's row image is found on the pages the log changes.
func NewCollector(from uint64, tables Tables) *Collector {
	return &Collector{From: from, trxs: map[uint64]*Trx{}, byHeader: map[pageID]*Trx{}, pending: map[pageID][]*Change{}, tables: tables}
}

type appended struct {
	id   pageID
	data []byte
}

// written is the page and offset of a WRITE record.
type written struct {
	id  pageID
	off int
}

// Observe takes one mini-transaction after it was applied: read gives the undo pages as they
// are after it (replay.WatchPages).
func (c *Collector) Observe(m *logformat.MTR, read discovery.PageReader) error {
	c.read = read
	c.mtrs++
	apps, writes := c.apps[:0], c.writes[:0]
	touched, freed := c.touched[:0], c.freed[:0] // a mini-transaction changes a few pages
	defer func() { c.apps, c.writes, c.touched, c.freed = apps[:0], writes[:0], touched[:0], freed[:0] }()
	var space, page uint32
	for i := range m.Records {
		r := &m.Records[i]
		if r.Type.IsFile() || r.Type == logformat.Padding || r.Type == logformat.Option {
			continue
		}
		if !r.SamePage {
			space, page = r.Space, r.Page
		}
		id := pageID{space, page}
		if !slices.Contains(touched, id) {
			touched = append(touched, id)
		}
		if r.Type == logformat.Write {
			writes = append(writes, written{id, int(r.Offset)})
		}
		switch {
		case r.Type == logformat.FreePage:
			freed = append(freed, id)
			clear(c.firstOf)
		case r.Type == logformat.InitPage:
			clear(c.firstOf)
		case r.Type == logformat.Extended && r.ExtSub() == logformat.UndoAppend:
			apps = append(apps, appended{id, r.Data})
		}
	}
	// Records removed by a rollback: TRX_UNDO_PAGE_FREE moved below them, or their page freed.
	for _, id := range touched {
		list := c.pending[id]
		if len(list) == 0 {
			continue
		}
		free := -1
		if !slices.Contains(freed, id) {
			if p, err := read(id.space, id.page); err == nil && len(p) > undoPageFree+2 {
				free = int(binary.BigEndian.Uint16(p[undoPageFree:]))
			}
		}
		// a page's records of an open transaction lie at rising offsets (a rollback removes the
		// last ones): those removed are at the end, after any of finished transactions
		n := len(list)
		for ; n > 0; n-- {
			ch := list[n-1]
			if ch.trx.done {
				continue
			}
			if free >= 0 && ch.Offset < free {
				break
			}
			ch.RolledBack = true
		}
		i := 0
		for i < n && list[i].trx.done {
			i++
		}
		c.pending[id] = list[i:n]
	}
	if err := c.appendAll(m, apps); err != nil {
		return err
	}
	c.images(touched, freed, writes)
	// Commits and finished rollbacks: the header's state leaves TRX_UNDO_ACTIVE.
	var finished []*Trx
	for _, id := range touched {
		t := c.byHeader[id]
		if t == nil {
			continue
		}
		p, err := read(id.space, id.page)
		if err != nil || len(p) < undoLastLog+2 {
			continue
		}
		st := binary.BigEndian.Uint16(p[undoState:])
		if st == stateActive || st == statePrepared {
			continue
		}
		t.done, t.EndLSN = true, m.LSN
		if hdr := int(binary.BigEndian.Uint16(p[undoLastLog:])); hdr+undoTrxNo+8 <= len(p) {
			t.TrxNo = binary.BigEndian.Uint64(p[hdr+undoTrxNo:])
		}
		delete(c.byHeader, id)
		finished = append(finished, t)
	}
	if c.Emit == nil {
		return nil
	}
	sort.Slice(finished, func(i, j int) bool { return finished[i].seq < finished[j].seq })
	c.finished = append(c.finished, finished...)
	return c.emitSettled()
}

// appendAll records the UNDO_APPENDs of m: each page's records go one after the other, the
// last one ending at TRX_UNDO_PAGE_FREE as it is after m.
func (c *Collector) appendAll(m *logformat.MTR, apps []appended) error {
	// the offsets, from the last record of each page back
	offs := make([]int, len(apps))
	ends := map[pageID]int{}
	for k := len(apps) - 1; k >= 0; k-- {
		a := apps[k]
		offs[k] = -1
		p, err := c.read(a.id.space, a.id.page)
		if err != nil || len(p) < undoSegHdr+2 {
			continue
		}
		end, ok := ends[a.id]
		if !ok {
			end = int(binary.BigEndian.Uint16(p[undoPageFree:]))
		}
		offs[k] = end - 4 - len(a.data)
		ends[a.id] = offs[k]
	}
	for k, a := range apps {
		off := offs[k]
		if m.LSN < c.From || off < undoSegHdr {
			continue
		}
		t := c.trxOf(a.id)
		if t == nil {
			continue
		}
		if len(c.slab) == 0 {
			c.slab = make([]Change, changeSlab)
		}
		ch := &c.slab[0]
		c.slab = c.slab[1:]
		*ch = Change{LSN: m.LSN, Space: a.id.space, Page: a.id.page, Offset: off, raw: append([]byte(nil), a.data...), trx: t}
		t.Changes = append(t.Changes, ch)
		c.pending[a.id] = append(c.pending[a.id], ch)
		if u, ok, err := ParseUndo(ch.raw, -1); err == nil && ok && u.TableID >= 16 && c.tables != nil {
			if tb, err := c.tables(u.TableID); err == nil {
				ch.table, ch.awaitUntil = tb, c.mtrs+awaitMTRs
				c.await = append(c.await, ch)
				t.waiting++
			}
		}
	}
	return nil
}

// trxOf finds the transaction whose undo log holds the page: the first page of its segment
// (following FLST_PREV) holds the undo log header with the transaction id. The first page found
// for a page is remembered (firstOf) while the page's FLST_PREV stays as it was.
func (c *Collector) trxOf(id pageID) *Trx {
	p, err := c.read(id.space, id.page)
	if err != nil || !undoPage(p) {
		return nil // not an undo log page: nothing the log's undo records can be traced to
	}
	own := binary.BigEndian.Uint32(p[undoPageNode:])
	no, cached := id.page, false
	if f, ok := c.firstOf[id]; ok && f.prev == own {
		no, cached = f.first, true
	} else {
		for hops, prev := 0, own; prev != filNull; hops++ {
			if hops > maxPrevHops {
				return nil
			}
			no = prev
			if p, err = c.read(id.space, no); err != nil || !undoPage(p) {
				return nil
			}
			prev = binary.BigEndian.Uint32(p[undoPageNode:])
		}
		if c.firstOf == nil {
			c.firstOf = map[pageID]firstPage{}
		}
		c.firstOf[id] = firstPage{first: no, prev: own}
	}
	if cached && no != id.page {
		if p, err = c.read(id.space, no); err != nil || !undoPage(p) || binary.BigEndian.Uint32(p[undoPageNode:]) != filNull {
			delete(c.firstOf, id)
			return nil
		}
	}
	hdr := int(binary.BigEndian.Uint16(p[undoLastLog:]))
	if hdr < undoSegHdr || hdr+16 > len(p) {
		return nil
	}
	trxID := binary.BigEndian.Uint64(p[hdr:])
	h := pageID{id.space, no}
	t := c.trxs[trxID]
	if t == nil || t.done {
		t = &Trx{ID: trxID, header: h, seq: c.seq}
		c.seq++
		c.trxs[trxID] = t
		c.order = append(c.order, t)
	}
	c.byHeader[h] = t
	return t
}

// firstPage is the first page of an undo segment found for a page, and the page's FLST_PREV then.
type firstPage struct{ first, prev uint32 }

// undoPage: p is an undo log page as long as its header.
func undoPage(p []byte) bool {
	return len(p) >= undoLastLog+2 && binary.BigEndian.Uint16(p[filPageType:]) == pageTypeUndo
}

// Trxs are the transactions with changes in the window, committed and rolled back ones in the
// order they finished, then the open ones in the order of their first change.
func (c *Collector) Trxs() []*Trx {
	var done, open []*Trx
	for _, t := range c.order {
		if t.emitted || len(t.Changes) == 0 { // an emitted one may be Released meanwhile
			continue
		}
		c.settle(t)
		if t.done {
			done = append(done, t)
		} else {
			open = append(open, t)
		}
	}
	sort.SliceStable(done, func(i, j int) bool { return done[i].EndLSN < done[j].EndLSN })
	return append(done, open...)
}

// images looks for the row image of each awaited change on the clustered index leaf pages of
// its table the mini-transaction changed: the record with the change's DB_TRX_ID and a
// DB_ROLL_PTR pointing to its undo record.
func (c *Collector) images(touched, freed []pageID, writes []written) {
	if len(c.await) == 0 {
		return
	}
	keep := c.await[:0]
	for _, ch := range c.await {
		found := false
		for _, id := range touched {
			if id.space != ch.table.SpaceID || slices.Contains(freed, id) {
				continue
			}
			p, err := c.read(id.space, id.page)
			if err != nil {
				continue
			}
			root, err := c.read(id.space, ch.table.Root)
			if err != nil {
				continue
			}
			near := c.near[:0]
			for _, w := range writes {
				if w.id == id {
					near = append(near, w.off)
				}
			}
			c.near = near
			img, ok, err := ch.table.FindByRollPtr(p, root, c.read, ch.trx.ID, ch.Page, ch.Offset, near)
			if err != nil {
				ch.imgErr, found = err.Error(), true
				break
			}
			if ok {
				ch.image, found = &img, true
				break
			}
		}
		switch {
		case !found && c.mtrs < ch.awaitUntil:
			keep = append(keep, ch)
		case !found || ch.imgErr != "":
			c.giveUp(ch)
		default:
			ch.trx.waiting--
		}
	}
	c.await = keep
}

// giveUp stops looking for the row image of ch: its fields are to be read with the layout the
// index has now (a later instant ALTER only appends fields or marks them dropped, so those of
// the change keep their places).
func (c *Collector) giveUp(ch *Change) {
	ch.trx.waiting--
	root, err := c.read(ch.table.SpaceID, ch.table.Root)
	if err == nil {
		ch.layout, err = ch.table.Layout(root, c.read)
	}
	if err != nil {
		ch.layoutErr = err.Error()
	}
}

// EndOfLog stops looking for the row images of the changes still awaiting theirs, while the
// pages as the log leaves them are still readable (the read Observe was last given).
func (c *Collector) EndOfLog() {
	for _, ch := range c.await {
		c.giveUp(ch)
	}
	c.await = nil
}
