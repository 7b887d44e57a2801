package logformat

import (
	"encoding/binary"
	"fmt"
)

// MLogType is a record type of the MLOG_* redo format of MySQL 5.7 and 8.0 (and MariaDB up to
// 10.4): mtr0types.h, mlog_id_t. Bit 7 of the type byte is MLOG_SINGLE_REC_FLAG.
type MLogType uint8

// MLOG_* types that MySQL 8.0.30+ writes (the *_8027 variants are gone from its logs: it
// refuses to recover logs older than 8.0.30 that are not logically empty).
const (
	MLog1Byte                MLogType = 1
	MLog2Bytes               MLogType = 2
	MLog4Bytes               MLogType = 4
	MLog8Bytes               MLogType = 8
	MLogRecSecDeleteMark     MLogType = 11
	MLogPageCreate           MLogType = 19
	MLogUndoInsert           MLogType = 20
	MLogUndoEraseEnd         MLogType = 21
	MLogUndoInit             MLogType = 22
	MLogUndoHdrReuse         MLogType = 24
	MLogUndoHdrCreate        MLogType = 25
	MLogRecMinMark           MLogType = 26
	MLogIbufBitmapInit       MLogType = 27
	MLogInitFilePage         MLogType = 29
	MLogWriteString          MLogType = 30
	MLogMultiRecEnd          MLogType = 31
	MLogDummyRecord          MLogType = 32
	MLogFileCreate           MLogType = 33
	MLogFileRename           MLogType = 34
	MLogFileDelete           MLogType = 35
	MLogCompRecMinMark       MLogType = 36
	MLogCompPageCreate       MLogType = 37
	MLogZipWriteNodePtr      MLogType = 48
	MLogZipWriteBlobPtr      MLogType = 49
	MLogZipWriteHeader       MLogType = 50
	MLogZipPageCompress      MLogType = 51
	MLogPageCreateRtree      MLogType = 57
	MLogCompPageCreateRtree  MLogType = 58
	MLogInitFilePage2        MLogType = 59
	MLogIndexLoad            MLogType = 61
	MLogTableDynamicMeta     MLogType = 62
	MLogPageCreateSDI        MLogType = 63
	MLogCompPageCreateSDI    MLogType = 64
	MLogFileExtend           MLogType = 65
	MLogRecInsert            MLogType = 67
	MLogRecClustDeleteMark   MLogType = 68
	MLogRecDelete            MLogType = 69
	MLogRecUpdateInPlace     MLogType = 70
	MLogListEndCopyCreated   MLogType = 71
	MLogPageReorganize       MLogType = 72
	MLogZipPageReorganize    MLogType = 73
	MLogZipPageCompressNoDat MLogType = 74
	MLogListEndDelete        MLogType = 75
	MLogListStartDelete      MLogType = 76
	mlogSingleRecFlag                 = 0x80
)

var mlogNames = map[MLogType]string{
	MLog1Byte: "MLOG_1BYTE", MLog2Bytes: "MLOG_2BYTES", MLog4Bytes: "MLOG_4BYTES", MLog8Bytes: "MLOG_8BYTES",
	MLogRecSecDeleteMark: "MLOG_REC_SEC_DELETE_MARK", MLogPageCreate: "MLOG_PAGE_CREATE",
	MLogUndoInsert: "MLOG_UNDO_INSERT", MLogUndoEraseEnd: "MLOG_UNDO_ERASE_END", MLogUndoInit: "MLOG_UNDO_INIT",
	MLogUndoHdrReuse: "MLOG_UNDO_HDR_REUSE", MLogUndoHdrCreate: "MLOG_UNDO_HDR_CREATE",
	MLogRecMinMark: "MLOG_REC_MIN_MARK", MLogIbufBitmapInit: "MLOG_IBUF_BITMAP_INIT",
	MLogInitFilePage: "MLOG_INIT_FILE_PAGE", MLogWriteString: "MLOG_WRITE_STRING",
	MLogMultiRecEnd: "MLOG_MULTI_REC_END", MLogDummyRecord: "MLOG_DUMMY_RECORD",
	MLogFileCreate: "MLOG_FILE_CREATE", MLogFileRename: "MLOG_FILE_RENAME", MLogFileDelete: "MLOG_FILE_DELETE",
	MLogCompRecMinMark: "MLOG_COMP_REC_MIN_MARK", MLogCompPageCreate: "MLOG_COMP_PAGE_CREATE",
	MLogZipWriteNodePtr: "MLOG_ZIP_WRITE_NODE_PTR", MLogZipWriteBlobPtr: "MLOG_ZIP_WRITE_BLOB_PTR",
	MLogZipWriteHeader: "MLOG_ZIP_WRITE_HEADER", MLogZipPageCompress: "MLOG_ZIP_PAGE_COMPRESS",
	MLogPageCreateRtree: "MLOG_PAGE_CREATE_RTREE", MLogCompPageCreateRtree: "MLOG_COMP_PAGE_CREATE_RTREE",
	MLogInitFilePage2: "MLOG_INIT_FILE_PAGE2", MLogIndexLoad: "MLOG_INDEX_LOAD",
	MLogTableDynamicMeta: "MLOG_TABLE_DYNAMIC_META", MLogPageCreateSDI: "MLOG_PAGE_CREATE_SDI",
	MLogCompPageCreateSDI: "MLOG_COMP_PAGE_CREATE_SDI", MLogFileExtend: "MLOG_FILE_EXTEND",
	MLogRecInsert: "MLOG_REC_INSERT", MLogRecClustDeleteMark: "MLOG_REC_CLUST_DELETE_MARK",
	MLogRecDelete: "MLOG_REC_DELETE", MLogRecUpdateInPlace: "MLOG_REC_UPDATE_IN_PLACE",
	MLogListEndCopyCreated: "MLOG_LIST_END_COPY_CREATED", MLogPageReorganize: "MLOG_PAGE_REORGANIZE",
	MLogZipPageReorganize: "MLOG_ZIP_PAGE_REORGANIZE", MLogZipPageCompressNoDat: "MLOG_ZIP_PAGE_COMPRESS_NO_DATA",
	MLogListEndDelete: "MLOG_LIST_END_DELETE", MLogListStartDelete: "MLOG_LIST_START_DELETE",
}

// MLogTypes lists the MLOG types this package decodes, in code order.
var MLogTypes = func() []MLogType {
	var out []MLogType
	for t := MLogType(0); t < 128; t++ {
		if _, ok := mlogNames[t]; ok {
			out = append(out, t)
		}
	}
	return out
}()

// IsFile reports whether t names a file (MLOG_FILE_*).
func (t MLogType) IsFile() bool {
	return t == MLogFileCreate || t == MLogFileRename || t == MLogFileDelete || t == MLogFileExtend
}

// HasPage reports whether records of type t name a page.
func (t MLogType) HasPage() bool {
	return !t.IsFile() && t != MLogMultiRecEnd && t != MLogDummyRecord && t != MLogTableDynamicMeta && t != MLogIndexLoad
}

func (t MLogType) String() string {
	if s, ok := mlogNames[t]; ok {
		return s
	}
	return fmt.Sprintf("MLOG_UNKNOWN(%d)", uint8(t))
}

// MLogRecord is one decoded MLOG_* record.
type MLogRecord struct {
	Type    MLogType
	Single  bool   // MLOG_SINGLE_REC_FLAG: this record is a whole mini-transaction
	Space   uint32 // tablespace id (page and file records)
	Page    uint32 // page number
	LSN     uint64 // LSN of the record's first byte
	Len     int    // bytes of the record (block headers and trailers not counted)
	Name    string // MLOG_FILE_*: the file name (MLOG_FILE_RENAME: the old one)
	NewName string // MLOG_FILE_RENAME: the new name
}

// mlogReader walks a record's bytes; the first read past the end sets short, a value that
// the format forbids sets bad.
type mlogReader struct {
	p     []byte
	i     int
	short bool
	bad   string
}

func (r *mlogReader) need(n int) bool {
	if r.short || r.bad != "" || n < 0 || r.i+n > len(r.p) {
		r.short = r.short || r.bad == ""
		return false
	}
	return true
}

func (r *mlogReader) skip(n int) {
	if r.need(n) {
		r.i += n
	}
}

func (r *mlogReader) u8() uint8 {
	if !r.need(1) {
		return 0
	}
	r.i++
	return r.p[r.i-1]
}

func (r *mlogReader) u16() uint16 {
	if !r.need(2) {
		return 0
	}
	r.i += 2
	return binary.BigEndian.Uint16(r.p[r.i-2:])
}

func (r *mlogReader) u32() uint32 {
	if !r.need(4) {
		return 0
	}
	r.i += 4
	return binary.BigEndian.Uint32(r.p[r.i-4:])
}

// comp32 is mach_parse_compressed: 1 to 5 bytes, with short forms for values near 2^32.
func (r *mlogReader) comp32() uint32 {
	if !r.need(1) {
		return 0
	}
	b := r.p[r.i]
	var n int
	var v uint32
	switch {
	case b < 0x80:
		n, v = 1, uint32(b)
	case b < 0xc0:
		n = 2
		if r.need(2) {
			v = uint32(binary.BigEndian.Uint16(r.p[r.i:])) & 0x3fff
		}
	case b < 0xe0:
		n = 3
		if r.need(3) {
			v = (uint32(b)<<16 | uint32(r.p[r.i+1])<<8 | uint32(r.p[r.i+2])) & 0x1fffff
		}
	case b < 0xf0:
		n = 4
		if r.need(4) {
			v = binary.BigEndian.Uint32(r.p[r.i:]) & 0xfffffff
		}
	case b < 0xf8:
		n = 5
		if r.need(5) {
			v = binary.BigEndian.Uint32(r.p[r.i+1:])
		}
	case b < 0xfc:
		n = 2
		if r.need(2) {
			v = uint32(binary.BigEndian.Uint16(r.p[r.i:]))&0x3ff | 0xfffffc00
		}
	case b < 0xfe:
		n = 3
		if r.need(3) {
			v = (uint32(b)<<16|uint32(r.p[r.i+1])<<8|uint32(r.p[r.i+2]))&0x1ffff | 0xfffe0000
		}
	default:
		n = 4
		if r.need(4) {
			v = (uint32(r.p[r.i+1])<<16 | uint32(r.p[r.i+2])<<8 | uint32(r.p[r.i+3])) | 0xff000000
		}
	}
	r.skip(n)
	return v
}

// comp64 is mach_u64_parse_compressed: the high half compressed, the low half 4 bytes.
func (r *mlogReader) comp64() uint64 {
	hi := r.comp32()
	return uint64(hi)<<32 | uint64(r.u32())
}

// much64 is mach_parse_u64_much_compressed: 0xff, then two compressed halves, or one
// compressed 32-bit value.
func (r *mlogReader) much64() uint64 {
	if !r.need(1) {
		return 0
	}
	if r.p[r.i] != 0xff {
		return uint64(r.comp32())
	}
	r.i++
	hi := r.comp32()
	return uint64(hi)<<32 | uint64(r.comp32())
}

// name reads a 2-byte length and that many bytes of a file name (NUL-terminated in the log).
func (r *mlogReader) name() string {
	n := int(r.u16())
	if !r.need(n) {
		return ""
	}
	s := r.p[r.i : r.i+n]
	r.i += n
	if len(s) > 0 && s[len(s)-1] == 0 {
		s = s[:len(s)-1]
	}
	return string(s)
}
