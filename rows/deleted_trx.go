package rows

import (
	"encoding/binary"

	"innoscope/discovery"
)

// The newest transaction id the data directory can hold in a record, the bound a carved or
// free-list image's DB_TRX_ID must not pass, read as the server reads it when it starts
// (trx_rseg_mem_restore, trx0rseg.cc): the largest of the legacy TRX_SYS_TRX_ID_STORE, each
// rollback segment header's TRX_RSEG_MAX_TRX_ID, and the transaction id and commit number
// (TRX_UNDO_TRX_ID, TRX_UNDO_TRX_NO) of the undo log headers the server reads: the newest log of
// each segment's history list (its first node) and the last log of every undo segment in its
// slots (active, prepared or cached for reuse).

const (
	trxSysPageNo    = 5  // FSP_TRX_SYS_PAGE_NO
	trxSysRsegArray = 18 // TRX_SYS_RSEGS, after TRX_SYS_TRX_ID_STORE and the segment header
	trxSysNRsegs    = 128
	rsegUndoSlots   = 34 // TRX_RSEG_UNDO_SLOTS
	rsegHistory     = 8  // TRX_RSEG_HISTORY: the history list's base node (length, first, last)
	undoHistoryNode = 34 // TRX_UNDO_HISTORY_NODE in an undo log header
	undoLastLogAt   = FilData + 18 + 2
)

// MaxTrxID reads the bound from the system tablespace and the undo tablespaces of layout s
// (0 when it cannot be read: the images are then not checked against it).
func MaxTrxID(s discovery.Layout) uint64 {
	read, closeAll, err := discovery.UndoPages(s)
	if err != nil {
		return 0
	}
	defer closeAll()
	sys, err := read(0, trxSysPageNo)
	be := binary.BigEndian
	if err != nil || len(sys) < FilData+trxSysRsegArray+8*trxSysNRsegs {
		return 0
	}
	bound := be.Uint64(sys[FilData:])
	for i := 0; i < trxSysNRsegs; i++ {
		at := FilData + trxSysRsegArray + 8*i
		space, page := be.Uint32(sys[at:]), be.Uint32(sys[at+4:])
		if page == filNull {
			continue
		}
		rseg, err := read(space, page)
		// TRX_RSEG_MAX_TRX_ID follows the undo slots, one per 16 bytes of the page.
		off := FilData + rsegUndoSlots + 4*(len(rseg)/16)
		if err != nil || off+8 > len(rseg) {
			continue
		}
		bound = max(bound, be.Uint64(rseg[off:]))
		// The newest log of the history list: the list's first node, inside that log's header.
		first := FilData + rsegHistory + 4
		bound = max(bound, undoHeaderIDs(read, space, be.Uint32(rseg[first:]), int(be.Uint16(rseg[first+4:]))-undoHistoryNode))
		for s := FilData + rsegUndoSlots; s+4 <= off; s += 4 {
			no := be.Uint32(rseg[s:])
			if no == filNull || no == 0 {
				continue
			}
			if p, err := read(space, no); err == nil && len(p) > undoLastLogAt+2 {
				bound = max(bound, undoHeaderIDs(read, space, no, int(be.Uint16(p[undoLastLogAt:]))))
			}
		}
	}
	return bound
}

// undoHeaderIDs is the larger of TRX_UNDO_TRX_ID and TRX_UNDO_TRX_NO of the undo log header at
// offset at of page no (0 when there is none).
func undoHeaderIDs(read discovery.PageReader, space, no uint32, at int) uint64 {
	if no == filNull || no == 0 || at < FilData {
		return 0
	}
	p, err := read(space, no)
	if err != nil || at+16 > len(p)-8 {
		return 0
	}
	return max(binary.BigEndian.Uint64(p[at:]), binary.BigEndian.Uint64(p[at+8:]))
}

// rollPtrValid: a DB_ROLL_PTR the server writes beside DB_TRX_ID trx: the one purge leaves
// with DB_TRX_ID 0 (only the insert flag, row_purge_reset_trx_id), else one that points into an
// undo page (page number not 0, offset past the page header and before the trailer).
func rollPtrValid(b []byte, trx uint64, pageSize int) bool {
	if len(b) != sysRollPtrLen {
		return false
	}
	if reset := b[0] == 0x80 && isZero(b[1:]); reset || trx == 0 {
		return reset && trx == 0
	}
	no := binary.BigEndian.Uint32(b[1:])
	off := int(binary.BigEndian.Uint16(b[5:]))
	return no != 0 && no != filNull && off >= FilData && off < pageSize-8
}
