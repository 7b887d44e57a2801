package discovery

import "encoding/binary"

// Extent descriptors (fsp0fsp.h): page 0 and every page whose number is a multiple of the
// physical page size (an XDES page) hold, after the FSP header (112 bytes at 38), one
// descriptor per extent of the pages they cover: its segment id (8), list node (12), state (4)
// and a bitmap of 2 bits per page of the extent (XDES_SIZE: 40 bytes for 64-page extents, 88
// for the 256 pages of 4 KiB ones), the first bit (XDES_FREE_BIT) set when the page is free.
// An extent is 1 MiB of pages of the logical (server) page size up to 16 KiB, else 64 pages;
// a compressed tablespace counts its extents in logical pages too.
const (
	xdesArray = 38 + 112
	xdesState = 20
	xdesBits  = 24
)

// XdesSize is the size of an extent descriptor in a tablespace with flags fl.
func XdesSize(fl Flags) int64 { return xdesBits + ExtentPages(fl)*2/8 }

// ExtentPages is the number of pages in an extent of a tablespace with flags fl.
func ExtentPages(fl Flags) int64 {
	if fl.PageSize < 16384 {
		return (1 << 20) / int64(fl.PageSize)
	}
	return 64
}

// XdesPage is the number of the page that holds the extent descriptor of page no.
func (t *File) XdesPage(no int64) int64 { return no / int64(t.Physical) * int64(t.Physical) }

// PageUsed reads whether page no is in use from xdes, the descriptor page that covers it
// (XdesPage); known is false when xdes cannot tell (too short, or of another page).
func (t *File) PageUsed(xdes []byte, no int64) (used, known bool) {
	ext := ExtentPages(t.FSP.Flags)
	if len(xdes) != t.Physical || ext <= 0 {
		return false, false
	}
	e := xdesArray + (no%int64(t.Physical))/ext*XdesSize(t.FSP.Flags)
	bit := 2 * (no % ext)
	if e+xdesBits+bit/8 >= int64(len(xdes)) {
		return false, false
	}
	if binary.BigEndian.Uint32(xdes[e+xdesState:]) == 0 { // XDES_STATE not initialised: free
		return false, true
	}
	return xdes[e+xdesBits+bit/8]&(1<<(bit%8)) == 0, true
}

// Descriptors reads a file's extent descriptor pages as PageUsed needs them, each once: a
// page beyond the file's end, unreadable or failing its checksum tells nothing (known false).
type Descriptors struct {
	f     *File
	pages map[int64][]byte
}

// Descriptors returns a reader of t's extent descriptor pages.
func (t *File) Descriptors() *Descriptors { return &Descriptors{f: t, pages: map[int64][]byte{}} }

// Used reads whether page no is in use (PageUsed, from the descriptor page that covers it).
func (d *Descriptors) Used(no int64) (used, known bool) {
	x := d.f.XdesPage(no)
	p, ok := d.pages[x]
	if !ok {
		if x < d.f.Pages() {
			if q, err := d.f.ReadPage(uint32(x)); err == nil && !CheckPage(q, d.f.FSP.Flags, uint32(x), d.f.FSP.SpaceID).Corrupt {
				p = append([]byte(nil), q...)
			}
		}
		d.pages[x] = p
	}
	return d.f.PageUsed(p, no)
}
