package analysis

import (
	"encoding/binary"

	"innoscope/discovery"
)

// Between parsing the log and the last recovery batch, InnoDB's start-up (srv_start in MariaDB
// 10.11: dict_boot, the undo tablespace checks, dict_sys.load_sys_tables,
// trx_lists_init_at_db_start) reads pages of the system and undo tablespaces through the
// buffer pool. A page read while recovery is on gets its records applied at once and leaves the
// page → records map (garbage_collect at the start of recv_sys_t::apply), so the number printed
// as "To recover" does not count it. startupReads is the part of those reads that follows the
// transaction system: TRX_SYS, every rollback segment header it names, the last undo log of
// each rollback segment's history, and each undo log segment in a rollback segment slot (its
// header page and the last page of its page list), with the dictionary header and the change
// buffer's header and root.

// Offsets in the pages the start-up reads (trx0sys.h, trx0rseg.h, trx0undo.h, fsp0types.h).
const (
	suPageData     = 38                   // FIL_PAGE_DATA
	suTrxSysPage   = 5                    // FSP_TRX_SYS_PAGE_NO
	suDictHdrPage  = 7                    // FSP_DICT_HDR_PAGE_NO
	suIbufHeader   = 3                    // FSP_IBUF_HEADER_PAGE_NO
	suIbufRoot     = 4                    // FSP_IBUF_TREE_ROOT_PAGE_NO
	suTrxSysRsegs  = suPageData + 18      // TRX_SYS_RSEGS
	suNRsegs       = 128                  // TRX_SYS_N_RSEGS
	suRsegHistory  = suPageData + 8       // TRX_RSEG_HISTORY (list base: length, first, last)
	suRsegSlots    = suPageData + 34      // TRX_RSEG_UNDO_SLOTS
	suRsegNSlots   = 1024                 // TRX_RSEG_N_SLOTS at 16 KiB; page size / 16
	suUndoPageList = suPageData + 18 + 14 // TRX_UNDO_SEG_HDR + TRX_UNDO_PAGE_LIST
	suFilNull      = 0xffffffff
	suIbufSeg      = 94 // IBUF_HEADER + IBUF_TREE_SEG_HEADER: PAGE_DATA, a file segment header
)

// startupReads returns the pages of the transaction system the server's start-up reads, read
// from the pages as recovery leaves them.
func startupReads(read discovery.PageReader, u *UndoView) map[PageID]bool {
	out := map[PageID]bool{{0, suIbufHeader}: true, {0, suIbufRoot}: true, {0, suDictHdrPage}: true,
		{0, suTrxSysPage}: true}
	if h, err := read(0, suIbufHeader); err == nil && len(h) >= suIbufSeg+10 {
		out[PageID{0, binary.BigEndian.Uint32(h[suIbufSeg+4:])}] = true // the index node of the change buffer's segment
	}
	if h, err := read(0, suDictHdrPage); err == nil && len(h) >= suPageData+52 {
		for _, at := range []int{32, 40, 44, 48} { // SYS_TABLES, SYS_COLUMNS, SYS_INDEXES, SYS_FIELDS
			out[PageID{0, binary.BigEndian.Uint32(h[suPageData+at:])}] = true
		}
	}
	sysTables := map[uint64]bool{}
	for _, t := range u.Tables {
		if t.Name == "SYS_FOREIGN" || t.Name == "SYS_FOREIGN_COLS" || t.Name == "SYS_VIRTUAL" {
			sysTables[t.ID] = true
		}
	}
	for _, ix := range u.Indexes {
		if sysTables[ix.TableID] && ix.Type&1 != 0 && !ix.Deleted {
			out[PageID{ix.SpaceID, ix.PageNo}] = true
		}
	}
	sys, err := read(0, suTrxSysPage)
	if err != nil || len(sys) < suTrxSysRsegs+suNRsegs*8 {
		return out
	}
	for i := 0; i < suNRsegs; i++ {
		at := suTrxSysRsegs + 8*i
		space, page := binary.BigEndian.Uint32(sys[at:]), binary.BigEndian.Uint32(sys[at+4:])
		if page == suFilNull {
			continue
		}
		out[PageID{space, page}] = true
		out[PageID{space, 0}] = true // trx_rseg_mem_restore reads the space's header page first
		rseg, err := read(space, page)
		if err != nil || len(rseg) < suRsegSlots {
			continue
		}
		if binary.BigEndian.Uint32(rseg[suRsegHistory:]) > 0 {
			if last := binary.BigEndian.Uint32(rseg[suRsegHistory+10:]); last != suFilNull {
				out[PageID{space, last}] = true
			}
		}
		for s := 0; s < len(rseg)/16 && suRsegSlots+4*s+4 <= len(rseg); s++ {
			no := binary.BigEndian.Uint32(rseg[suRsegSlots+4*s:])
			if no == suFilNull {
				continue
			}
			out[PageID{space, no}] = true
			if p, err := read(space, no); err == nil && len(p) >= suUndoPageList+16 {
				if last := binary.BigEndian.Uint32(p[suUndoPageList+10:]); last != suFilNull {
					out[PageID{space, last}] = true
				}
			}
		}
	}
	return out
}
