package discovery

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
)

// SealPage prepares a page image for writing as buf_flush_init_for_writing does: FIL_PAGE_LSN
// becomes lsn and the checksum fields are recomputed in the tablespace's own scheme — full_crc32
// (low 32 LSN bits, then CRC-32C of everything before the last 4 bytes), ROW_FORMAT=COMPRESSED
// (zip crc32 in the header, no trailer) or crc32 (in the header and the trailer, followed by
// the low 32 LSN bits). p must be one physical page of a tablespace with flags fl.
func SealPage(p []byte, fl Flags, lsn uint64) {
	be := binary.BigEndian
	n := len(p)
	be.PutUint64(p[FilPageLSN:], lsn)
	switch {
	case fl.FullCRC32:
		be.PutUint32(p[n-8:], uint32(lsn))
		be.PutUint32(p[n-4:], crc32c(p[:n-4]))
	case fl.ZipSize != 0:
		be.PutUint32(p[FilPageSpaceOrChecksum:], zipCRC32(p))
	default:
		be.PutUint32(p[n-4:], uint32(lsn))
		c := pageCRC32(p)
		be.PutUint32(p[FilPageSpaceOrChecksum:], c)
		be.PutUint32(p[n-8:], c)
	}
}

// Page-compression algorithms (fsp0types.h PAGE_*_ALGORITHM) and the on-disk layout of
// MariaDB page_compressed pages (fil0pagecompress.cc).
const (
	compZlib = 1
	// compAlgoOffset is FIL_PAGE_COMP_ALGO: full_crc32 compressed data starts here; in the
	// older format the 8 bytes here are 6 zero bytes and the algorithm.
	compAlgoOffset = 26
)

// IsPageCompressed reports whether p is stored page_compressed (and must be decompressed
// before use).
func IsPageCompressed(p []byte, fl Flags) bool {
	t := binary.BigEndian.Uint16(p[FilPageType:])
	if fl.FullCRC32 {
		return fl.PageCompression && t&(1<<15) != 0
	}
	return PageType(t) == PagePageCompressed
}

// Decompress returns the logical page of a page_compressed page p (zlib, the server's default
// page_compression algorithm). Other algorithms and encrypted pages give an error.
func Decompress(p []byte, fl Flags, pageSize int) ([]byte, error) {
	be := binary.BigEndian
	var algo, start, length int
	if fl.FullCRC32 {
		algo = fl.CompressionAlgo
		size := int(be.Uint16(p[FilPageType:])&^(1<<15)) << 8
		if size >= pageSize || size > len(p) || size <= compAlgoOffset {
			return nil, fmt.Errorf("page_compressed size %d out of range", size)
		}
		// lz4, lzo and snappy store an exact length in the byte before the checksum.
		start, length = compAlgoOffset, size-compAlgoOffset
	} else {
		if PageType(be.Uint16(p[FilPageType:])) != PagePageCompressed {
			return nil, fmt.Errorf("page type %d is not PAGE_COMPRESSED", be.Uint16(p[FilPageType:]))
		}
		algo = int(be.Uint16(p[compAlgoOffset+6:]))
		start, length = FilPageData+2, int(be.Uint16(p[FilPageData:]))
		if length == 0 || length > pageSize-start || start+length > len(p) {
			return nil, fmt.Errorf("page_compressed payload size %d out of range", length)
		}
	}
	if algo != compZlib {
		return nil, fmt.Errorf("page_compressed algorithm %d is not supported (zlib only)", algo)
	}
	r, err := zlib.NewReader(bytes.NewReader(p[start : start+length]))
	if err != nil {
		return nil, fmt.Errorf("page_compressed: %w", err)
	}
	out := make([]byte, pageSize)
	if _, err := io.ReadFull(r, out); err != nil {
		return nil, fmt.Errorf("page_compressed: inflating to %d bytes: %w", pageSize, err)
	}
	return out, nil
}
