package rows

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"innoscope/discovery"
	"innoscope/internal/regular"
)

// Undrop (issue 32): the rows of a dropped or truncated table, from its pages still on disk.
// DROP and TRUNCATE free the table's pages (in the system tablespace, for a table created with
// innodb_file_per_table=0) or unlink its file (whose blocks stay in the filesystem until they
// are reused); the server does not overwrite them (innodb_immediate_scrub_data_uncompressed
// off). A Carving collects the pages found, by their own header: space id, page number, LSN,
// type, and for an index page its index id and level. A page counts only when its checksum
// holds (full_crc32 or crc32, tried at every page size); of several copies of one page (the
// doublewrite buffer's, an older copy in an image) the one of the highest FIL_PAGE_LSN is kept.

// pageTypeBlob is FIL_PAGE_TYPE_BLOB: a page of an off-page column.
const pageTypeBlob = 10

// carvedType: the page types a carving keeps.
func carvedType(t uint16) bool {
	return t == pageTypeIdx || t == pageTypeInst || t == pageTypeBlob || t == pageTypeZBlob || t == pageTypeZBlob2
}

// CarvedPage is a page found in a file or an image whose checksum holds.
type CarvedPage struct {
	Source  string `json:"source"` // the file or image it was read from
	Offset  int64  `json:"offset"` // its byte offset there
	Space   uint32 `json:"space_id"`
	Page    uint32 `json:"page"`
	LSN     uint64 `json:"lsn"`
	Type    uint16 `json:"type"`
	IndexID uint64 `json:"index_id,omitempty"`
	Level   uint16 `json:"level,omitempty"`
	Compact bool   `json:"compact,omitempty"`
	// Flags are the tablespace flags its checksum held with (page size, full_crc32 or not).
	Flags discovery.Flags `json:"-"`
	// first: no FIL_PAGE_PREV (the leftmost page of its level); lone: no FIL_PAGE_NEXT either.
	first, lone bool
}

// Carving is the pages found, the newest copy of each (space id, page number).
type Carving struct {
	pages map[[2]uint32]CarvedPage
	// Scanned counts the bytes read; Checked the candidate positions whose checksum was tried.
	Scanned, Checked int64
	tz               *time.Location // TIMESTAMP values are shown in it (nil: UTC)
	// ZipLogical is the server's page size, which a ROW_FORMAT=COMPRESSED page found in an
	// image decompresses to (0: 16K; CarveDir sets the data directory's).
	ZipLogical int
}

// NewCarving starts an empty carving.
func NewCarving() *Carving { return &Carving{pages: map[[2]uint32]CarvedPage{}} }

// add keeps page c unless a newer copy of it is kept.
func (c *Carving) add(p []byte, cp CarvedPage) {
	be := binary.BigEndian
	cp.Space, cp.Page = be.Uint32(p[discovery.FilPageSpaceID:]), be.Uint32(p[discovery.FilPageOffset:])
	cp.LSN, cp.Type = be.Uint64(p[discovery.FilPageLSN:]), be.Uint16(p[discovery.FilPageType:])
	if cp.Type == pageTypeIdx || cp.Type == pageTypeInst {
		ip, err := discovery.ParseIndexPage(p)
		if err != nil {
			return
		}
		cp.IndexID, cp.Level, cp.Compact = ip.IndexID, ip.Level, ip.Compact
		cp.first = be.Uint32(p[discovery.FilPagePrev:]) == filNull
		cp.lone = cp.first && be.Uint32(p[discovery.FilPageNext:]) == filNull
	}
	k := [2]uint32{cp.Space, cp.Page}
	if old, ok := c.pages[k]; ok && old.LSN >= cp.LSN {
		return
	}
	c.pages[k] = cp
}

// AddFile carves every page of a tablespace file (its page size and checksum from its page 0)
// whose checksum holds: the file's own pages, and the copies the doublewrite buffer holds.
func (c *Carving) AddFile(path string) error {
	f, err := discovery.OpenFile(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fl := f.FSP.Flags
	if fl.ZipSize != 0 || fl.PageCompression {
		return nil // the pages of a live COMPRESSED or page_compressed file are not carved
	}
	ps := int64(f.Physical)
	return f.EachPage(0, -1, func(no int64, p []byte) error {
		c.Scanned += ps
		if !carvedType(binary.BigEndian.Uint16(p[discovery.FilPageType:])) {
			return nil
		}
		c.Checked++
		if v := discovery.CheckPage(p, fl, binary.BigEndian.Uint32(p[discovery.FilPageOffset:]), binary.BigEndian.Uint32(p[discovery.FilPageSpaceID:])); v.Corrupt || v.Algorithm == discovery.AlgEmpty {
			return nil
		}
		c.add(p, CarvedPage{Source: path, Offset: no * ps, Flags: fl})
		return nil
	})
}

// imageAlign is the step at which an image is searched for pages: a filesystem places a file's
// blocks at multiples of its block size, 512 bytes at least.
const imageAlign = 512

// imagePageSizes are the page sizes tried at each position, the most common first.
var imagePageSizes = []int{16384, 4096, 8192, 32768, 65536}

// AddImage carves a raw image (a filesystem image, a block device): at every 512-byte aligned
// offset, a page of a carved type whose checksum holds at one of the page sizes, full_crc32 or
// crc32. A page found is skipped over.
func (c *Carving) AddImage(path string) error {
	f, err := regular.Open(path)
	if err != nil {
		f2, err2 := os.Open(path) // a block device
		if err2 != nil {
			return err
		}
		f = f2
	}
	defer f.Close()
	const chunk = 8 << 20
	maxPage := imagePageSizes[len(imagePageSizes)-1]
	buf := make([]byte, chunk+maxPage)
	for base := int64(0); ; base += chunk {
		n, err := f.ReadAt(buf, base)
		if n == 0 {
			if err == io.EOF || err == nil {
				return nil
			}
			return fmt.Errorf("%s: offset %d: %w", path, base, err)
		}
		c.Scanned += int64(min(n, chunk))
		c.scanChunk(path, base, buf[:n], min(n, chunk))
		if n < len(buf) {
			if err != nil && err != io.EOF {
				return fmt.Errorf("%s: offset %d: %w", path, base+int64(n), err)
			}
			return nil
		}
	}
}

// scanChunk tries the positions [0, limit) of b (read at offset base); a page may extend past
// limit into the rest of b.
func (c *Carving) scanChunk(path string, base int64, b []byte, limit int) {
	be := binary.BigEndian
	for o := 0; o < limit; o += imageAlign {
		if o+discovery.FilPageData > len(b) || !carvedType(be.Uint16(b[o+discovery.FilPageType:])) {
			continue
		}
		if ps := c.tryPage(path, base+int64(o), b[o:]); ps > 0 {
			o += ps - imageAlign
		}
	}
}

// tryPage checks a page at the start of b at each page size; it returns the size it holds at
// (0: none).
func (c *Carving) tryPage(path string, off int64, b []byte) int {
	c.Checked++
	for _, ps := range imagePageSizes {
		if ps > len(b) {
			continue
		}
		p := b[:ps]
		for _, full := range []bool{true, false} {
			fl := discovery.Flags{PageSize: ps, FullCRC32: full}
			if full && binary.BigEndian.Uint32(p[ps-4:]) == 0 {
				continue
			}
			if v := discovery.CheckPage(p, fl, binary.BigEndian.Uint32(p[discovery.FilPageOffset:]), binary.BigEndian.Uint32(p[discovery.FilPageSpaceID:])); v.Corrupt || v.Algorithm != discovery.AlgFullCRC32 && v.Algorithm != discovery.AlgCRC32 {
				continue
			}
			c.add(p, CarvedPage{Source: path, Offset: off, Flags: fl})
			return ps
		}
	}
	// ROW_FORMAT=COMPRESSED pages: their own checksum, at each size.
	if t := binary.BigEndian.Uint16(b[discovery.FilPageType:]); t != pageTypeIdx && t != pageTypeZBlob && t != pageTypeZBlob2 {
		return 0
	}
	for _, zs := range zipSizes {
		if zs > len(b) {
			continue
		}
		p := b[:zs]
		fl := discovery.Flags{PageSize: c.ZipLogical, ZipSize: zs}
		if fl.PageSize == 0 {
			fl.PageSize = 16384
		}
		if v := discovery.CheckPage(p, fl, binary.BigEndian.Uint32(p[discovery.FilPageOffset:]), binary.BigEndian.Uint32(p[discovery.FilPageSpaceID:])); v.Corrupt || v.Algorithm != discovery.AlgZipCRC32 {
			continue
		}
		c.add(p, CarvedPage{Source: path, Offset: off, Flags: fl})
		return zs
	}
	return 0
}

// zipSizes are the ROW_FORMAT=COMPRESSED page sizes tried (KEY_BLOCK_SIZE 8 is the default).
var zipSizes = []int{8192, 4096, 16384, 2048, 1024}

// physical is the size of a page on disk in a tablespace of flags fl.
func physical(fl discovery.Flags) int {
	if fl.ZipSize != 0 {
		return fl.ZipSize
	}
	return fl.PageSize
}

// DroppedIndex is the pages of one index id a carving found.
type DroppedIndex struct {
	IndexID uint64 `json:"index_id"`
	Space   uint32 `json:"space_id"`
	Leaves  int    `json:"leaf_pages"`
	Upper   int    `json:"non_leaf_pages"`
	Compact bool   `json:"compact"`
	// PageSize is the page size its pages' checksums held at.
	PageSize int `json:"page_size"`
	// Sources are the files or images its pages were found in.
	Sources []string `json:"sources"`
}

// Indexes lists the index ids whose pages the carving found (of the space holding most of
// each index's pages), by index id.
func (c *Carving) Indexes() []DroppedIndex {
	type key struct {
		id    uint64
		space uint32
	}
	m := map[key]*DroppedIndex{}
	srcs := map[key]map[string]bool{}
	for _, p := range c.pages {
		if p.Type != pageTypeIdx && p.Type != pageTypeInst {
			continue
		}
		k := key{p.IndexID, p.Space}
		d := m[k]
		if d == nil {
			d = &DroppedIndex{IndexID: p.IndexID, Space: p.Space, Compact: p.Compact, PageSize: p.Flags.PageSize}
			m[k], srcs[k] = d, map[string]bool{}
		}
		if p.Level == 0 {
			d.Leaves++
		} else {
			d.Upper++
		}
		srcs[k][p.Source] = true
	}
	best := map[uint64]*DroppedIndex{}
	for k, d := range m {
		for s := range srcs[k] {
			d.Sources = append(d.Sources, s)
		}
		sort.Strings(d.Sources)
		if b := best[k.id]; b == nil || d.Leaves+d.Upper > b.Leaves+b.Upper {
			best[k.id] = d
		}
	}
	out := make([]DroppedIndex, 0, len(best))
	for _, d := range best {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].IndexID < out[j].IndexID })
	return out
}
