package logformat

import (
	"bytes"
	"fmt"
	"strings"
)

// Type is a record type: bits 6..4 of the first byte for page records (mtr0types.h mrec_type_t),
// bits 7..4 for file records (mfile_type_t), plus Padding for the server's filler records.
type Type uint8

// Record types.
const (
	FreePage       Type = 0x00
	InitPage       Type = 0x10
	Extended       Type = 0x20
	Write          Type = 0x30
	Memset         Type = 0x40
	Memmove        Type = 0x50
	Reserved       Type = 0x60
	Option         Type = 0x70
	FileCreate     Type = 0x80
	FileDelete     Type = 0x90
	FileRename     Type = 0xa0
	FileModify     Type = 0xb0
	FileCheckpoint Type = 0xf0
	// Padding is a dummy FILE_CHECKPOINT-shaped record the server writes to fill space
	// (0xf1 0x00, or 0xf2 0x00 0x00); it carries nothing.
	Padding Type = 0xff
)

var typeNames = map[Type]string{
	FreePage: "FREE_PAGE", InitPage: "INIT_PAGE", Extended: "EXTENDED", Write: "WRITE",
	Memset: "MEMSET", Memmove: "MEMMOVE", Reserved: "RESERVED", Option: "OPTION",
	FileCreate: "FILE_CREATE", FileDelete: "FILE_DELETE", FileRename: "FILE_RENAME",
	FileModify: "FILE_MODIFY", FileCheckpoint: "FILE_CHECKPOINT", Padding: "PADDING",
}

// Types lists every record type in code order.
var Types = []Type{FreePage, InitPage, Extended, Write, Memset, Memmove, Reserved, Option,
	FileCreate, FileDelete, FileRename, FileModify, FileCheckpoint, Padding}

func (t Type) String() string {
	if s, ok := typeNames[t]; ok {
		return s
	}
	return fmt.Sprintf("UNKNOWN(0x%02x)", uint8(t))
}

// ParseType maps a type name (case-insensitive) back to its Type.
func ParseType(s string) (Type, bool) {
	for t, n := range typeNames {
		if strings.EqualFold(n, s) {
			return t, true
		}
	}
	return 0, false
}

// IsFile reports whether t is a file-level record (FILE_*).
func (t Type) IsFile() bool { return t >= FileCreate && t != Padding }

// ExtSubtype is the subtype byte of an EXTENDED record (mtr0types.h mrec_ext_t).
type ExtSubtype uint8

// EXTENDED subtypes.
const (
	InitRowFormatRedundant ExtSubtype = iota
	InitRowFormatDynamic
	UndoInit
	UndoAppend
	InsertHeapRedundant
	InsertReuseRedundant
	InsertHeapDynamic
	InsertReuseDynamic
	DeleteRowFormatRedundant
	DeleteRowFormatDynamic
	TrimPages
)

var extNames = []string{"INIT_ROW_FORMAT_REDUNDANT", "INIT_ROW_FORMAT_DYNAMIC", "UNDO_INIT",
	"UNDO_APPEND", "INSERT_HEAP_REDUNDANT", "INSERT_REUSE_REDUNDANT", "INSERT_HEAP_DYNAMIC",
	"INSERT_REUSE_DYNAMIC", "DELETE_ROW_FORMAT_REDUNDANT", "DELETE_ROW_FORMAT_DYNAMIC", "TRIM_PAGES"}

func (s ExtSubtype) String() string {
	if int(s) < len(extNames) {
		return extNames[s]
	}
	return fmt.Sprintf("EXT_UNKNOWN(%d)", uint8(s))
}

// Ext holds the decoded fields of an EXTENDED record (log0recv.cc, log_phys_t::apply).
// INSERT_*: the predecessor record's offset, the reuse shift (INSERT_REUSE_DYNAMIC only), the
// header length, and the header and data byte counts copied from the predecessor (the rest of the
// record is in Data). DELETE_ROW_FORMAT_REDUNDANT: PrevRec. DELETE_ROW_FORMAT_DYNAMIC: PrevRec,
// and the deleted record's header size in HdrC and data size in DataC.
type Ext struct {
	PrevRec uint32
	Shift   uint32
	EncHdr  uint32 // encoded extra-header length (DYNAMIC) or info/status header (REDUNDANT)
	HdrC    uint32
	DataC   uint32
}

// Record is one decoded log record. Byte slices alias the scanner's buffer: copy them to keep
// them beyond the next call of Scanner.Next.
type Record struct {
	Type     Type
	SamePage bool   // the same_page flag was set (space and page omitted)
	Space    uint32 // tablespace id (page and file records)
	Page     uint32 // page number
	Pos      int    // offset of the record's first byte within its mini-transaction
	Len      int    // total length in bytes, type byte included

	// WRITE, MEMSET, MEMMOVE: absolute target offset on the page and target length.
	Offset uint32
	Length uint32
	Source uint32 // MEMMOVE: absolute source offset
	// Data: WRITE bytes, MEMSET fill pattern, EXTENDED bytes after the subtype (UNDO_APPEND
	// undo record, INSERT_* record bytes), OPTION/RESERVED bytes after the subtype.
	Data []byte

	Sub uint8 // EXTENDED, OPTION, RESERVED: subtype byte
	Ext Ext   // EXTENDED INSERT_* and DELETE_*: decoded fields

	CheckpointLSN uint64 // FILE_CHECKPOINT

	// Malformed is set when the payload does not decode as its type requires but the server's
	// parser would still accept the record (it only checks such payloads when applying them).
	Malformed string
}

// Name is a file record's file name (for FILE_RENAME the old one), "" for other records.
func (r *Record) Name() string {
	if !r.Type.IsFile() || r.Type == FileCheckpoint {
		return ""
	}
	n, _, _ := bytes.Cut(r.Data, []byte{0})
	return string(n)
}

// NewName is FILE_RENAME's new file name, "" for other records.
func (r *Record) NewName() string {
	if r.Type != FileRename {
		return ""
	}
	_, n, _ := bytes.Cut(r.Data, []byte{0})
	return string(n)
}

// ExtSub returns the EXTENDED subtype.
func (r *Record) ExtSub() ExtSubtype { return ExtSubtype(r.Sub) }

// Summary is a short human description of the payload.
func (r *Record) Summary() string {
	var s string
	switch r.Type {
	case Write:
		s = fmt.Sprintf("offset %d, %d bytes", r.Offset, len(r.Data))
	case Memset:
		s = fmt.Sprintf("offset %d, length %d, fill % x", r.Offset, r.Length, r.Data)
	case Memmove:
		s = fmt.Sprintf("offset %d, length %d, from %d", r.Offset, r.Length, r.Source)
	case Extended:
		sub := r.ExtSub()
		s = sub.String()
		switch sub {
		case UndoAppend:
			s += fmt.Sprintf(", %d bytes", len(r.Data))
		case InsertHeapRedundant, InsertReuseRedundant, InsertHeapDynamic, InsertReuseDynamic:
			s += fmt.Sprintf(", prev %d, hdr %d+%d, data %d+%d", r.Ext.PrevRec, r.Ext.EncHdr,
				r.Ext.HdrC, r.Ext.DataC, len(r.Data))
			if sub == InsertReuseDynamic {
				s += fmt.Sprintf(", shift %d", r.Ext.Shift)
			}
		case DeleteRowFormatRedundant:
			s += fmt.Sprintf(", prev %d", r.Ext.PrevRec)
		case DeleteRowFormatDynamic:
			s += fmt.Sprintf(", prev %d, hdr %d, data %d", r.Ext.PrevRec, r.Ext.HdrC, r.Ext.DataC)
		case TrimPages:
			s += fmt.Sprintf(", new size %d pages", r.Page)
		}
	case Option, Reserved:
		s = fmt.Sprintf("subtype %d, %d bytes", r.Sub, len(r.Data))
	case FileCreate, FileDelete, FileModify:
		s = r.Name()
	case FileRename:
		s = r.Name() + " -> " + r.NewName()
	case FileCheckpoint:
		s = fmt.Sprintf("checkpoint LSN %d", r.CheckpointLSN)
	}
	if r.Malformed != "" {
		s += " [malformed: " + r.Malformed + "]"
	}
	return s
}

// decodeExtended fills the EXTENDED fields from p, the bytes after the page identifier.
func (r *Record) decodeExtended(p []byte) {
	r.Sub = p[0]
	p = p[1:]
	bad := func(why string) { r.Malformed = why }
	// next decodes one varint field, at most max bytes, that must leave at least keep bytes.
	next := func(max, keep int) (uint32, bool) {
		v, n := uint32(0), 1
		if len(p) != 0 && p[0] < 0x80 {
			v = uint32(p[0]) // the common case, without a call
		} else if v, n = Varint(p); n == 0 || n > max {
			return 0, false
		}
		if len(p)-n < keep {
			return 0, false
		}
		p = p[n:]
		return v, true
	}
	switch sub := r.ExtSub(); sub {
	case InitRowFormatRedundant, InitRowFormatDynamic, UndoInit, TrimPages:
		if len(p) != 0 {
			bad(fmt.Sprintf("%s carries %d unexpected bytes", sub, len(p)))
		}
	case UndoAppend:
		if len(p) < 3 {
			bad("UNDO_APPEND shorter than 3 bytes")
		}
		r.Data = p
	case InsertHeapRedundant, InsertReuseRedundant, InsertHeapDynamic, InsertReuseDynamic:
		var ok bool
		in := &r.Ext
		if in.PrevRec, ok = next(3, 1); !ok {
			bad("bad predecessor offset")
			return
		}
		if sub == InsertReuseDynamic {
			if in.Shift, ok = next(3, 1); !ok {
				bad("bad shift")
				return
			}
		}
		hdrMax := 2
		if sub&2 != 0 {
			hdrMax = 3 // the encoded extra-header length of COMPACT/DYNAMIC records
		}
		if in.EncHdr, ok = next(hdrMax, 1); !ok {
			bad("bad header length")
			return
		}
		if in.HdrC, ok = next(2, 1); !ok {
			bad("bad copied header length")
			return
		}
		dataMax := 2
		if sub&2 != 0 {
			dataMax = 3
		}
		if in.DataC, ok = next(dataMax, 0); !ok {
			bad("bad copied data length")
			return
		}
		r.Data = p
	case DeleteRowFormatRedundant:
		v, n := Varint(p)
		if n == 0 || n != len(p) {
			bad("DELETE_ROW_FORMAT_REDUNDANT wants exactly one offset")
			return
		}
		r.Ext.PrevRec = v
	case DeleteRowFormatDynamic:
		var ok bool
		if r.Ext.PrevRec, ok = next(3, 1); !ok {
			bad("bad predecessor offset")
			return
		}
		if r.Ext.HdrC, ok = next(2, 1); !ok {
			bad("bad header size")
			return
		}
		v, n := Varint(p)
		if n == 0 || n > 3 || n != len(p) {
			bad("bad data size")
			return
		}
		r.Ext.DataC = v
	default:
		bad(fmt.Sprintf("unknown EXTENDED subtype %d", r.Sub))
	}
}
