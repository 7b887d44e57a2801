package discovery

import (
	"encoding/binary"
	"fmt"
	"io"
)

// The transaction system and undo log layout of MariaDB 10.11 (trx0sys.h, trx0rseg.h,
// trx0undo.h, trx0rec.h), read to find the transactions crash recovery rolls back.
const (
	trxSysSpace    = 0
	trxSysPage     = 5                // FSP_TRX_SYS_PAGE_NO
	trxSysRsegs    = FilPageData + 18 // after TRX_SYS_TRX_ID_STORE (8) and the file segment header (10)
	trxSysNRsegs   = 128
	rsegUndoSlots  = FilPageData + 34 // after the format, history size, history list and segment header
	undoPageStart  = FilPageData + 2  // TRX_UNDO_PAGE_START
	undoPageFree   = FilPageData + 4  // TRX_UNDO_PAGE_FREE
	undoPageNode   = FilPageData + 6  // TRX_UNDO_PAGE_NODE: prev and next page addresses
	undoSegHdr     = FilPageData + 18 // TRX_UNDO_SEG_HDR
	undoState      = undoSegHdr       // TRX_UNDO_STATE
	undoLastLog    = undoSegHdr + 2   // TRX_UNDO_LAST_LOG
	undoLogTrxID   = 0                // in the undo log header: TRX_UNDO_TRX_ID
	undoLogStart   = 18               // TRX_UNDO_LOG_START
	undoLogHdrSize = 46               // TRX_UNDO_LOG_OLD_HDR_SIZE
	pageTypeUndo   = 2                // FIL_PAGE_UNDO_LOG
	maxUndoPages   = 1 << 20
)

// Undo log segment states (TRX_UNDO_STATE).
const (
	UndoActive   = 1 // TRX_UNDO_ACTIVE: the transaction had not committed; recovery rolls it back
	UndoPrepared = 5 // TRX_UNDO_PREPARED: XA PREPARE; recovery leaves it for the coordinator
)

// Undo record types (TRX_UNDO_* in trx0rec.h).
const (
	UndoRenameTable = 9  // TRX_UNDO_RENAME_TABLE: the table's name before a RENAME
	UndoInsertRec   = 11 // TRX_UNDO_INSERT_REC: a fresh insert (the clustered index key follows)
)

// Table ids of SYS_TABLES and SYS_INDEXES (DICT_TABLES_ID, DICT_INDEXES_ID).
const (
	DictTablesID  = 1
	DictIndexesID = 3
)

// PageReader reads the page no of the tablespace space as it is in the file (physical image).
type PageReader func(space, no uint32) ([]byte, error)

// SpacePages reads tablespace Space through Read as one file of whole pages of Size bytes (an
// io.ReaderAt for NewFile): the pages as a replay has them, say.
type SpacePages struct {
	Read  PageReader
	Space uint32
	Size  int64
}

// ReadAt reads len(b) bytes at off, page by page.
func (p SpacePages) ReadAt(b []byte, off int64) (int, error) {
	n := 0
	for n < len(b) {
		no := (off + int64(n)) / p.Size
		pg, err := p.Read(p.Space, uint32(no))
		if err != nil {
			return n, err
		}
		at := (off + int64(n)) % p.Size
		if at >= int64(len(pg)) {
			return n, io.ErrUnexpectedEOF
		}
		n += copy(b[n:], pg[at:])
	}
	return n, nil
}

// FilePages is a PageReader for one single-file tablespace read over r with pages of pageSize
// bytes (the system tablespace's first file, an undo tablespace); path names it in errors.
func FilePages(r io.ReaderAt, pageSize int, path string) func(no uint32) ([]byte, error) {
	return func(no uint32) ([]byte, error) {
		p := make([]byte, pageSize)
		off := int64(no) * int64(pageSize)
		if _, err := r.ReadAt(p, off); err != nil {
			return nil, fmt.Errorf("%s: page %d (offset %d): %w", path, no, off, err)
		}
		return p, nil
	}
}

// UndoRecord is one undo log record of a recovered transaction, decoded as far as the rollback
// of its file effects needs: its type, undo number and table, and for a fresh insert into
// SYS_TABLES the inserted table's name, for TRX_UNDO_RENAME_TABLE the name to restore.
type UndoRecord struct {
	UndoNo  uint64 `json:"undo_no"`
	Type    uint8  `json:"type"`
	TableID uint64 `json:"table_id"`
	Name    string `json:"name,omitempty"`
	// IndexTableID and IndexID are the key of a fresh insert into SYS_INDEXES.
	IndexTableID uint64 `json:"index_table_id,omitempty"`
	IndexID      uint64 `json:"index_id,omitempty"`
	Space        uint32 `json:"space"`
	Page         uint32 `json:"page"`
	Offset       int    `json:"offset"`
}

// UndoTrx is a transaction whose undo log segment is active or prepared: crash recovery (and a
// server started on the files without it) rolls back an active one.
type UndoTrx struct {
	ID      uint64       `json:"trx_id"`
	State   uint16       `json:"state"`
	Rseg    int          `json:"rseg"`
	Space   uint32       `json:"space"`
	Page    uint32       `json:"page"` // the undo log segment's header page
	Records []UndoRecord `json:"records"`
}

// Prepared reports an XA PREPAREd transaction (left for the transaction coordinator).
func (t UndoTrx) Prepared() bool { return t.State == UndoPrepared }

// ReadUndoTrxs walks TRX_SYS (system tablespace page 5), every rollback segment header it names
// and every undo log segment of those, and returns the transactions whose undo log is active or
// prepared, with their undo records in the order they were written.
func ReadUndoTrxs(read PageReader) ([]UndoTrx, error) {
	sys, err := read(trxSysSpace, trxSysPage)
	if err != nil {
		return nil, err
	}
	if len(sys) < trxSysRsegs+trxSysNRsegs*8 {
		return nil, fmt.Errorf("system tablespace page %d: too short for TRX_SYS", trxSysPage)
	}
	var out []UndoTrx
	for i := 0; i < trxSysNRsegs; i++ {
		at := trxSysRsegs + 8*i
		space, page := binary.BigEndian.Uint32(sys[at:]), binary.BigEndian.Uint32(sys[at+4:])
		if page == filNull {
			continue
		}
		rseg, err := read(space, page)
		if err != nil {
			return nil, fmt.Errorf("rollback segment %d (TRX_SYS offset %d): %w", i, at, err)
		}
		for s := 0; rsegUndoSlots+4*s+4 <= len(rseg) && s < len(rseg)/16; s++ {
			no := binary.BigEndian.Uint32(rseg[rsegUndoSlots+4*s:])
			if no == filNull {
				continue
			}
			t, ok, err := readUndoSegment(read, space, no)
			if err != nil {
				return nil, fmt.Errorf("rollback segment %d (space %d page %d) slot %d: %w", i, space, page, s, err)
			}
			if ok {
				t.Rseg = i
				out = append(out, t)
			}
		}
	}
	return out, nil
}

// readUndoSegment reads the undo log segment whose header page is no; ok when its state is
// active or prepared.
func readUndoSegment(read PageReader, space, no uint32) (UndoTrx, bool, error) {
	p, err := read(space, no)
	if err != nil {
		return UndoTrx{}, false, err
	}
	where := fmt.Sprintf("space %d page %d", space, no)
	if len(p) < undoSegHdr+30+undoLogHdrSize {
		return UndoTrx{}, false, fmt.Errorf("%s: too short for an undo log header page", where)
	}
	if typ := binary.BigEndian.Uint16(p[FilPageType:]); typ != pageTypeUndo {
		return UndoTrx{}, false, fmt.Errorf("%s: page type %d is not an undo log page", where, typ)
	}
	state := binary.BigEndian.Uint16(p[undoState:])
	if state != UndoActive && state != UndoPrepared {
		return UndoTrx{}, false, nil
	}
	hdr := int(binary.BigEndian.Uint16(p[undoLastLog:]))
	if hdr < undoSegHdr+30 || hdr+undoLogHdrSize > len(p) {
		return UndoTrx{}, false, fmt.Errorf("%s: offset %d: undo log header offset %d out of the page", where, undoLastLog, hdr)
	}
	t := UndoTrx{ID: binary.BigEndian.Uint64(p[hdr+undoLogTrxID:]), State: state, Space: space, Page: no}
	start := int(binary.BigEndian.Uint16(p[hdr+undoLogStart:]))
	seen := map[uint32]bool{}
	for pages := 0; ; pages++ {
		seen[no] = true
		recs, err := undoRecords(p, start, space, no)
		if err != nil {
			return t, false, err
		}
		t.Records = append(t.Records, recs...)
		next := binary.BigEndian.Uint32(p[undoPageNode+6:])
		if next == filNull || pages > maxUndoPages {
			return t, true, nil
		}
		if seen[next] {
			return t, false, fmt.Errorf("space %d page %d: offset %d: the undo page list loops to page %d", space, no, undoPageNode+6, next)
		}
		no = next
		if p, err = read(space, no); err != nil {
			return t, false, err
		}
		if len(p) < undoSegHdr {
			return t, false, fmt.Errorf("space %d page %d: too short for an undo page", space, no)
		}
		start = int(binary.BigEndian.Uint16(p[undoPageStart:]))
	}
}

// undoRecords decodes the records of one undo page from start to TRX_UNDO_PAGE_FREE. Each
// record begins with the offset of the next one and ends with its own offset.
func undoRecords(p []byte, start int, space, no uint32) ([]UndoRecord, error) {
	free := int(binary.BigEndian.Uint16(p[undoPageFree:]))
	if free > len(p)-8 {
		return nil, fmt.Errorf("space %d page %d: offset %d: TRX_UNDO_PAGE_FREE %d beyond the page", space, no, undoPageFree, free)
	}
	var out []UndoRecord
	for off := start; off < free; {
		if off < undoSegHdr || off+3 > free {
			return nil, fmt.Errorf("space %d page %d: undo record offset %d out of the page's records (free %d)", space, no, off, free)
		}
		next := int(binary.BigEndian.Uint16(p[off:]))
		if next <= off+4 || next > free {
			return nil, fmt.Errorf("space %d page %d: offset %d: undo record ends at %d (free %d)", space, no, off, next, free)
		}
		r, err := ParseUndoRecord(p[off+2 : next-2])
		if err != nil {
			return nil, fmt.Errorf("space %d page %d: offset %d: %w", space, no, off, err)
		}
		r.Space, r.Page, r.Offset = space, no, off
		out = append(out, r)
		off = next
	}
	return out, nil
}

// ParseUndoRecord decodes the body of an undo record (without its two link fields): the type
// byte, the undo number and table id (much-compressed), the name of a fresh insert into
// SYS_TABLES (its key, NAME) or of TRX_UNDO_RENAME_TABLE (the rest of the record), and the key
// (TABLE_ID, ID) of a fresh insert into SYS_INDEXES.
func ParseUndoRecord(b []byte) (UndoRecord, error) {
	if len(b) < 1 {
		return UndoRecord{}, fmt.Errorf("empty undo record")
	}
	r := UndoRecord{Type: b[0] & 15}
	i := 1
	var err error
	if r.UndoNo, i, err = muchCompressed(b, i); err != nil {
		return r, fmt.Errorf("undo number: %w", err)
	}
	if r.TableID, i, err = muchCompressed(b, i); err != nil {
		return r, fmt.Errorf("table id: %w", err)
	}
	switch {
	case r.Type == UndoRenameTable:
		r.Name = string(b[i:])
	case r.Type == UndoInsertRec && r.TableID == DictTablesID:
		n, j, err := compressed(b, i)
		if err != nil || uint64(len(b)-j) < uint64(n) {
			return r, fmt.Errorf("SYS_TABLES insert: name length %d at byte %d does not fit the record (%d bytes)", n, i, len(b))
		}
		r.Name = string(b[j : j+int(n)])
	case r.Type == UndoInsertRec && r.TableID == DictIndexesID:
		var key [2]uint64
		for k := range key {
			n, j, err := compressed(b, i)
			if err != nil || n != 8 || len(b)-j < 8 {
				return r, fmt.Errorf("SYS_INDEXES insert: key field %d at byte %d is not 8 bytes within the record (%d bytes)", k, i, len(b))
			}
			key[k], i = binary.BigEndian.Uint64(b[j:]), j+8
		}
		r.IndexTableID, r.IndexID = key[0], key[1]
	}
	return r, nil
}

// MachCompressed reads a mach_read_compressed number (1 to 5 bytes) at b[i:] and returns it
// with the index after it.
func MachCompressed(b []byte, i int) (uint32, int, error) { return compressed(b, i) }

// compressed reads a mach_read_compressed number (1 to 5 bytes) at b[i:].
func compressed(b []byte, i int) (uint32, int, error) {
	if i >= len(b) {
		return 0, i, fmt.Errorf("truncated at byte %d", i)
	}
	c := b[i]
	n := 1
	switch {
	case c < 0x80:
	case c < 0xC0:
		n = 2
	case c < 0xE0:
		n = 3
	case c < 0xF0:
		n = 4
	default:
		n = 5
	}
	if i+n > len(b) {
		return 0, i, fmt.Errorf("truncated %d-byte number at byte %d", n, i)
	}
	var v uint32
	switch n {
	case 1:
		v = uint32(c)
	case 2:
		v = uint32(binary.BigEndian.Uint16(b[i:])) & 0x3FFF
	case 3:
		v = (uint32(c)<<16 | uint32(binary.BigEndian.Uint16(b[i+1:]))) & 0x1FFFFF
	case 4:
		v = binary.BigEndian.Uint32(b[i:]) & 0x0FFFFFFF
	case 5:
		v = binary.BigEndian.Uint32(b[i+1:])
	}
	return v, i + n, nil
}

// MachMuchCompressed reads a mach_u64_read_much_compressed number at b[i:] and returns it with
// the index after it.
func MachMuchCompressed(b []byte, i int) (uint64, int, error) { return muchCompressed(b, i) }

// muchCompressed reads a mach_u64_read_much_compressed number: a compressed 32-bit value, or
// 0xFF followed by the compressed high and low halves.
func muchCompressed(b []byte, i int) (uint64, int, error) {
	if i < len(b) && b[i] == 0xFF {
		hi, j, err := compressed(b, i+1)
		if err != nil {
			return 0, i, err
		}
		lo, j, err := compressed(b, j)
		return uint64(hi)<<32 | uint64(lo), j, err
	}
	v, j, err := compressed(b, i)
	return uint64(v), j, err
}

// RollbackForecast is what crash recovery says at start-up of the transactions the undo logs
// leave ("N transaction(s) which must be rolled back or cleaned up in total M row operations to
// undo"): every transaction with an active or prepared undo log is resurrected; the active ones
// are rolled back, each with as many row operations as its undo number after its newest record.
type RollbackForecast struct {
	Transactions int           `json:"transactions"` // resurrected: active and prepared
	Prepared     int           `json:"prepared"`     // XA PREPAREd, left for the coordinator
	RowsToUndo   uint64        `json:"rows_to_undo"` // over the active ones
	Trxs         []TrxRollback `json:"trxs"`
}

// TrxRollback is one resurrected transaction of a RollbackForecast.
type TrxRollback struct {
	ID       uint64 `json:"trx_id"`
	Prepared bool   `json:"prepared"`
	Rows     uint64 `json:"rows"` // its newest undo record's number + 1 (0: no record)
}

// ForecastRollback counts the transactions of trxs (ReadUndoTrxs) by id, as the server
// resurrects them: a transaction's undo logs in one rollback segment (insert and update) make
// one transaction, whose rows to undo are its highest undo number + 1.
func ForecastRollback(trxs []UndoTrx) RollbackForecast {
	var f RollbackForecast
	at := map[uint64]int{}
	for _, t := range trxs {
		i, ok := at[t.ID]
		if !ok {
			i = len(f.Trxs)
			at[t.ID] = i
			f.Trxs = append(f.Trxs, TrxRollback{ID: t.ID, Prepared: t.Prepared()})
		}
		for _, r := range t.Records {
			if r.UndoNo+1 > f.Trxs[i].Rows {
				f.Trxs[i].Rows = r.UndoNo + 1
			}
		}
	}
	for _, t := range f.Trxs {
		if t.Prepared {
			f.Prepared++
		} else {
			f.RowsToUndo += t.Rows
		}
	}
	f.Transactions = len(f.Trxs)
	return f
}
