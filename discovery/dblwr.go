package discovery

import "io"

// doublewriteFirst is the first page of the system tablespace's doublewrite buffer, which is
// its extents 1 and 2 (innochecksum's is_page_doublewritebuffer): an extent is 1 MiB, or 64
// pages for pages above 16 KiB.
func doublewriteFirst(pageSize int) int64 {
	if pageSize > 16384 {
		return 64
	}
	return int64(1<<20) / int64(pageSize)
}

// DoublewriteCopy is a page image in the system tablespace's doublewrite buffer.
type DoublewriteCopy struct {
	Space, Page uint32
	LSN         uint64
	Image       []byte
}

// Usable reports whether crash recovery from the checkpoint at from, with the log ending at to,
// uses the copy: the server loads only the doublewrite pages not older than the checkpoint
// (buf_dblwr_t::init_or_load_pages: "Valid pages are not older than the log checkpoint") and
// skips those newer than the end of the log (buf_dblwr_t::recover). Checked on MariaDB 10.11: a
// page recovery needs, corrupt on disk, with only a copy older than the checkpoint, stops the
// server ("Unable to apply log to corrupted page"). to == 0: no end known.
func (c DoublewriteCopy) Usable(from, to uint64) bool {
	return c.LSN >= from && (to == 0 || c.LSN <= to)
}

// DoublewriteCopies returns the non-empty pages of the doublewrite buffer (extents 1 and 2 of
// the system tablespace), keyed by the page id each copy carries.
func DoublewriteCopies(sys *File) (map[[2]uint32][]DoublewriteCopy, error) {
	first := doublewriteFirst(sys.FSP.Flags.PageSize)
	out := map[[2]uint32][]DoublewriteCopy{}
	err := sys.EachPage(first, 3*first, func(no int64, p []byte) error {
		if IsZero(p) {
			return nil
		}
		h, _ := ParseFilHeader(p)
		k := [2]uint32{h.SpaceID, h.PageNo}
		out[k] = append(out[k], DoublewriteCopy{h.SpaceID, h.PageNo, h.LSN, append([]byte(nil), p...)})
		return nil
	})
	return out, err
}

// DoublewritePage0 returns the copy of page 0 of tablespace space that MariaDB's crash recovery
// writes back from the doublewrite buffer over a first page it cannot use (all zero), or nil
// when there is none. The server keeps only the doublewrite pages not older than the checkpoint
// (from: buf_dblwr_t::init_or_load_pages) and takes the newest copy whose flags are valid and
// whose checksum passes (recv_dblwr_t::find_page, validate_page); for a tablespace other than
// the system one it also wants the copy's FSP header to name the space, hold at least 4 pages
// and have the server's page size (pageSize; recv_sys deferred_dblwr). A copy newer than the end
// of the log (to) is not used: buf_dblwr_t::recover skips it for the system tablespace, and no
// server writing this log can have written it.
func DoublewritePage0(copies map[[2]uint32][]DoublewriteCopy, space uint32, from, to uint64, pageSize int) *DoublewriteCopy {
	var best *DoublewriteCopy
	for i, c := range copies[[2]uint32{space, 0}] {
		if !c.Usable(from, to) || (best != nil && c.LSN <= best.LSN) || len(c.Image) < fspHeaderEnd+4 {
			continue
		}
		fsp, err := ParseFSPHeader(c.Image)
		if err != nil || fsp.Flags.PageSize != pageSize || fsp.SpaceID != space || (space != 0 && fsp.Size < 4) {
			continue
		}
		phys := fsp.Flags.PageSize
		if fsp.Flags.ZipSize != 0 {
			phys = fsp.Flags.ZipSize
		}
		if phys > len(c.Image) {
			continue
		}
		if v := CheckPage(c.Image[:phys], fsp.Flags, 0, space); v.Corrupt || v.Algorithm == AlgEmpty {
			continue
		}
		c := copies[[2]uint32{space, 0}][i]
		c.Image = c.Image[:phys]
		best = &c
	}
	return best
}

// OpenFileWithPage0 is OpenFile of the datafile at path read as the server reads it after it
// has written img (a doublewrite copy of page 0, DoublewritePage0) over its first page: page 0
// and what it decides (the flags, the page size) come from img, every other page from the file.
func OpenFileWithPage0(path string, img []byte) (*File, error) { return openFile(path, img) }

// withData is the data extents ext with the bytes [0, n) data too (the file's holes stay holes).
func withData(ext []Extent, n int64) []Extent {
	if len(ext) > 0 && ext[0].Off <= n {
		ext[0] = Extent{0, max(ext[0].Off+ext[0].Len, n)}
		return ext
	}
	return append([]Extent{{0, n}}, ext...)
}

// page0Overlay reads r with its first len(img) bytes replaced by img.
type page0Overlay struct {
	r   io.ReaderAt
	img []byte
}

func (o page0Overlay) ReadAt(p []byte, off int64) (int, error) {
	n, err := o.r.ReadAt(p, off)
	if off < int64(len(o.img)) {
		if c := copy(p, o.img[off:]); c > n {
			n = c
		}
		if n == len(p) {
			err = nil
		}
	}
	return n, err
}
