// Package discovery finds a server's files and reads what they say about tablespaces: where
// its options put them (Layout, my.cnf), the tablespaces in the directories it scans and the
// .isl files, page 0 (flags, space id, sizes), page checksums, the data dictionary in the system
// tablespace, the undo logs, the DDL log, and whether a server is running on them.
package discovery

import (
	"encoding/binary"
	"fmt"
	"innoscope/internal/regular"
	"io"
	"path/filepath"
	"sort"
)

// Offsets in page 0 (fsp0fsp.h): the FSP header starts at 38; FSP_SIZE is at +8, its flags
// word at +16.
const (
	FSPSize      = 38 + 8
	FSPFlags     = 38 + 16
	fspFlags     = FSPFlags
	fspHeaderEnd = 38 + 20
)

// Flags is a decoded FSP_SPACE_FLAGS word (fsp0types.h of each vendor). MariaDB's full_crc32
// layout has a marker in bit 4, the page size in bits 0..3 and the page_compressed algorithm in
// bits 5..7. The classic layout (MySQL; MariaDB without full_crc32) has POST_ANTELOPE in bit 0,
// the ROW_FORMAT=COMPRESSED size in bits 1..4, ATOMIC_BLOBS in bit 5, the page size in bits 6..9;
// MySQL adds DATA_DIR, SHARED, TEMPORARY, ENCRYPTION, SDI in bits 10..14 and MariaDB
// PAGE_COMPRESSION in bit 16 (with the level in bits 17..20). Bit 4 of the classic layout would
// make a compressed size code of 8 or more, which is invalid: that is what makes the marker safe.
type Flags struct {
	Raw       uint32 `json:"raw"`
	FullCRC32 bool   `json:"full_crc32"`
	PageSize  int    `json:"page_size"` // logical page size (innodb_page_size)
	ZipSize   int    `json:"zip_size"`  // physical page size of ROW_FORMAT=COMPRESSED tablespaces, else 0
	// PageCompression: MariaDB PAGE_COMPRESSED=1 (classic bit 16, or a full_crc32 algorithm).
	PageCompression bool `json:"page_compression"`
	// CompressionAlgo is the full_crc32 page_compressed algorithm (1 zlib, 2 lz4, 3 lzo, 4 lzma,
	// 5 bzip2, 6 snappy), 0 for none.
	CompressionAlgo int      `json:"compression_algo"`
	AtomicBlobs     bool     `json:"atomic_blobs"` // DYNAMIC or COMPRESSED row format possible
	Names           []string `json:"names"`        // set flags by name
}

// SDI reports whether the flags carry MySQL 8's SDI flag (FSP_FLAGS_MASK_SDI, bit 14 of the
// classic layout): a MySQL 8.0+ tablespace, its table definitions in its SDI pages. MariaDB
// keeps the bit zero.
func (f Flags) SDI() bool { return f.Raw&(1<<14) != 0 }

// DecodeFlags decodes FSP_SPACE_FLAGS.
func DecodeFlags(f uint32) (Flags, error) {
	fl := Flags{Raw: f}
	if f&(1<<4) != 0 {
		fl.FullCRC32 = true
		ss := f & 0xf
		if ss < 3 || ss > 7 {
			return fl, fmt.Errorf("full_crc32 flags 0x%x: invalid page size code %d", f, ss)
		}
		fl.PageSize = 512 << ss
		fl.CompressionAlgo = int(f>>5) & 7
		fl.PageCompression = fl.CompressionAlgo != 0
		fl.Names = append(fl.Names, "FULL_CRC32")
		if fl.PageCompression {
			fl.Names = append(fl.Names, fmt.Sprintf("PAGE_COMPRESSED(algorithm %d)", fl.CompressionAlgo))
		}
		return fl, nil
	}
	ss := (f >> 6) & 0xf
	switch {
	case ss == 0:
		fl.PageSize = 16384
	case ss >= 3 && ss <= 7:
		fl.PageSize = 512 << ss
	default:
		return fl, fmt.Errorf("flags 0x%x: invalid page size code %d", f, ss)
	}
	if zs := (f >> 1) & 0xf; zs != 0 {
		if zs > 5 {
			return fl, fmt.Errorf("flags 0x%x: invalid compressed page size code %d", f, zs)
		}
		fl.ZipSize = 512 << zs
		fl.Names = append(fl.Names, fmt.Sprintf("ZIP_SSIZE(%d bytes)", fl.ZipSize))
	}
	fl.AtomicBlobs = f&(1<<5) != 0
	fl.PageCompression = f&(1<<16) != 0
	for bit, name := range map[uint]string{0: "POST_ANTELOPE", 5: "ATOMIC_BLOBS", 10: "DATA_DIR",
		11: "SHARED", 12: "TEMPORARY", 13: "ENCRYPTION", 14: "SDI", 16: "PAGE_COMPRESSION"} {
		if f&(1<<bit) != 0 {
			fl.Names = append(fl.Names, name)
		}
	}
	sort.Strings(fl.Names)
	return fl, nil
}

// SystemPageSize reads innodb_page_size from the FSP flags of the system tablespace file
// (ibdata1 by default) in dir.
func SystemPageSize(dir, file string) (int, error) {
	if file == "" {
		file = "ibdata1"
	}
	p := filepath.Join(dir, file)
	f, err := regular.Open(p)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	b := make([]byte, fspHeaderEnd)
	if _, err := io.ReadFull(f, b); err != nil {
		return 0, fmt.Errorf("%s: offset 0: page 0 is truncated: %w", p, err)
	}
	fl, err := DecodeFlags(binary.BigEndian.Uint32(b[fspFlags:]))
	if err != nil {
		return 0, fmt.Errorf("%s: offset %d: %w", p, fspFlags, err)
	}
	return fl.PageSize, nil
}

// ServerPages is how many pages of a datafile holding pages whole pages of physical size phys
// (logical page size logical) the server uses: above one extent, the size is rounded down to
// whole extents (fil_node_t::read_page0; FSP_EXTENT_SIZE is 1 MiB of pages up to 16 KiB pages,
// 64 pages above). Seen on MariaDB 10.11: a file of 16 KiB pages cut to 200 pages was "192
// pages" to its recovery, which then called pages 192 and later "corrupted".
func ServerPages(pages int64, phys, logical int) int64 {
	ext := int64(64)
	if logical <= 16384 {
		ext = int64(1<<20) / int64(logical)
	}
	if pages*int64(phys) <= ext*int64(phys)-1 {
		return pages
	}
	return pages / ext * ext
}

// CutShort reports whether a datafile of pages whole pages is shorter than the FSP_SIZE its
// page 0 gives (fspSize), and then the page from which the server finds nothing in it
// (ServerPages): a file cut short. (A file is extended before the mini-transaction that raises
// its FSP_SIZE, so a crash leaves it at least that long; an undo tablespace truncation, which
// cuts the file after logging it, is the exception recovery replays first.)
func CutShort(pages int64, fspSize uint32, phys, logical int) (int64, bool) {
	if fspSize == 0 || pages >= int64(fspSize) {
		return 0, false
	}
	return ServerPages(pages, phys, logical), true
}
