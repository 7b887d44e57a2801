package schema

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"

	"innoscope/discovery"
	"innoscope/pagezip"
)

// MySQL 8.0+ keeps a copy of the data dictionary entries of a tablespace's tables in the
// tablespace itself: the Serialized Dictionary Information (SDI, WL#7069). Layout (fsp0fsp.h,
// fsp0sdi.cc, dict0sdi.cc of MySQL 8.0):
//   - page 0 holds, after the FSP header (112 bytes at 38), the extent descriptors (40 bytes
//     each, one per extent of the page: page size / extent size of them) and the encryption
//     information (ENCRYPTION_INFO_MAX_SIZE = 115 bytes), the SDI version (4 bytes) and the
//     page number of the SDI index root (4 bytes);
//   - the SDI index is a B-tree of FIL_PAGE_SDI (17853) pages in the COMPACT format whose
//     records are: type (4 bytes: 1 a table, 2 a tablespace), id (8), DB_TRX_ID (6),
//     DB_ROLL_PTR (7), the uncompressed length (4), the compressed length (4) and the data
//     (variable, stored off page in FIL_PAGE_SDI_BLOB pages when long): the zlib-compressed
//     JSON of the dictionary object.
const (
	pageTypeSDI     = 17853 // FIL_PAGE_SDI
	sdiXdesArray    = 38 + 112
	sdiEncryptionSz = 115 // ENCRYPTION_INFO_MAX_SIZE
	sdiRecFixed     = 33  // bytes of a SDI leaf record before its data field
	sdiMaxJSON      = 64 << 20
	sdiMaxPages     = 1 << 16 // pages of the SDI tree (and of one BLOB chain) read at most
	sdiFieldRefSize = 20
	sdiBlobHeader   = 8 // BTR_BLOB_HDR_SIZE: part length (4), next page (4)
	sdiInfimum      = 99
	sdiSupremum     = 112
)

// SDIRecord is one record of a tablespace's SDI: the object's type (1 a table, 2 a
// tablespace), its id, and its JSON (uncompressed).
type SDIRecord struct {
	Type uint32
	ID   uint64
	Page uint32 // the SDI leaf page the record is on
	JSON []byte
}

// ReadSDI reads the SDI records of the MySQL 8 tablespace file at path. A file without SDI
// (MariaDB, MySQL 5.x) or with a damaged one is an error naming the file, the page and the
// offset.
func ReadSDI(path string) ([]SDIRecord, error) {
	f, err := discovery.OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readSDI(f, path)
}

// readSDI reads the SDI records of the tablespace f.
func readSDI(f *discovery.File, path string) ([]SDIRecord, error) {
	s := &sdiReader{f: f, path: path, spaceID: f.FSP.SpaceID}
	root, err := s.rootPage(f.Page0())
	if err != nil {
		return nil, err
	}
	return s.records(root)
}

type sdiReader struct {
	f       *discovery.File
	path    string
	spaceID uint32
}

// rootPage reads the SDI root page number from page 0.
func (s *sdiReader) rootPage(p0 []byte) (uint32, error) {
	if !s.f.FSP.Flags.SDI() {
		return 0, fmt.Errorf("%s: offset %d: the tablespace flags 0x%x have no SDI flag: not a MySQL 8.0+ tablespace (give the table's .frm for a MariaDB or MySQL 5.x file)", s.path, discovery.FSPFlags, s.f.FSP.Flags.Raw)
	}
	// One descriptor per extent, for as many extents as a descriptor page covers: the physical
	// page size over the pages of an extent (FSP_EXTENT_SIZE, counted in pages of the logical
	// size: a compressed tablespace of 8 KiB pages on a 16 KiB server has 128 descriptors of
	// 40 bytes; 4 KiB pages have 16 of 88 bytes).
	ps, fl := len(p0), s.f.FSP.Flags
	off := sdiXdesArray + int(discovery.XdesSize(fl))*(ps/int(discovery.ExtentPages(fl))) + sdiEncryptionSz
	if off+8 > ps {
		return 0, fmt.Errorf("%s: page 0: SDI root pointer at offset %d past the page", s.path, off)
	}
	ver, root := binary.BigEndian.Uint32(p0[off:]), binary.BigEndian.Uint32(p0[off+4:])
	if ver == 0 || root == 0 || int64(root) >= s.f.Pages() {
		return 0, fmt.Errorf("%s: page 0 offset %d: SDI version %d, root page %d (the file has %d pages): no SDI index (a file damaged at page 0, or read with the wrong page size: its flags give %d bytes)", s.path, off, ver, root, s.f.Pages(), len(p0))
	}
	return root, nil
}

// page reads page no and checks its checksum and type.
func (s *sdiReader) page(no uint32, want uint16) ([]byte, error) {
	if int64(no) >= s.f.Pages() {
		return nil, fmt.Errorf("%s: page %d is past the end of the file (%d pages)", s.path, no, s.f.Pages())
	}
	p, err := s.f.ReadPage(no)
	if err != nil {
		return nil, err
	}
	if v := discovery.CheckPage(p, s.f.FSP.Flags, no, s.spaceID); v.Corrupt {
		return nil, fmt.Errorf("%s: page %d (offset %d): checksum: %s", s.path, no, int64(no)*int64(len(p)), v.Reason)
	}
	if typ := binary.BigEndian.Uint16(p[discovery.FilPageType:]); want != 0 && typ != want {
		return nil, fmt.Errorf("%s: page %d (offset %d): page type %d, where an SDI page (%d) was expected", s.path, no, int64(no)*int64(len(p)), typ, want)
	}
	if zs := s.f.FSP.Flags.ZipSize; zs != 0 {
		// A compressed tablespace (ROW_FORMAT=COMPRESSED, or a general one of a smaller
		// FILE_BLOCK_SIZE) keeps its SDI index in compressed pages too.
		if want != pageTypeSDI {
			return nil, fmt.Errorf("%s: page %d (offset %d): an SDI value stored off page in a compressed tablespace (compressed BLOB pages), which innoscope does not read", s.path, no, int64(no)*int64(len(p)))
		}
		u, err := pagezip.Decompress(p, s.f.FSP.Flags.PageSize)
		if err != nil {
			return nil, fmt.Errorf("%s: page %d (offset %d, %d-byte compressed page): %v", s.path, no, int64(no)*int64(len(p)), zs, err)
		}
		return u, nil
	}
	return p, nil
}

// records walks the SDI B-tree from root down its leftmost path, then along the leaf level.
func (s *sdiReader) records(root uint32) ([]SDIRecord, error) {
	no := root
	for depth := 0; ; depth++ {
		p, err := s.page(no, pageTypeSDI)
		if err != nil {
			return nil, err
		}
		if binary.BigEndian.Uint16(p[38+26:]) == 0 { // PAGE_LEVEL
			break
		}
		if depth > 16 {
			return nil, fmt.Errorf("%s: page %d: the SDI tree is deeper than 16 levels", s.path, no)
		}
		rec, err := s.firstRecord(p, no)
		if err != nil {
			return nil, err
		}
		if rec < 0 || rec+16 > len(p) {
			return nil, fmt.Errorf("%s: page %d: an SDI node page without records", s.path, no)
		}
		no = binary.BigEndian.Uint32(p[rec+12:]) // type (4), id (8), child page (4)
	}
	var out []SDIRecord
	for n := 0; no != 0xffffffff; n++ {
		if n > sdiMaxPages {
			return nil, fmt.Errorf("%s: the SDI leaf chain is longer than %d pages (a loop?)", s.path, sdiMaxPages)
		}
		p, err := s.page(no, pageTypeSDI)
		if err != nil {
			return nil, err
		}
		recs, err := s.leaf(p, no)
		if err != nil {
			return nil, err
		}
		out = append(out, recs...)
		no = binary.BigEndian.Uint32(p[discovery.FilPageNext:])
	}
	return out, nil
}

// firstRecord is the origin of the first user record of page p (-1 when it has none).
func (s *sdiReader) firstRecord(p []byte, no uint32) (int, error) {
	if binary.BigEndian.Uint16(p[38+4:])&0x8000 == 0 {
		return 0, fmt.Errorf("%s: page %d: SDI page not in the COMPACT format", s.path, no)
	}
	next := compactNextSDI(p, sdiInfimum)
	if next == sdiSupremum {
		return -1, nil
	}
	return next, nil
}

func compactNextSDI(p []byte, origin int) int {
	rel := int(int16(binary.BigEndian.Uint16(p[origin-2:])))
	return (origin + rel) & (len(p) - 1)
}

// leaf reads the records of SDI leaf page p.
func (s *sdiReader) leaf(p []byte, no uint32) ([]SDIRecord, error) {
	var out []SDIRecord
	rec, err := s.firstRecord(p, no)
	if err != nil || rec < 0 {
		return nil, err
	}
	for i := 0; rec != sdiSupremum; i++ {
		bad := func(what string) error {
			return fmt.Errorf("%s: page %d offset %d (file offset %d): SDI record: %s", s.path, no, rec, int64(no)*int64(len(p))+int64(rec), what)
		}
		if i > len(p)/5 || rec < sdiInfimum+13 || rec+sdiRecFixed > len(p)-8 {
			return nil, bad("the record list is broken")
		}
		info := p[rec-5]
		l, ext := int(p[rec-6]), false
		if l&0x80 != 0 {
			l, ext = (l&0x3f)<<8|int(p[rec-7]), l&0x40 != 0
		}
		if rec+sdiRecFixed+l > len(p)-8 {
			return nil, bad(fmt.Sprintf("data of %d bytes runs past the page", l))
		}
		if info&0x20 == 0 { // a delete-marked record is an old version
			r := SDIRecord{Type: binary.BigEndian.Uint32(p[rec:]), ID: binary.BigEndian.Uint64(p[rec+4:]), Page: no}
			ulen, clen := int(binary.BigEndian.Uint32(p[rec+25:])), int(binary.BigEndian.Uint32(p[rec+29:]))
			data := p[rec+sdiRecFixed : rec+sdiRecFixed+l]
			if ext {
				d, err := s.blob(data, clen)
				if err != nil {
					return nil, bad(err.Error())
				}
				data = d
			}
			if len(data) != clen {
				return nil, bad(fmt.Sprintf("%d bytes of compressed data, the record says %d", len(data), clen))
			}
			if ulen > sdiMaxJSON {
				return nil, bad(fmt.Sprintf("uncompressed length %d is over %d", ulen, sdiMaxJSON))
			}
			js, err := inflate(data, ulen)
			if err != nil {
				return nil, bad(err.Error())
			}
			r.JSON = js
			out = append(out, r)
		}
		next := compactNextSDI(p, rec)
		if next == rec {
			return nil, bad("the record points to itself")
		}
		rec = next
	}
	return out, nil
}

// blob reads an off-page SDI value: the local part, then the chain of BLOB pages that the
// 20-byte reference at its end points to (space id, page, offset, length).
func (s *sdiReader) blob(local []byte, want int) ([]byte, error) {
	if len(local) < sdiFieldRefSize {
		return nil, fmt.Errorf("off-page data of %d bytes, shorter than its reference", len(local))
	}
	ref := local[len(local)-sdiFieldRefSize:]
	out := append([]byte{}, local[:len(local)-sdiFieldRefSize]...)
	no, off := binary.BigEndian.Uint32(ref[4:]), int(binary.BigEndian.Uint32(ref[8:]))
	rest := int(binary.BigEndian.Uint32(ref[16:]))
	if len(out)+rest != want {
		return nil, fmt.Errorf("off-page length %d and %d local bytes, the record says %d", rest, len(out), want)
	}
	for n := 0; rest > 0; n++ {
		if n > sdiMaxPages || no == 0xffffffff {
			return nil, fmt.Errorf("the BLOB chain ends with %d bytes missing", rest)
		}
		p, err := s.page(no, 0)
		if err != nil {
			return nil, err
		}
		if off+sdiBlobHeader > len(p)-8 {
			return nil, fmt.Errorf("BLOB page %d: offset %d past the page", no, off)
		}
		part := int(binary.BigEndian.Uint32(p[off:]))
		if part > rest || off+sdiBlobHeader+part > len(p)-8 {
			return nil, fmt.Errorf("BLOB page %d: part of %d bytes (%d left)", no, part, rest)
		}
		out = append(out, p[off+sdiBlobHeader:off+sdiBlobHeader+part]...)
		rest -= part
		no, off = binary.BigEndian.Uint32(p[off+4:]), discovery.FilPageData
	}
	return out, nil
}

// inflate decompresses zlib data that must give exactly n bytes.
func inflate(data []byte, n int) ([]byte, error) {
	z, err := zlib.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("zlib: %v", err)
	}
	out, err := io.ReadAll(io.LimitReader(z, int64(n)+1))
	if err != nil {
		return nil, fmt.Errorf("zlib: %v", err)
	}
	if len(out) != n {
		return nil, fmt.Errorf("zlib: %d bytes uncompressed, the record says %d", len(out), n)
	}
	return out, nil
}

// HasSDI reports whether the file at path is a MySQL 8.0+ tablespace (its flags carry the
// SDI flag).
func HasSDI(path string) bool {
	f, err := discovery.OpenFile(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return f.FSP.Flags.SDI()
}
