package changes

import "encoding/binary"

// settle sets the state of t at the end of the window (or at its finish): rolled back when every
// change was removed by its rollback, committed, or, unfinished, open or XA prepared.
func (c *Collector) settle(t *Trx) {
	all := true
	for _, ch := range t.Changes {
		all = all && ch.RolledBack
	}
	switch {
	case t.done && all:
		t.State = RolledBack
	case t.done:
		t.State = Committed
	default:
		t.State = Open
		if p, err := c.read(t.header.space, t.header.page); err == nil && len(p) > undoState+2 &&
			binary.BigEndian.Uint16(p[undoState:]) == statePrepared {
			t.State, t.Xid = Prepared, binlogXid(p)
		}
	}
}

// emitSettled hands Emit the finished transactions at the head of c.finished whose changes
// have their row images settled (none is looked for any more), in the order they finished:
// nothing later in the log changes what is said of them. A transaction's changes are final once
// it has finished (a rollback removes only an unfinished one's records), so its state is too.
func (c *Collector) emitSettled() error {
	n := 0
	for ; n < len(c.finished) && c.finished[n].waiting == 0; n++ {
		t := c.finished[n]
		t.emitted = true
		c.nEmitted++
		if c.trxs[t.ID] == t {
			delete(c.trxs, t.ID)
		}
		if len(t.Changes) == 0 {
			continue
		}
		c.settle(t)
		c.unpend(t)
		if err := c.Emit(t); err != nil {
			return err
		}
	}
	c.finished = c.finished[n:]
	if c.nEmitted > 1024 && c.nEmitted > len(c.order)/2 { // drop them from order, keeping it short
		keep := c.order[:0]
		for _, t := range c.order {
			if !t.emitted {
				keep = append(keep, t)
			}
		}
		clear(c.order[len(keep):])
		c.order, c.nEmitted = keep, 0
	}
	return nil
}

// unpend drops the changes of the finished transaction t from the undo pages' lists of changes
// a rollback could still remove (a finished transaction's never are), before t is emitted.
func (c *Collector) unpend(t *Trx) {
	var last pageID
	for i, ch := range t.Changes {
		id := pageID{ch.Space, ch.Page}
		if i > 0 && id == last {
			continue
		}
		last = id
		list := c.pending[id]
		keep := list[:0]
		for _, o := range list {
			if o.trx != t {
				keep = append(keep, o)
			}
		}
		clear(list[len(keep):])
		if len(keep) == 0 {
			delete(c.pending, id)
		} else {
			c.pending[id] = keep
		}
	}
}

// Release drops what t says of its changes once it has been written (a stream of them keeps
// memory bounded): the collector keeps only each change's undo record offset until its page
// changes again.
func (t *Trx) Release() {
	for _, ch := range t.Changes {
		ch.raw, ch.image, ch.layout, ch.table, ch.Key, ch.Old, ch.New, ch.Row = nil, nil, nil, nil, nil, nil, nil, nil
	}
	t.Changes = nil
}
