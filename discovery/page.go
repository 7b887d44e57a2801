package discovery

import (
	"encoding/binary"
	"fmt"
)

// FIL header and trailer offsets (fil0fil.h).
const (
	FilPageSpaceOrChecksum = 0
	FilPageOffset          = 4
	FilPagePrev            = 8
	FilPageNext            = 12
	FilPageLSN             = 16
	FilPageType            = 24
	FilPageFileFlushLSN    = 26
	FilPageSpaceID         = 34
	FilPageData            = 38 // first byte after the FIL header
	FilPageEndLSNOldChksum = 8  // trailer length: old checksum (4) + low 32 bits of the LSN (4)
)

// PageType is FIL_PAGE_TYPE.
type PageType uint16

// Page types of MariaDB and MySQL (fil0fil.h of each).
const (
	PageAllocated          PageType = 0
	PageUndoLog            PageType = 2
	PageInode              PageType = 3
	PageIbufFreeList       PageType = 4
	PageIbufBitmap         PageType = 5
	PageSys                PageType = 6
	PageTrxSys             PageType = 7
	PageFspHdr             PageType = 8
	PageXdes               PageType = 9
	PageBlob               PageType = 10
	PageZBlob              PageType = 11
	PageZBlob2             PageType = 12
	PageUnknown            PageType = 13
	PageCompressed         PageType = 14 // MySQL transparent page compression
	PageEncrypted          PageType = 15 // MySQL
	PageCompressedEncr     PageType = 16 // MySQL
	PageEncryptedRtree     PageType = 17 // MySQL
	PageInstant            PageType = 18 // MariaDB: clustered index root after instant ALTER
	PageSDIBlob            PageType = 18 // MySQL 8.0 (same value as MariaDB's INSTANT)
	PageSDIZBlob           PageType = 19 // MySQL 8.0
	PageLegacyDblwr        PageType = 20 // MySQL 8.0.20+: the system tablespace's old doublewrite pages
	PageRsegArray          PageType = 21 // MySQL 8.0
	PageLobIndex           PageType = 22 // MySQL 8.0 (fil0fil.h: FIL_PAGE_TYPE_LOB_INDEX)
	PageLobData            PageType = 23
	PageLobFirst           PageType = 24
	PageZLobFirst          PageType = 25
	PageZLobData           PageType = 26
	PageZLobIndex          PageType = 27
	PageZLobFrag           PageType = 28
	PageZLobFragEntry      PageType = 29
	PageSDI                PageType = 17853 // MySQL 8.0
	PageRtree              PageType = 17854
	PageIndex              PageType = 17855
	PagePageCompressed     PageType = 34354 // MariaDB page_compressed
	PagePageCompressedEncr PageType = 37401 // MariaDB page_compressed and encrypted
)

// Vendor selects the names of page types whose values MariaDB and MySQL use differently.
type Vendor int

// Vendors.
const (
	VendorUnknown Vendor = iota
	VendorMariaDB
	VendorMySQL
)

var commonTypeNames = map[PageType]string{
	PageAllocated: "ALLOCATED", PageUndoLog: "UNDO_LOG", PageInode: "INODE",
	PageIbufFreeList: "IBUF_FREE_LIST", PageIbufBitmap: "IBUF_BITMAP", PageSys: "SYS",
	PageTrxSys: "TRX_SYS", PageFspHdr: "FSP_HDR", PageXdes: "XDES", PageBlob: "BLOB",
	PageZBlob: "ZBLOB", PageZBlob2: "ZBLOB2", PageUnknown: "UNKNOWN", PageSDI: "SDI",
	PageRtree: "RTREE", PageIndex: "INDEX", PagePageCompressed: "PAGE_COMPRESSED",
	PagePageCompressedEncr: "PAGE_COMPRESSED_ENCRYPTED",
}

var mysqlTypeNames = map[PageType]string{
	PageCompressed: "COMPRESSED", PageEncrypted: "ENCRYPTED", PageCompressedEncr: "COMPRESSED_AND_ENCRYPTED",
	PageEncryptedRtree: "ENCRYPTED_RTREE", PageSDIBlob: "SDI_BLOB", PageSDIZBlob: "SDI_ZBLOB",
	PageLegacyDblwr: "LEGACY_DBLWR", PageRsegArray: "RSEG_ARRAY", PageLobIndex: "LOB_INDEX", PageLobData: "LOB_DATA", PageLobFirst: "LOB_FIRST",
	PageZLobFirst: "ZLOB_FIRST", PageZLobData: "ZLOB_DATA", PageZLobIndex: "ZLOB_INDEX",
	PageZLobFrag: "ZLOB_FRAG", PageZLobFragEntry: "ZLOB_FRAG_ENTRY",
}

// Name is the page type's name for the vendor that wrote the file. In MariaDB full_crc32
// files a set bit 15 marks a page_compressed page whose other bits give its stored size.
func (t PageType) Name(v Vendor, fullCRC32 bool) string {
	if fullCRC32 && t&(1<<15) != 0 {
		return "PAGE_COMPRESSED"
	}
	if n, ok := commonTypeNames[t]; ok {
		return n
	}
	// 18 is MariaDB's INSTANT and MySQL 8.0's SDI_BLOB; files without MySQL flags are MariaDB's.
	if t == PageInstant && v != VendorMySQL {
		return "INSTANT"
	}
	if v != VendorMariaDB {
		if n, ok := mysqlTypeNames[t]; ok {
			return n
		}
	}
	return fmt.Sprintf("TYPE_%d", uint16(t))
}

// FilHeader is the 38-byte header and the 8-byte trailer every page carries.
type FilHeader struct {
	Checksum     uint32 // FIL_PAGE_SPACE_OR_CHKSUM (key version in full_crc32 encrypted pages)
	PageNo       uint32
	Prev, Next   uint32
	LSN          uint64
	Type         PageType
	FlushLSN     uint64 // page 0 of the system tablespace; other uses in MariaDB
	SpaceID      uint32
	TrailerCheck uint32 // old-format trailer checksum (4 bytes at size-8); full_crc32: low LSN
	TrailerLSN   uint32 // old-format trailer low 32 bits of the LSN; full_crc32: the CRC-32C
}

// ParseFilHeader decodes the FIL header and trailer of one physical page.
func ParseFilHeader(p []byte) (FilHeader, error) {
	if len(p) < FilPageData+FilPageEndLSNOldChksum {
		return FilHeader{}, fmt.Errorf("page of %d bytes is too short for a FIL header", len(p))
	}
	be := binary.BigEndian
	n := len(p)
	return FilHeader{
		Checksum: be.Uint32(p[0:]), PageNo: be.Uint32(p[4:]), Prev: be.Uint32(p[8:]),
		Next: be.Uint32(p[12:]), LSN: be.Uint64(p[16:]), Type: PageType(be.Uint16(p[24:])),
		FlushLSN: be.Uint64(p[26:]), SpaceID: be.Uint32(p[34:]),
		TrailerCheck: be.Uint32(p[n-8:]), TrailerLSN: be.Uint32(p[n-4:]),
	}, nil
}

// FSPHeader is the file space header on page 0 (fsp0fsp.h), after the FIL header.
type FSPHeader struct {
	SpaceID   uint32
	Size      uint32 // pages
	FreeLimit uint32
	Flags     Flags
	FragUsed  uint32
}

// ParseFSPHeader decodes the FSP header of page 0.
func ParseFSPHeader(p []byte) (FSPHeader, error) {
	if len(p) < fspHeaderEnd+4 {
		return FSPHeader{}, fmt.Errorf("page 0 of %d bytes is too short for an FSP header", len(p))
	}
	be := binary.BigEndian
	fl, err := DecodeFlags(be.Uint32(p[fspFlags:]))
	h := FSPHeader{SpaceID: be.Uint32(p[38:]), Size: be.Uint32(p[46:]), FreeLimit: be.Uint32(p[50:]),
		Flags: fl, FragUsed: be.Uint32(p[58:])}
	return h, err
}
