package logformat

// tally counts decoded records for Summarize without keeping them: Scanner.decodeTo decodes
// each record into rec and adds it.
type tally struct {
	rec     Record // the record being decoded
	records int
	byType  [256]int
	bad     int      // records with Malformed set
	cpLSN   uint64   // the checkpoint LSN whose FILE_CHECKPOINT record is looked for
	fcp     bool     // such a record was added (the caller resets it)
	pages   []uint64 // page identifiers (space<<32 | page) of page records, without repeats in a row
	last    uint64   // the last one appended, +1 (0: none)
	// seen holds page identifiers +1 appended to pages, each in the slot its hash picks: a page
	// found there is not appended again (the page set of the merge costs more than this).
	seen [256]uint64
}

// reset empties t for a scan looking for the FILE_CHECKPOINT of cpLSN.
func (t *tally) reset(cpLSN uint64) {
	pages := t.pages[:0]
	*t = tally{cpLSN: cpLSN, pages: pages}
}

// add counts r.
func (t *tally) add(r *Record) {
	t.records++
	t.byType[r.Type]++
	if r.Malformed != "" {
		t.bad++
	}
	if r.Type == FileCheckpoint && r.CheckpointLSN == t.cpLSN {
		t.fcp = true
	}
	if !r.SamePage && r.Type < FileCreate {
		if key := uint64(r.Space)<<32 | uint64(r.Page); key+1 != t.last {
			t.page(key)
		}
	}
}

// page counts a page record of the page key (space<<32 | page) that follows one of another.
func (t *tally) page(key uint64) {
	t.last = key + 1
	if h := (key + 1) * 0x9e3779b97f4a7c15 >> 56; t.seen[h] != key+1 {
		t.seen[h] = key + 1
		t.pages = append(t.pages, key)
	}
}

// tallyMark is what a tally looked like before a mini-transaction.
type tallyMark struct {
	records, bad, pages int
	last                uint64
}

func (t *tally) mark() tallyMark {
	return tallyMark{records: t.records, bad: t.bad, pages: len(t.pages), last: t.last}
}

// undo takes back what decoding the mini-transaction p (termination byte at end) added since
// the mark m, when one of its records turned out corrupt: a corrupt mini-transaction counts
// nothing. Decoding it again with a fresh tally finds the same records before the corrupt one.
func (t *tally) undo(m tallyMark, d *Scanner, p []byte, end int) {
	u := &tally{cpLSN: t.cpLSN}
	d.decodeTo(p, end, u)
	for k, c := range u.byType {
		t.byType[k] -= c
	}
	t.records, t.bad, t.pages, t.last = m.records, m.bad, t.pages[:m.pages], m.last
	t.seen = [len(t.seen)]uint64{} // it may hold pages taken back
}
