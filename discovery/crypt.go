package discovery

import (
	"bytes"
	"encoding/binary"
)

// cryptMagic starts the encryption information on page 0 (fil0crypt.h CRYPT_MAGIC).
var cryptMagic = []byte{'s', 0x0e, 0x0c, 'R', 'E', 't'}

// Encryption schemes of MariaDB's page 0 encryption information.
const (
	CryptUnencrypted = 0 // CRYPT_SCHEME_UNENCRYPTED
	CryptScheme1     = 1 // CRYPT_SCHEME_1: pages are (being) encrypted
)

// cryptOffset is where the encryption information of page 0 starts: after the FSP header and
// the extent descriptors (fsp_header_get_encryption_offset, to which the server adds
// FSP_HEADER_OFFSET once more; seen at 10428 on a real 16 KiB page).
func cryptOffset(fl Flags) int {
	phys := fl.PageSize
	if fl.ZipSize != 0 {
		phys = fl.ZipSize
	}
	extent := 64 // pages per extent (FSP_EXTENT_SIZE): 1 MiB, but 64 pages above 16 KiB
	if fl.PageSize < 16384 {
		extent = (1 << 20) / fl.PageSize
	}
	xdesSize := 24 + (extent*2+7)/8 // XDES_BITMAP, then 2 bits per page
	return 2*FilPageData + 112 + xdesSize*phys/extent
}

// EncryptionScheme reads the MariaDB encryption information on page 0 of a tablespace with
// flags fl: the scheme (CryptUnencrypted or CryptScheme1) and whether there is any.
func EncryptionScheme(page0 []byte, fl Flags) (int, bool) {
	off := cryptOffset(fl)
	if fl.PageSize == 0 || off+len(cryptMagic)+1 > len(page0) || !bytes.Equal(page0[off:off+len(cryptMagic)], cryptMagic) {
		return 0, false
	}
	return int(page0[off+len(cryptMagic)]), true
}

// KeyVersion is the encryption key version a page carries (0: not encrypted): bytes 0..3 of
// full_crc32 pages, FIL_PAGE_FILE_FLUSH_LSN_OR_KEY_VERSION in the older format (where page 0
// is never encrypted and uses the field for the flush LSN).
func KeyVersion(p []byte, fl Flags, no uint32) uint32 {
	be := binary.BigEndian
	if fl.FullCRC32 {
		return be.Uint32(p[FilPageSpaceOrChecksum:])
	}
	if no == 0 || PageType(be.Uint16(p[FilPageType:])) == PagePageCompressed {
		return 0
	}
	return be.Uint32(p[FilPageFileFlushLSN:])
}
