// Package discovery finds tablespaces in data directories and decodes their first pages.
package discovery

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Offsets in page 0 (fsp0fsp.h): the FSP header starts at 38; its flags word is at +16.
const (
	fspFlags     = 38 + 16
	fspHeaderEnd = 38 + 20
)

// Flags is a decoded FSP_SPACE_FLAGS word. MariaDB's full_crc32 layout (marker bit 4) keeps the
// page size in bits 0..3; the classic layout (MySQL, MariaDB without full_crc32) keeps it in bits
// 6..9 and the ROW_FORMAT=COMPRESSED size in bits 1..4 (fsp0types.h FSP_FLAGS_*).
type Flags struct {
	Raw       uint32
	FullCRC32 bool
	PageSize  int // logical page size (innodb_page_size)
	ZipSize   int // physical page size of ROW_FORMAT=COMPRESSED tablespaces, else 0
}

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
	}
	return fl, nil
}

// SystemPageSize reads innodb_page_size from the FSP flags of the system tablespace file
// (ibdata1 by default) in dir.
func SystemPageSize(dir, file string) (int, error) {
	if file == "" {
		file = "ibdata1"
	}
	p := filepath.Join(dir, file)
	f, err := os.Open(p)
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
