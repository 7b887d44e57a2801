package rows

import (
	"encoding/binary"
	"fmt"
	"innoscope/discovery"
)

// Undo log records of the clustered index (trx0rec.h, trx0rec.cc trx_undo_page_report_modify):
// after the type byte (type | cmpl_info*16 | 128 when an off-page column was updated), the
// undo number and table id (much-compressed), an update record holds the record's info bits
// before the change, its DB_TRX_ID and DB_ROLL_PTR before the change (each a compressed high
// half and 4 bytes), the key (n_uniq fields: compressed length, bytes), and but for a delete
// mark the old values of the updated fields: their number, then for each the field's position
// in the index, its length and bytes. A length of UNIV_SQL_NULL is SQL NULL; one of
// UNIV_EXTERN_STORAGE_FIELD + n is n bytes stored off page (local prefix and 20-byte
// reference); UNIV_EXTERN_STORAGE_FIELD itself is followed by the length the record held
// (prefix and reference) and the length of a longer prefix the undo log keeps.
const (
	undoInsertRec     = 11 // TRX_UNDO_INSERT_REC
	undoUpdExistRec   = 12 // TRX_UNDO_UPD_EXIST_REC
	undoUpdDelRec     = 13 // TRX_UNDO_UPD_DEL_REC
	undoDelMarkRec    = 14 // TRX_UNDO_DEL_MARK_REC
	univSQLNull       = 0xFFFFFFFF
	univExternStorage = univSQLNull - 16384 // UNIV_EXTERN_STORAGE_FIELD (UNIV_PAGE_SIZE_DEF)
	spatialStatusMask = 3 << 12             // SPATIAL_STATUS_MASK
)

// undoUpdate is a decoded update undo record of a clustered index: what gives the version of
// a row before the change.
type undoUpdate struct {
	Type    byte
	UndoNo  uint64
	TableID uint64
	Info    byte   // the record's info bits before the change (delete mark)
	TrxID   uint64 // DB_TRX_ID before the change: the transaction that wrote the older version
	RollPtr []byte // DB_ROLL_PTR before the change (7 bytes)
	Fields  []undoField
}

// undoField is the value a field had before the change.
type undoField struct {
	Pos int // the field's position in the clustered index
	Val value
}

// parseUndoUpdate decodes an undo record body (from its type byte) of the clustered index of a
// table with nUniq key fields and nFields fields. An insert record (whose row had no older
// version) is returned with its type only.
func parseUndoUpdate(b []byte, nUniq, nFields int) (undoUpdate, error) {
	if len(b) < 1 {
		return undoUpdate{}, fmt.Errorf("empty undo record")
	}
	u := undoUpdate{Type: b[0] & 15}
	i := 1
	var err error
	if u.UndoNo, i, err = undoMuchCompressed(b, i); err != nil {
		return u, fmt.Errorf("undo number: %w", err)
	}
	if u.TableID, i, err = undoMuchCompressed(b, i); err != nil {
		return u, fmt.Errorf("table id: %w", err)
	}
	switch u.Type {
	case undoInsertRec:
		return u, nil
	case undoUpdExistRec, undoUpdDelRec, undoDelMarkRec:
	default:
		return u, fmt.Errorf("undo record type %d is not a clustered index record's", u.Type)
	}
	if i >= len(b) {
		return u, fmt.Errorf("truncated at byte %d (info bits)", i)
	}
	u.Info = b[i]
	i++
	if u.TrxID, i, err = undoCompressed64(b, i); err != nil {
		return u, fmt.Errorf("DB_TRX_ID: %w", err)
	}
	var roll uint64
	if roll, i, err = undoCompressed64(b, i); err != nil {
		return u, fmt.Errorf("DB_ROLL_PTR: %w", err)
	}
	if roll>>56 != 0 || u.TrxID>>48 != 0 {
		return u, fmt.Errorf("DB_TRX_ID %d or DB_ROLL_PTR %#x out of range", u.TrxID, roll)
	}
	u.RollPtr = make([]byte, 7)
	for k := 6; k >= 0; k-- {
		u.RollPtr[k] = byte(roll)
		roll >>= 8
	}
	for k := 0; k < nUniq; k++ {
		if _, i, err = undoValue(b, i); err != nil {
			return u, fmt.Errorf("key field %d: %w", k, err)
		}
	}
	if u.Type == undoDelMarkRec {
		return u, nil
	}
	n, i, err := undoCompressed(b, i)
	if err != nil {
		return u, fmt.Errorf("number of updated fields: %w", err)
	}
	if int64(n) > int64(nFields) {
		return u, fmt.Errorf("%d updated fields, the index has %d", n, nFields)
	}
	for k := 0; k < int(n); k++ {
		var pos uint32
		if pos, i, err = undoCompressed(b, i); err != nil {
			return u, fmt.Errorf("updated field %d: position: %w", k, err)
		}
		if int64(pos) >= int64(nFields) || int(pos) < nUniq+2 && int(pos) >= nUniq {
			// A virtual column (position REC_MAX_N_FIELDS and up) or a system column.
			return u, fmt.Errorf("updated field %d: position %d is not a stored column of the index (%d fields)", k, pos, nFields)
		}
		var v value
		if v, i, err = undoValue(b, i); err != nil {
			return u, fmt.Errorf("updated field %d (position %d): %w", k, pos, err)
		}
		u.Fields = append(u.Fields, undoField{Pos: int(pos), Val: v})
	}
	return u, nil
}

// undoValue reads one column value of an undo record (trx_undo_rec_get_col_val).
func undoValue(b []byte, i int) (value, int, error) {
	l, i, err := undoCompressed(b, i)
	if err != nil {
		return value{}, i, err
	}
	switch {
	case l == univSQLNull:
		return value{null: true}, i, nil
	case l == univExternStorage:
		var orig, n uint32
		if orig, i, err = undoCompressed(b, i); err != nil {
			return value{}, i, err
		}
		if n, i, err = undoCompressed(b, i); err != nil {
			return value{}, i, err
		}
		n &^= spatialStatusMask
		if orig < fieldRefSize || n < orig || int64(n) > int64(len(b)-i) {
			return value{}, i, fmt.Errorf("off-page value: %d bytes of a %d-byte field do not fit", n, orig)
		}
		// The undo log keeps a longer prefix: the record held orig bytes, the first orig-20
		// of it and the reference at its end.
		d := b[i : i+int(n)]
		v := append(append([]byte{}, d[:orig-fieldRefSize]...), d[n-fieldRefSize:]...)
		return value{b: v, ext: true}, i + int(n), nil
	case l > univExternStorage:
		n := (l - univExternStorage) &^ spatialStatusMask
		if n < fieldRefSize || int64(n) > int64(len(b)-i) {
			return value{}, i, fmt.Errorf("off-page value of %d bytes does not fit", n)
		}
		return value{b: b[i : i+int(n)], ext: true}, i + int(n), nil
	default:
		if int64(l) > int64(len(b)-i) {
			return value{}, i, fmt.Errorf("value of %d bytes at byte %d runs past the record (%d bytes)", l, i, len(b))
		}
		return value{b: b[i : i+int(l)]}, i + int(l), nil
	}
}

// undoCompressed reads a mach_read_compressed number (1 to 5 bytes) at b[i:].
func undoCompressed(b []byte, i int) (uint32, int, error) { return discovery.MachCompressed(b, i) }

// undoCompressed64 reads a mach_u64_read_compressed number: the high half compressed, the low
// half in 4 bytes.
func undoCompressed64(b []byte, i int) (uint64, int, error) {
	hi, j, err := undoCompressed(b, i)
	if err != nil {
		return 0, i, err
	}
	if j+4 > len(b) {
		return 0, i, fmt.Errorf("truncated at byte %d", j)
	}
	return uint64(hi)<<32 | uint64(binary.BigEndian.Uint32(b[j:])), j + 4, nil
}

// undoMuchCompressed reads a mach_u64_read_much_compressed number: a compressed 32-bit value, or
// 0xFF followed by the compressed high and low halves.
func undoMuchCompressed(b []byte, i int) (uint64, int, error) {
	if i < len(b) && b[i] == 0xFF {
		hi, j, err := undoCompressed(b, i+1)
		if err != nil {
			return 0, i, err
		}
		lo, j, err := undoCompressed(b, j)
		return uint64(hi)<<32 | uint64(lo), j, err
	}
	v, j, err := undoCompressed(b, i)
	return uint64(v), j, err
}
