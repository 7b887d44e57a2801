package changes

import (
	"encoding/binary"
	"errors"
	"testing"

	"innoscope/logformat"
	"innoscope/rows"
)

// FuzzCollector: random undo record bytes appended by UNDO_APPEND to a random page, or to an
// undo log page of an active transaction, never panic; on a page that is not an undo log page
// they give no change, and on an undo page (a table whose definition is unknown) no change
// presented as exact.
func FuzzCollector(f *testing.F) {
	f.Add([]byte{11, 0, 20, 4, 0, 0, 0, 1}, []byte{0, 2, 0, 0}, true)
	f.Add([]byte{14, 3, 0xFF, 1, 2, 3, 4, 5, 6, 7, 8}, []byte{1, 2, 3}, false)
	f.Fuzz(func(t *testing.T, data, noise []byte, undo bool) {
		const size = 16384
		page := make([]byte, size)
		for i := range page {
			if len(noise) > 0 {
				page[i] = noise[i%len(noise)]
			}
		}
		if undo {
			binary.BigEndian.PutUint16(page[filPageType:], pageTypeUndo)
			binary.BigEndian.PutUint32(page[undoPageNode:], filNull)
			binary.BigEndian.PutUint16(page[undoState:], stateActive)
			binary.BigEndian.PutUint16(page[undoLastLog:], undoSegHdr+30)
			binary.BigEndian.PutUint64(page[undoSegHdr+30:], 77)
		} else if binary.BigEndian.Uint16(page[filPageType:]) == pageTypeUndo {
			page[filPageType+1]++
		}
		if len(data) > 1000 {
			data = data[:1000]
		}
		free := 200
		binary.BigEndian.PutUint16(page[undoPageFree:], uint16(free+4+len(data)))
		copy(page[free+2:], data)
		read := func(space, no uint32) ([]byte, error) { return page, nil }
		c := NewCollector(0, func(uint64) (*rows.Table, error) { return nil, errors.New("unknown") })
		m := &logformat.MTR{LSN: 100, EndLSN: 200, Records: []logformat.Record{{Type: logformat.Extended,
			Sub: uint8(logformat.UndoAppend), Space: 1, Page: 3, Data: data}}}
		if err := c.Observe(m, read); err != nil {
			return
		}
		trxs := c.Trxs()
		trxs = Resolve(trxs, c.tables)
		for _, tr := range trxs {
			for _, ch := range tr.Changes {
				if !undo || ch.Inexact == "" {
					t.Fatalf("a change from random bytes (undo page %v): %+v", undo, ch)
				}
			}
		}
	})
}
