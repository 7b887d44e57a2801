package discovery

import (
	"encoding/binary"
	"fmt"
)

// Roots of SYS_COLUMNS and SYS_FIELDS in the data dictionary header (dict0boot.h).
const (
	dictHdrColumns = FilPageData + 40
	dictHdrFields  = FilPageData + 48
)

// DictColumn is one SYS_COLUMNS row: a column of a table as InnoDB stores it.
type DictColumn struct {
	TableID uint64 `json:"table_id"`
	// Pos is the column's position among the table's columns; for a virtual column it is
	// encoded (the virtual position in the high 16 bits, see DictColumn.Virtual).
	Pos  uint32 `json:"pos"`
	Name string `json:"name"`
	// MType is the main type (DATA_INT, DATA_VARMYSQL, ...), PRType the precise type: the
	// MySQL type code in the low byte, DATA_NOT_NULL (256), DATA_UNSIGNED (512),
	// DATA_BINARY_TYPE (1024), DATA_VIRTUAL (8192) and the collation id in bits 16-30.
	MType  uint32 `json:"mtype"`
	PRType uint32 `json:"prtype"`
	Len    uint32 `json:"len"` // the maximum length in bytes
	Prec   uint32 `json:"prec"`
	// Deleted: a delete-marked row (history).
	Deleted bool `json:"deleted"`
}

// Virtual reports a virtual (generated, not stored) column: DATA_VIRTUAL in PRType.
func (c DictColumn) Virtual() bool { return c.PRType&8192 != 0 }

// DictField is one SYS_FIELDS row: a column of an index.
type DictField struct {
	IndexID uint64 `json:"index_id"`
	// Pos is the field's position in the index; when the index has a column prefix or a DESC
	// field (MariaDB 10.8+), every field's POS is position<<16 | DESC<<15 | prefix length.
	Pos     uint32 `json:"pos"`
	ColName string `json:"col_name"`
	Deleted bool   `json:"deleted"`
}

// dictRoot reads the root page number at off of the dictionary header page.
func dictRoot(t *File, off int) (uint32, error) {
	hdr, err := t.dictPage("dictionary header", dictHdrPage)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint32(hdr[off:]), nil
}

// ReadDictColumns reads SYS_COLUMNS: TABLE_ID, POS, DB_TRX_ID, DB_ROLL_PTR, NAME, MTYPE,
// PRTYPE, LEN, PREC. Delete-marked rows are returned flagged.
func ReadDictColumns(t *File) ([]DictColumn, error) {
	root, err := dictRoot(t, dictHdrColumns)
	if err != nil {
		return nil, err
	}
	var out []DictColumn
	be := binary.BigEndian
	err = t.walkRedundantTree("SYS_COLUMNS", root, func(page uint32, f [][]byte, info byte) error {
		if len(f) != 9 || len(f[0]) != 8 || len(f[1]) != 4 || len(f[5]) != 4 || len(f[6]) != 4 || len(f[7]) != 4 || len(f[8]) != 4 {
			return fmt.Errorf("%s: page %d: SYS_COLUMNS record with %d fields", t.Path, page, len(f))
		}
		out = append(out, DictColumn{TableID: be.Uint64(f[0]), Pos: be.Uint32(f[1]), Name: string(f[4]),
			MType: be.Uint32(f[5]), PRType: be.Uint32(f[6]), Len: be.Uint32(f[7]), Prec: be.Uint32(f[8]),
			Deleted: info&recInfoDeleted != 0})
		return nil
	})
	return out, err
}

// ReadDictFields reads SYS_FIELDS: INDEX_ID, POS, DB_TRX_ID, DB_ROLL_PTR, COL_NAME.
// Delete-marked rows are returned flagged.
func ReadDictFields(t *File) ([]DictField, error) {
	root, err := dictRoot(t, dictHdrFields)
	if err != nil {
		return nil, err
	}
	var out []DictField
	be := binary.BigEndian
	err = t.walkRedundantTree("SYS_FIELDS", root, func(page uint32, f [][]byte, info byte) error {
		if len(f) != 5 || len(f[0]) != 8 || len(f[1]) != 4 {
			return fmt.Errorf("%s: page %d: SYS_FIELDS record with %d fields", t.Path, page, len(f))
		}
		out = append(out, DictField{IndexID: be.Uint64(f[0]), Pos: be.Uint32(f[1]), ColName: string(f[4]),
			Deleted: info&recInfoDeleted != 0})
		return nil
	})
	return out, err
}

// ReadPage reads page no of the file (its physical size), naming the file and offset on error.
func (t *File) ReadPage(no uint32) ([]byte, error) { return t.readPage(no) }
