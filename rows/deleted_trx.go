package rows

import (
	"encoding/binary"

	"innoscope/discovery"
)

// The newest transaction id the data directory can hold in a record, the bound a carved or
// free-list image's DB_TRX_ID must not pass: the largest of the rollback segment headers'
// TRX_RSEG_MAX_TRX_ID (the commit number of the last transaction committed through the
// segment, which is above the id of every transaction committed before it), the legacy
// TRX_SYS_TRX_ID_STORE and the ids of the transactions whose undo logs are still active or
// prepared (trx0sys.h, trx0rseg.h).

const (
	trxSysPageNo    = 5  // FSP_TRX_SYS_PAGE_NO
	trxSysRsegArray = 18 // TRX_SYS_RSEGS, after TRX_SYS_TRX_ID_STORE and the segment header
	trxSysNRsegs    = 128
	rsegUndoSlots   = 34 // TRX_RSEG_UNDO_SLOTS
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
	}
	if trxs, err := discovery.ReadUndoTrxs(read); err == nil {
		for _, t := range trxs {
			bound = max(bound, t.ID)
		}
	}
	return bound
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
