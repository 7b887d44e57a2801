package discovery

import (
	"encoding/binary"
	"fmt"
)

// The data dictionary header (dict0boot.h) is on page 7 of the system tablespace, after the
// FIL header; SYS_TABLES' clustered index root page number is at +32.
const (
	dictHdrPage    = 7
	dictHdrTables  = FilPageData + 32
	dictHdrIndexes = FilPageData + 44
	maxTreeDepth   = 16
)

// DictTable is one SYS_TABLES row (ROW_FORMAT=REDUNDANT in the system tablespace).
type DictTable struct {
	Name  string `json:"name"` // "db/t" in the server's file-name encoding
	ID    uint64 `json:"table_id"`
	NCols uint32 `json:"n_cols"` // without the DICT_N_COLS_COMPACT bit
	// Compact is that bit: ROW_FORMAT COMPACT, DYNAMIC or COMPRESSED (else REDUNDANT).
	Compact bool   `json:"-"`
	Type    uint32 `json:"type"` // table flags (DICT_TF_*)
	SpaceID uint32 `json:"space_id"`
	Deleted bool   `json:"deleted"` // delete-marked: history, not a live table
	Page    uint32 `json:"page"`    // the leaf page holding the record
	// TrxID is DB_TRX_ID: the transaction that wrote the row (or delete-marked it) last.
	TrxID uint64 `json:"-"`
}

// DataDir reports the DATA DIRECTORY flag (DICT_TF_MASK_DATA_DIR, bit 6 of SYS_TABLES.TYPE).
func (t DictTable) DataDir() bool { return t.Type&(1<<6) != 0 }

// redundantRec gives the fields of a ROW_FORMAT=REDUNDANT record at origin on page p: the
// field end offsets are stored before the 6 extra bytes, last field first, in 1 or 2 bytes.
func redundantRec(p []byte, origin int) (fields [][]byte, info byte, next int, err error) {
	if origin < 6+FilPageData || origin >= len(p)-8 {
		return nil, 0, 0, fmt.Errorf("record origin %d out of range", origin)
	}
	info = p[origin-6] & 0xf0
	n := int(binary.BigEndian.Uint16(p[origin-4:])&0x7fe) >> 1
	short := p[origin-3]&1 != 0
	next = int(binary.BigEndian.Uint16(p[origin-2:]))
	w := 2
	if short {
		w = 1
	}
	if n == 0 || origin-6-n*w < FilPageData {
		return nil, 0, 0, fmt.Errorf("record at %d: %d fields do not fit", origin, n)
	}
	start := 0
	for i := 0; i < n; i++ {
		at := origin - 6 - (i+1)*w
		var end int
		null := false
		if short {
			end, null = int(p[at]&0x7f), p[at]&0x80 != 0
		} else {
			v := binary.BigEndian.Uint16(p[at:])
			end, null = int(v&0x3fff), v&0x8000 != 0
		}
		if end < start || origin+end > len(p)-8 {
			return nil, 0, 0, fmt.Errorf("record at %d: field %d ends at %d", origin, i, end)
		}
		if null {
			fields = append(fields, nil)
		} else {
			fields = append(fields, p[origin+start:origin+end])
		}
		start = end
	}
	return fields, info, next, nil
}

// readPage reads one page of the system tablespace file.
func (t *File) readPage(no uint32) ([]byte, error) { return t.ReadPageInto(nil, no) }

// ReadPageInto reads page no into buf when it has room for a page (else into a new slice) and
// returns the page: a reader of many pages reuses one buffer.
func (t *File) ReadPageInto(buf []byte, no uint32) ([]byte, error) {
	p := buf
	if cap(p) < t.Physical {
		p = make([]byte, t.Physical)
	}
	p = p[:t.Physical]
	if _, err := t.r.ReadAt(p, int64(no)*int64(t.Physical)); err != nil {
		return nil, fmt.Errorf("%s: offset %d: %w", t.Path, int64(no)*int64(t.Physical), err)
	}
	return p, nil
}

// dictPage reads page no of the dictionary table what (SYS_TABLES, ...) from the system
// tablespace. A file read from disk has each page checked as the server checks a page it reads
// (buf_page_is_corrupted): a page that fails is an error naming it, never bytes to decode. (The
// recovery's in-memory view of the system tablespace, NewFile over its page images, holds pages
// it has checked or rebuilt itself.)
func (t *File) dictPage(what string, no uint32) ([]byte, error) {
	p, err := t.readPage(no)
	if err != nil || !t.verified {
		return p, err
	}
	if v := CheckPage(p, t.FSP.Flags, no, t.FSP.SpaceID); v.Corrupt {
		return nil, &DictPageError{Path: t.Path, Table: what, Page: no, Offset: int64(no) * int64(t.Physical), Reason: v.Reason}
	}
	return p, nil
}

// DictPageError is a page of the data dictionary that fails its checksum: the server refuses
// to use it ("Database page corruption" at start-up), and so does innoscope.
type DictPageError struct {
	Path   string // the system tablespace file
	Table  string // SYS_TABLES, SYS_COLUMNS, SYS_INDEXES, SYS_FIELDS or "dictionary header"
	Page   uint32
	Offset int64
	Reason string
}

func (e *DictPageError) Error() string {
	return fmt.Sprintf("%s: offset %d: page %d (%s) fails its checksum (%s): the data dictionary cannot be trusted, and the server refuses the page too; restore the system tablespace from a backup (`innoscope pages %s --verify` lists its corrupt pages)",
		e.Path, e.Offset, e.Page, e.Table, e.Reason, e.Path)
}

// walkRedundantTree calls fn for every record of the leaf level of the B-tree of the dictionary
// table what rooted at root, in key order: it descends along the first node pointer of each
// level, then follows the leaves' FIL_PAGE_NEXT links.
func (t *File) walkRedundantTree(what string, root uint32, fn func(page uint32, fields [][]byte, info byte) error) error {
	no := root
	for depth := 0; ; depth++ {
		p, err := t.dictPage(what, no)
		if err != nil {
			return err
		}
		ip, err := ParseIndexPage(p)
		if err != nil || ip.Compact {
			return fmt.Errorf("%s: page %d is not a ROW_FORMAT=REDUNDANT index page", t.Path, no)
		}
		if ip.Level == 0 {
			break
		}
		if depth >= maxTreeDepth || !ip.HasUserRecs {
			return fmt.Errorf("%s: page %d: no way down the B-tree", t.Path, no)
		}
		first := int(binary.BigEndian.Uint16(p[infimumOld-2:]))
		f, _, _, err := redundantRec(p, first)
		if err != nil || len(f[len(f)-1]) != 4 {
			return fmt.Errorf("%s: page %d: bad node pointer: %v", t.Path, no, err)
		}
		no = binary.BigEndian.Uint32(f[len(f)-1])
	}
	seen := map[uint32]bool{}
	for no != filNull {
		if seen[no] {
			return fmt.Errorf("%s: page %d: the leaf chain loops", t.Path, no)
		}
		seen[no] = true
		p, err := t.dictPage(what, no)
		if err != nil {
			return err
		}
		rec := int(binary.BigEndian.Uint16(p[infimumOld-2:]))
		for i := 0; rec != supremumOld; i++ {
			if i > len(p) {
				return fmt.Errorf("%s: page %d: the record list loops", t.Path, no)
			}
			f, info, next, err := redundantRec(p, rec)
			if err != nil {
				return fmt.Errorf("%s: page %d: %w", t.Path, no, err)
			}
			if err := fn(no, f, info); err != nil {
				return err
			}
			rec = next
		}
		no = binary.BigEndian.Uint32(p[FilPageNext:])
	}
	return nil
}

// ReadDictTables reads SYS_TABLES from the system tablespace file t as it is on disk (changes
// still in the redo log are not in it). Delete-marked rows are returned flagged.
func ReadDictTables(t *File) ([]DictTable, error) {
	hdr, err := t.dictPage("dictionary header", dictHdrPage)
	if err != nil {
		return nil, err
	}
	root := binary.BigEndian.Uint32(hdr[dictHdrTables:])
	var out []DictTable
	err = t.walkRedundantTree("SYS_TABLES", root, func(page uint32, f [][]byte, info byte) error {
		// NAME, DB_TRX_ID, DB_ROLL_PTR, ID, N_COLS, TYPE, MIX_ID, MIX_LEN, CLUSTER_NAME, SPACE
		if len(f) != 10 || len(f[3]) != 8 || len(f[4]) != 4 || len(f[5]) != 4 || len(f[9]) != 4 {
			return fmt.Errorf("%s: page %d: SYS_TABLES record with %d fields", t.Path, page, len(f))
		}
		be := binary.BigEndian
		out = append(out, DictTable{Name: string(f[0]), ID: be.Uint64(f[3]), NCols: be.Uint32(f[4]) &^ (1 << 31), Compact: be.Uint32(f[4])&(1<<31) != 0,
			Type: be.Uint32(f[5]), SpaceID: be.Uint32(f[9]), Deleted: info&recInfoDeleted != 0, Page: page, TrxID: uint48(f[1])})
		return nil
	})
	return out, err
}

// uint48 reads a 6-byte big-endian field (DB_TRX_ID); 0 when it is not 6 bytes.
func uint48(b []byte) uint64 {
	if len(b) != 6 {
		return 0
	}
	return uint64(binary.BigEndian.Uint16(b))<<32 | uint64(binary.BigEndian.Uint32(b[2:]))
}

// DictIndex is one SYS_INDEXES row.
type DictIndex struct {
	TableID uint64 `json:"table_id"`
	ID      uint64 `json:"index_id"`
	Name    string `json:"name"`
	NFields uint32 `json:"n_fields"`
	Type    uint32 `json:"type"` // DICT_CLUSTERED 1, DICT_UNIQUE 2, ...
	SpaceID uint32 `json:"space_id"`
	PageNo  uint32 `json:"root_page"`
	Deleted bool   `json:"deleted"`
	// TrxID is DB_TRX_ID: the transaction that wrote the row (or delete-marked it) last.
	TrxID uint64 `json:"-"`
}

// Index ids that are no table's: the dictionary's own indexes (SYS_TABLES, SYS_COLUMNS,
// SYS_INDEXES, SYS_FIELDS) are below DICT_HDR_FIRST_ID, the change buffer's are
// DICT_IBUF_ID_MIN plus a space id.
const (
	dictFirstID = 10
	ibufFirstID = 0xFFFFFFFF00000000
)

// TableIndexID reports whether id can be the index id of a table's index (not the
// dictionary's own nor the change buffer's).
func TableIndexID(id uint64) bool { return id >= dictFirstID && id < ibufFirstID }

// ReadDictIndexes reads SYS_INDEXES: TABLE_ID, ID, DB_TRX_ID, DB_ROLL_PTR, NAME, N_FIELDS,
// TYPE, SPACE, PAGE_NO and (since MySQL 5.7 / MariaDB 10.2) MERGE_THRESHOLD.
func ReadDictIndexes(t *File) ([]DictIndex, error) {
	hdr, err := t.dictPage("dictionary header", dictHdrPage)
	if err != nil {
		return nil, err
	}
	var out []DictIndex
	err = t.walkRedundantTree("SYS_INDEXES", binary.BigEndian.Uint32(hdr[dictHdrIndexes:]), func(page uint32, f [][]byte, info byte) error {
		if len(f) < 9 || len(f[0]) != 8 || len(f[1]) != 8 || len(f[5]) != 4 || len(f[6]) != 4 || len(f[7]) != 4 || len(f[8]) != 4 {
			return fmt.Errorf("%s: page %d: SYS_INDEXES record with %d fields", t.Path, page, len(f))
		}
		be := binary.BigEndian
		out = append(out, DictIndex{TableID: be.Uint64(f[0]), ID: be.Uint64(f[1]), Name: string(f[4]),
			NFields: be.Uint32(f[5]), Type: be.Uint32(f[6]), SpaceID: be.Uint32(f[7]), PageNo: be.Uint32(f[8]),
			Deleted: info&recInfoDeleted != 0, TrxID: uint48(f[2])})
		return nil
	})
	return out, err
}
