package discovery

import (
	"encoding/binary"
	"fmt"
)

// The history lists of the rollback segments (trx0rseg.h, trx0undo.h): every committed
// transaction's undo log is added at the head of its rollback segment's TRX_RSEG_HISTORY list,
// with its commit number (TRX_UNDO_TRX_NO), and stays there until purge has no read view left
// that needs it. What the lists hold is how far back older versions of rows can be built.
const (
	rsegHistory     = FilPageData + 8 // TRX_RSEG_HISTORY: FLST base node (length, first, last)
	undoLogTrxNo    = 8               // TRX_UNDO_TRX_NO in the undo log header
	undoHistoryNode = 34              // TRX_UNDO_HISTORY_NODE: FLST node (prev, next)
)

// UndoLog is one undo log of a committed transaction in a rollback segment's history list.
type UndoLog struct {
	TrxID  uint64 `json:"trx_id"`
	TrxNo  uint64 `json:"trx_no"` // the commit number: commit order
	Rseg   int    `json:"rseg"`
	Space  uint32 `json:"space"`
	Page   uint32 `json:"page"`   // the undo log header page
	Offset int    `json:"offset"` // the undo log header's offset in it
}

// Rseg is a persistent rollback segment named by TRX_SYS (slot i: the rseg id of a DB_ROLL_PTR).
type Rseg struct {
	Slot  int    `json:"slot"`
	Space uint32 `json:"space"`
	Page  uint32 `json:"page"`
}

// UndoHistory is what the undo logs say of committed and uncommitted transactions.
type UndoHistory struct {
	Rsegs map[int]Rseg `json:"-"`
	// Logs are the history lists' undo logs, by transaction id.
	Logs map[uint64]UndoLog `json:"-"`
	// Open are the transactions whose undo log is active or prepared (not committed).
	Open map[uint64]bool `json:"-"`
	// MinTrxNo is the oldest commit number the history holds (0: the history is empty).
	MinTrxNo uint64 `json:"min_trx_no"`
	// flags are the undo spaces' FSP flags (page 0), to check the checksums of undo pages.
	flags map[uint32]Flags
}

// ReadUndoHistory reads TRX_SYS, the rollback segment headers it names, their history lists
// and the active and prepared undo logs.
func ReadUndoHistory(read PageReader) (*UndoHistory, error) {
	sys, err := read(trxSysSpace, trxSysPage)
	if err != nil {
		return nil, err
	}
	if len(sys) < trxSysRsegs+trxSysNRsegs*8 {
		return nil, fmt.Errorf("system tablespace page %d: too short for TRX_SYS", trxSysPage)
	}
	h := &UndoHistory{Rsegs: map[int]Rseg{}, Logs: map[uint64]UndoLog{}, Open: map[uint64]bool{}}
	be := binary.BigEndian
	for i := 0; i < trxSysNRsegs; i++ {
		at := trxSysRsegs + 8*i
		space, page := be.Uint32(sys[at:]), be.Uint32(sys[at+4:])
		if page == filNull {
			continue
		}
		h.Rsegs[i] = Rseg{Slot: i, Space: space, Page: page}
		rseg, err := read(space, page)
		if err != nil {
			return nil, fmt.Errorf("rollback segment %d (TRX_SYS offset %d): %w", i, at, err)
		}
		if len(rseg) < rsegHistory+16 {
			return nil, fmt.Errorf("rollback segment %d: space %d page %d too short", i, space, page)
		}
		n := be.Uint32(rseg[rsegHistory:])
		no, off := be.Uint32(rseg[rsegHistory+4:]), int(be.Uint16(rseg[rsegHistory+8:]))
		seen := map[[2]uint32]bool{}
		for k := uint32(0); no != filNull; k++ {
			if seen[[2]uint32{no, uint32(off)}] {
				return nil, fmt.Errorf("rollback segment %d (space %d page %d): the history list loops at page %d offset %d", i, space, page, no, off)
			}
			seen[[2]uint32{no, uint32(off)}] = true
			if k >= n || k > maxUndoPages {
				return nil, fmt.Errorf("rollback segment %d (space %d page %d): offset %d: the history list holds more than its length %d",
					i, space, page, rsegHistory, n)
			}
			p, err := read(space, no)
			if err != nil {
				return nil, fmt.Errorf("rollback segment %d history: %w", i, err)
			}
			hdr := off - undoHistoryNode
			if hdr < undoSegHdr || hdr+undoLogHdrSize > len(p) {
				return nil, fmt.Errorf("rollback segment %d history: space %d page %d: undo log header offset %d out of the page", i, space, no, hdr)
			}
			l := UndoLog{TrxID: be.Uint64(p[hdr+undoLogTrxID:]), TrxNo: be.Uint64(p[hdr+undoLogTrxNo:]), Rseg: i, Space: space, Page: no, Offset: hdr}
			h.Logs[l.TrxID] = l
			if h.MinTrxNo == 0 || l.TrxNo < h.MinTrxNo {
				h.MinTrxNo = l.TrxNo
			}
			no, off = be.Uint32(p[off+6:]), int(be.Uint16(p[off+10:]))
		}
	}
	trxs, err := ReadUndoTrxs(read)
	if err != nil {
		return nil, err
	}
	for _, t := range trxs {
		h.Open[t.ID] = true
	}
	return h, nil
}

// Roll pointer fields (DB_ROLL_PTR, trx0undo.h): the insert flag, the rollback segment id, the
// undo page number and the record's offset in it.
const rollPtrInsert = uint64(1) << 55

// RollPtr is a decoded DB_ROLL_PTR.
type RollPtr struct {
	Insert bool   `json:"insert"`
	Rseg   int    `json:"rseg"`
	Page   uint32 `json:"page"`
	Offset int    `json:"offset"`
}

// ParseRollPtr decodes the 7 bytes of a DB_ROLL_PTR.
func ParseRollPtr(b []byte) (RollPtr, error) {
	if len(b) != 7 {
		return RollPtr{}, fmt.Errorf("DB_ROLL_PTR of %d bytes", len(b))
	}
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return RollPtr{Insert: v&rollPtrInsert != 0, Rseg: int(v>>48) & 0x7f, Page: uint32(v >> 16), Offset: int(v & 0xffff)}, nil
}

// UndoRecordAt reads the body of the undo record a roll pointer points to (its type byte
// onwards, without the two link fields): the page, through the rollback segment's space.
func (h *UndoHistory) UndoRecordAt(read PageReader, rp RollPtr) ([]byte, error) {
	rs, ok := h.Rsegs[rp.Rseg]
	if !ok {
		return nil, fmt.Errorf("DB_ROLL_PTR names rollback segment %d, which TRX_SYS does not list", rp.Rseg)
	}
	p, err := read(rs.Space, rp.Page)
	if err != nil {
		return nil, err
	}
	where := fmt.Sprintf("undo space %d page %d offset %d", rs.Space, rp.Page, rp.Offset)
	if len(p) < undoSegHdr+8 {
		return nil, fmt.Errorf("%s: a page of %d bytes", where, len(p))
	}
	fl, ok := h.flags[rs.Space]
	if !ok {
		p0, err := read(rs.Space, 0)
		if err != nil {
			return nil, err
		}
		hdr, err := ParseFSPHeader(p0)
		if err != nil {
			return nil, fmt.Errorf("undo space %d page 0: %w", rs.Space, err)
		}
		if h.flags == nil {
			h.flags = map[uint32]Flags{}
		}
		fl = hdr.Flags
		h.flags[rs.Space] = fl
	}
	if v := CheckPage(p, fl, rp.Page, rs.Space); v.Corrupt {
		return nil, fmt.Errorf("%s: the page is corrupt (%s)", where, v.Reason)
	}
	if typ := binary.BigEndian.Uint16(p[FilPageType:]); typ != pageTypeUndo {
		return nil, fmt.Errorf("%s: page type %d is not an undo log page (the history was purged and the page reused)", where, typ)
	}
	free := int(binary.BigEndian.Uint16(p[undoPageFree:]))
	if rp.Offset < undoSegHdr || rp.Offset+3 > free || free > len(p)-8 {
		return nil, fmt.Errorf("%s: beyond the page's undo records (TRX_UNDO_PAGE_FREE %d)", where, free)
	}
	next := int(binary.BigEndian.Uint16(p[rp.Offset:]))
	if next <= rp.Offset+4 || next > free {
		return nil, fmt.Errorf("%s: the undo record ends at %d (TRX_UNDO_PAGE_FREE %d)", where, next, free)
	}
	return p[rp.Offset+2 : next-2], nil
}
