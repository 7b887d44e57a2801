// Package changes turns the redo log into row changes: the undo records the log appends
// (UNDO_APPEND) give each change's table, operation, key and old values; the undo log headers
// recovery rebuilds give the transaction each belongs to and whether it committed, rolled back
// or was still open at the end of the log (trx0rec.cc, trx0undo.cc, trx0purge.cc of MariaDB
// 10.11).
package changes

import (
	"encoding/binary"
	"fmt"
	"innoscope/discovery"
)

// Undo record types (TRX_UNDO_* in trx0rec.h) and the flags of the type byte.
const (
	undoInsertMetadata = 10  // TRX_UNDO_INSERT_METADATA: instant ALTER's metadata record
	undoInsert         = 11  // TRX_UNDO_INSERT_REC
	undoUpdExist       = 12  // TRX_UNDO_UPD_EXIST_REC: update of a record not delete-marked
	undoUpdDel         = 13  // TRX_UNDO_UPD_DEL_REC: update of a delete-marked record (re-insert)
	undoDelMark        = 14  // TRX_UNDO_DEL_MARK_REC: delete (the record is delete-marked)
	undoEmpty          = 15  // TRX_UNDO_EMPTY: bulk insert into an empty table (no row logged)
	undoCmplMult       = 16  // TRX_UNDO_CMPL_INFO_MULT
	undoUpdExtern      = 128 // TRX_UNDO_UPD_EXTERN: an old value is stored off page
	sqlNull            = 0xFFFFFFFF
	externStorage      = sqlNull - 16384 // UNIV_EXTERN_STORAGE_FIELD
	maxFields          = 1023            // REC_MAX_N_FIELDS: a field number at or above it is a virtual column
)

// Op is the operation an undo record undoes.
type Op string

// The operations.
const (
	Insert Op = "insert"
	Update Op = "update"
	Delete Op = "delete"
)

// Field is one stored field of an undo record: its place in the clustered index and its bytes.
type Field struct {
	Pos   int    `json:"pos"`
	Null  bool   `json:"null,omitempty"`
	Bytes []byte `json:"-"`
}

// Undo is one decoded undo record of a row change.
type Undo struct {
	Type    uint8  // TRX_UNDO_INSERT_REC .. TRX_UNDO_DEL_MARK_REC
	UndoNo  uint64 // the change's number in its transaction
	TableID uint64
	// TrxID and RollPtr are the system fields of the record before the change (updates and
	// deletes).
	TrxID, RollPtr uint64
	Key            []Field // the clustered index key (Pos 0..n-1)
	Old            []Field // updates: the old values of the changed fields
	// Inexact says what the record holds that is not decoded into values (an off-page old
	// value, a virtual column); "" when every field is exact.
	Inexact string
}

// Op is the row operation of the record. An update of a delete-marked record is an insert:
// the server inserts a row over a record of the same key deleted but not yet purged (a row
// deleted and inserted again, a key changed back), and the binary log has it as an INSERT.
func (u Undo) Op() Op {
	switch u.Type {
	case undoInsert, undoUpdDel:
		return Insert
	case undoDelMark:
		return Delete
	}
	return Update
}

// ParseUndo decodes the body of an undo record of a row change as UNDO_APPEND carries it (no
// link fields): the type byte, the undo number and table id, for updates and deletes the info
// bits and old system fields, the key fields (nKey of them, the table's clustered index key;
// nKey < 0 stops before them: the header only) and an update's vector of old values. ok is false for a record of
// another kind (DDL, metadata, bulk insert), which is no row change; err for bytes that do not
// decode as a row change.
func ParseUndo(b []byte, nKey int) (u Undo, ok bool, err error) {
	if len(b) < 1 {
		return u, false, fmt.Errorf("empty undo record")
	}
	u.Type = b[0] & (undoCmplMult - 1)
	if u.Type < undoInsert || u.Type > undoDelMark {
		return u, false, nil
	}
	i := 1
	if u.UndoNo, i, err = muchCompressed(b, i); err != nil {
		return u, false, fmt.Errorf("undo number: %w", err)
	}
	if u.TableID, i, err = muchCompressed(b, i); err != nil {
		return u, false, fmt.Errorf("table id: %w", err)
	}
	if u.Type != undoInsert {
		if i >= len(b) {
			return u, false, fmt.Errorf("info bits: truncated at byte %d", i)
		}
		i++ // info bits
		if u.TrxID, i, err = u64Compressed(b, i); err != nil {
			return u, false, fmt.Errorf("DB_TRX_ID: %w", err)
		}
		if u.RollPtr, i, err = u64Compressed(b, i); err != nil {
			return u, false, fmt.Errorf("DB_ROLL_PTR: %w", err)
		}
	}
	if nKey < 0 {
		return u, true, nil
	}
	for k := 0; k < nKey; k++ {
		var f Field
		var ext bool
		if f, ext, i, err = field(b, i, k); err != nil {
			return u, false, fmt.Errorf("key field %d: %w", k, err)
		}
		if ext {
			return u, false, fmt.Errorf("key field %d at byte %d: stored off page", k, i)
		}
		u.Key = append(u.Key, f)
	}
	if u.Type == undoInsert || u.Type == undoDelMark {
		return u, true, nil
	}
	n, i, err := compressed(b, i)
	if err != nil {
		return u, false, fmt.Errorf("number of updated fields: %w", err)
	}
	if int(n) > len(b) {
		return u, false, fmt.Errorf("%d updated fields in a record of %d bytes", n, len(b))
	}
	for k := 0; k < int(n); k++ {
		pos, j, err := compressed(b, i)
		if err != nil {
			return u, false, fmt.Errorf("updated field %d: %w", k, err)
		}
		if pos >= maxFields {
			u.Inexact = fmt.Sprintf("updated field %d is a virtual column: it and the fields after it are not decoded", k)
			return u, true, nil
		}
		f, ext, j, err := field(b, j, int(pos))
		if err != nil {
			return u, false, fmt.Errorf("updated field %d: %w", k, err)
		}
		if ext {
			u.Inexact = fmt.Sprintf("the old value of field %d is stored off page: it and the fields after it are not decoded", pos)
			return u, true, nil
		}
		u.Old, i = append(u.Old, f), j
	}
	return u, true, nil
}

// field reads one length-prefixed field at b[i:]; ext for a value stored off page.
func field(b []byte, i, pos int) (Field, bool, int, error) {
	n, j, err := compressed(b, i)
	if err != nil {
		return Field{}, false, i, err
	}
	switch {
	case n == sqlNull:
		return Field{Pos: pos, Null: true}, false, j, nil
	case n >= externStorage:
		return Field{Pos: pos}, true, j, nil
	case uint64(n) > uint64(len(b)-j):
		return Field{}, false, i, fmt.Errorf("length %d at byte %d beyond the record (%d bytes)", n, i, len(b))
	}
	return Field{Pos: pos, Bytes: b[j : j+int(n)]}, false, j + int(n), nil
}

// compressed reads a mach_read_compressed number (1 to 5 bytes) at b[i:].
func compressed(b []byte, i int) (uint32, int, error) { return discovery.MachCompressed(b, i) }

// muchCompressed reads a mach_u64_read_much_compressed number.
func muchCompressed(b []byte, i int) (uint64, int, error) { return discovery.MachMuchCompressed(b, i) }

// u64Compressed reads a mach_u64_read_compressed number: the compressed high half, then the
// low half in 4 bytes.
func u64Compressed(b []byte, i int) (uint64, int, error) {
	hi, j, err := compressed(b, i)
	if err != nil {
		return 0, i, err
	}
	if j+4 > len(b) {
		return 0, i, fmt.Errorf("truncated 64-bit number at byte %d", i)
	}
	return uint64(hi)<<32 | uint64(binary.BigEndian.Uint32(b[j:])), j + 4, nil
}
