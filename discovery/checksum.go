package discovery

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"innoscope/logformat"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func crc32c(p []byte) uint32 { return crc32.Checksum(p, castagnoli) }

// Algorithm names a page checksum scheme.
type Algorithm string

// Checksum schemes (innodb_checksum_algorithm values, buf0checksum.cc).
const (
	AlgFullCRC32 Algorithm = "full_crc32" // MariaDB 10.4+: CRC-32C of the whole page but its last 4 bytes
	AlgCRC32     Algorithm = "crc32"      // CRC-32C of [4,26) XOR CRC-32C of [38, size-8), in header and trailer
	AlgInnoDB    Algorithm = "innodb"     // legacy folds: new formula in the header, old formula in the trailer
	AlgNone      Algorithm = "none"       // the magic 0xDEADBEEF
	AlgZipCRC32  Algorithm = "zip_crc32"  // ROW_FORMAT=COMPRESSED page, CRC-32C variant
	AlgEmpty     Algorithm = "empty"      // an all-zero page (valid for every scheme)
	AlgUnchecked Algorithm = "unchecked"  // MariaDB page_compressed page (checked after decompression)
	// AlgDoublewrite: a page of the system tablespace's doublewrite buffer, a copy of another
	// page that the server only reads to repair torn writes.
	AlgDoublewrite Algorithm = "doublewrite"
)

const noChecksumMagic = 0xdeadbeef

// Verdict is the checksum result for one page.
type Verdict struct {
	// Algorithm is the scheme the page validates under (empty if it validates under none).
	Algorithm Algorithm
	// Corrupt follows the server's non-strict rule (innodb_checksum_algorithm=full_crc32 or crc32,
	// the default): crc32, innodb and none are all accepted for non-full_crc32 pages.
	Corrupt bool
	// InnochecksumCorrupt follows MariaDB 10.11's innochecksum, which is built without the legacy
	// algorithms: for non-full_crc32 pages only crc32 (or an all-zero page) passes.
	InnochecksumCorrupt bool
	Reason              string // why the page is corrupt, or "" when it is not
}

// foldBinary is the legacy innodb hash ut_fold_binary (logformat.FoldBinary).
func foldBinary(p []byte) uint64 { return logformat.FoldBinary(p) }

// pageCRC32 is the crc32 scheme's value (buf_calc_page_crc32).
func pageCRC32(p []byte) uint32 {
	return crc32c(p[FilPageOffset:FilPageFileFlushLSN]) ^ crc32c(p[FilPageData:len(p)-FilPageEndLSNOldChksum])
}

// pageInnoDBNew and pageInnoDBOld are the innodb scheme's header and trailer values.
func pageInnoDBNew(p []byte) uint32 {
	return uint32(foldBinary(p[FilPageOffset:FilPageFileFlushLSN]) + foldBinary(p[FilPageData:len(p)-FilPageEndLSNOldChksum]))
}

func pageInnoDBOld(p []byte) uint32 { return uint32(foldBinary(p[:FilPageFileFlushLSN])) }

// zipCRC32 is the crc32 scheme for ROW_FORMAT=COMPRESSED pages: the page number, prev and next
// fields, the page type and everything from FIL_PAGE_ARCH_LOG_NO_OR_SPACE_ID on.
func zipCRC32(p []byte) uint32 {
	return crc32c(p[FilPageOffset:FilPageLSN]) ^ crc32c(p[FilPageType:FilPageType+2]) ^ crc32c(p[FilPageSpaceID:])
}

// zipAdler32 is the legacy innodb scheme for ROW_FORMAT=COMPRESSED pages: Adler-32 (from 0,
// as zlib's adler32(0L, ...)) over the same bytes as zipCRC32.
func zipAdler32(p []byte) uint32 {
	a := adler32From(0, p[FilPageOffset:FilPageLSN])
	a = adler32From(a, p[FilPageType:FilPageType+2])
	return adler32From(a, p[FilPageSpaceID:])
}

// adler32From continues an Adler-32 sum whose two halves are packed in a (zlib's
// adler32(adler, buf, len)); hash/adler32 always starts from 1.
func adler32From(a uint32, p []byte) uint32 {
	const mod = 65521
	s1, s2 := a&0xffff, a>>16
	for len(p) > 0 {
		n := min(len(p), 5552) // the most bytes before s2 can overflow 32 bits
		for _, b := range p[:n] {
			s1 += uint32(b)
			s2 += s1
		}
		s1, s2 = s1%mod, s2%mod
		p = p[n:]
	}
	return s2<<16 | s1
}

// zeros is compared against in IsZero: bytes.Equal uses the vector unit, a byte loop does not.
var zeros [64 << 10]byte

// IsZero reports whether p is all zero bytes (a page never written).
func IsZero(p []byte) bool {
	for len(p) > 0 {
		n := min(len(p), len(zeros))
		if !bytes.Equal(p[:n], zeros[:n]) {
			return false
		}
		p = p[n:]
	}
	return true
}

// CheckPage validates page number no of the tablespace spaceID: the page identifier stored in
// it, then its checksum as buf_page_is_corrupted does (without the LSN-in-the-future check,
// which needs the log).
func CheckPage(p []byte, fl Flags, no, spaceID uint32) Verdict {
	be := binary.BigEndian
	storedNo, storedSpace := be.Uint32(p[FilPageOffset:]), be.Uint32(p[FilPageSpaceID:])
	// innochecksum skips the space id for full_crc32 page_compressed spaces; in a full_crc32
	// encrypted page (a key version in bytes 0..3) the space id is among the encrypted bytes
	// and the server compares it only after decrypting (the checksum covers the encrypted page).
	spaceMatters := !fl.FullCRC32 || (!fl.PageCompression && KeyVersion(p, fl, no) == 0)
	if storedNo != no || (storedSpace != spaceID && spaceMatters) {
		if IsZero(p) {
			return Verdict{Algorithm: AlgEmpty}
		}
		return corrupt(fmt.Sprintf("page id mismatch: the page says space %d page %d", storedSpace, storedNo))
	}
	return checkSum(p, fl)
}

// checkSum is the checksum part of CheckPage.
func checkSum(p []byte, fl Flags) Verdict {
	be := binary.BigEndian
	n := len(p)
	if fl.FullCRC32 {
		size, compressed := n, false
		if t := be.Uint16(p[FilPageType:]); t&(1<<15) != 0 {
			// page_compressed: bits 0..14 of the type are the stored size in 256-byte units.
			s := int(t&^(1<<15)) << 8
			if s >= n || s < FilPageData+8 {
				return corrupt(fmt.Sprintf("page_compressed size %d out of range", s))
			}
			size, compressed = s, true
		}
		stored := be.Uint32(p[size-4:])
		if stored == 0 && size == n && IsZero(p) {
			return Verdict{Algorithm: AlgEmpty}
		}
		if c := crc32c(p[:size-4]); c != stored {
			return corrupt(fmt.Sprintf("full_crc32: stored 0x%08x, CRC-32C of bytes 0..%d is 0x%08x", stored, size-5, c))
		}
		// Unencrypted uncompressed pages repeat the low 32 bits of FIL_PAGE_LSN before the CRC.
		if !compressed && be.Uint32(p[0:]) == 0 && be.Uint32(p[FilPageLSN+4:]) != be.Uint32(p[size-8:]) {
			return corrupt(fmt.Sprintf("full_crc32: LSN low bits 0x%08x in the header, 0x%08x in the trailer",
				be.Uint32(p[FilPageLSN+4:]), be.Uint32(p[size-8:])))
		}
		return Verdict{Algorithm: AlgFullCRC32}
	}
	typ := PageType(be.Uint16(p[FilPageType:]))
	if typ == PagePageCompressed || typ == PagePageCompressedEncr {
		if fl.PageCompression {
			return Verdict{Algorithm: AlgUnchecked}
		}
		// The server trusts the type only in a page_compressed tablespace and checks this
		// page like any other; innochecksum trusts the type alone and skips it.
		v := checkClassic(p, fl)
		if v.Corrupt {
			v.InnochecksumCorrupt = false
			v.Reason += fmt.Sprintf(" (innochecksum skips the page: its type is %s)", commonTypeNames[typ])
		}
		return v
	}
	return checkClassic(p, fl)
}

// checkClassic checks a page of a tablespace that is not full_crc32 and not page_compressed.
func checkClassic(p []byte, fl Flags) Verdict {
	be := binary.BigEndian
	n := len(p)
	if fl.ZipSize != 0 {
		return checkZip(p)
	}
	if be.Uint32(p[FilPageLSN+4:]) != be.Uint32(p[n-4:]) {
		return corrupt(fmt.Sprintf("LSN low bits 0x%08x in the header, 0x%08x in the trailer",
			be.Uint32(p[FilPageLSN+4:]), be.Uint32(p[n-4:])))
	}
	f1, f2 := be.Uint32(p[0:]), be.Uint32(p[n-8:])
	if f1 == 0 && f2 == 0 && IsZero(p) {
		return Verdict{Algorithm: AlgEmpty}
	}
	crc := pageCRC32(p)
	if f1 == crc && f2 == crc {
		return Verdict{Algorithm: AlgCRC32}
	}
	// From here on only the server's non-strict rule can accept the page; innochecksum cannot.
	v := Verdict{InnochecksumCorrupt: true}
	if f1 == noChecksumMagic && f2 == noChecksumMagic {
		v.Algorithm = AlgNone
		v.Reason = "checksum none (0xDEADBEEF): accepted by the server, not by innochecksum 10.11"
		return v
	}
	// The trailer holds the old innodb formula, or in very old files the low LSN bits.
	oldOK := f2 == be.Uint32(p[FilPageLSN:]) || f2 == noChecksumMagic || f2 == pageInnoDBOld(p)
	newOK := f1 == 0 || f1 == noChecksumMagic || f1 == pageInnoDBNew(p)
	if oldOK && newOK {
		v.Algorithm = AlgInnoDB
		v.Reason = "legacy innodb checksum: accepted by the server, not by innochecksum 10.11 (crc32 only)"
		return v
	}
	v.Corrupt = true
	v.Reason = fmt.Sprintf("no scheme matches: header 0x%08x (crc32 0x%08x, innodb 0x%08x), trailer 0x%08x (innodb 0x%08x)",
		f1, crc, pageInnoDBNew(p), f2, pageInnoDBOld(p))
	return v
}

// checkZip is page_zip_verify_checksum under the server's default, non-strict setting: a
// page whose checksum field and FIL_PAGE_LSN are zero must be all zero; otherwise the
// CRC-32C variant, the none magic or the legacy Adler-32 variant (page_zip_calc_checksum with
// use_adler) passes. innochecksum 10.11 accepts the CRC-32C variant only.
func checkZip(p []byte) Verdict {
	be := binary.BigEndian
	stored := be.Uint32(p[FilPageSpaceOrChecksum:])
	if stored == 0 && be.Uint64(p[FilPageLSN:]) == 0 {
		if IsZero(p) {
			return Verdict{Algorithm: AlgEmpty}
		}
		return corrupt("ROW_FORMAT=COMPRESSED: checksum and LSN are zero on a page that is not all zero")
	}
	if c := zipCRC32(p); stored == c {
		return Verdict{Algorithm: AlgZipCRC32}
	}
	if stored == noChecksumMagic {
		return Verdict{Algorithm: AlgNone, InnochecksumCorrupt: true,
			Reason: "checksum none (0xDEADBEEF): accepted by the server, not by innochecksum 10.11"}
	}
	if stored == zipAdler32(p) {
		return Verdict{Algorithm: AlgInnoDB, InnochecksumCorrupt: true,
			Reason: "legacy innodb (Adler-32) ROW_FORMAT=COMPRESSED checksum: accepted by the server, not by innochecksum 10.11 (crc32 only)"}
	}
	return corrupt(fmt.Sprintf("ROW_FORMAT=COMPRESSED: stored 0x%08x, crc32 0x%08x, innodb 0x%08x", stored, zipCRC32(p), zipAdler32(p)))
}

func corrupt(why string) Verdict {
	return Verdict{Corrupt: true, InnochecksumCorrupt: true, Reason: why}
}
