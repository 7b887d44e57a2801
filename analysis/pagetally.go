package analysis

// pageTally gathers, per page, what Analysis.Pages, Last and Freed hold, with one map look-up
// per page record (or none when the record names the page the previous one did): filling the
// three maps record by record cost three look-ups each, the larger part of the pre-pass.
type pageTally struct {
	index map[PageID]int32
	pages []talliedPage
	prev  int32 // index of the page the previous record named (-1: none)
}

// talliedPage is one page's state so far.
type talliedPage struct {
	id    PageID
	last  uint64 // start LSN of the last mini-transaction with a record for it
	read  bool   // recovery reads it from its file (no INIT_PAGE or FREE_PAGE before its records)
	freed bool   // its last INIT_PAGE or FREE_PAGE is a FREE_PAGE
}

func newPageTally() *pageTally { return &pageTally{index: map[PageID]int32{}, prev: -1} }

// add counts a record for page id in the mini-transaction at lsn; init and free say whether
// it is an INIT_PAGE or a FREE_PAGE.
func (t *pageTally) add(id PageID, lsn uint64, init, free bool) {
	i := t.prev
	if i < 0 || t.pages[i].id != id {
		var ok bool
		if i, ok = t.index[id]; !ok {
			i = int32(len(t.pages))
			t.index[id] = i
			t.pages = append(t.pages, talliedPage{id: id, read: true})
		}
		t.prev = i
	}
	p := &t.pages[i]
	p.last = lsn
	if init || free {
		p.read = false
		p.freed = free
	}
}

// fill sets a's Pages, Last and Freed from the tally.
func (t *pageTally) fill(a *Analysis) {
	a.Pages = make(map[PageID]bool, len(t.pages))
	a.Last = make(map[PageID]uint64, len(t.pages))
	for i := range t.pages {
		p := &t.pages[i]
		a.Pages[p.id] = p.read
		a.Last[p.id] = p.last
		if p.freed {
			a.Freed[p.id] = true
		}
	}
}
