package discovery

import (
	"encoding/binary"
	"fmt"
	"io"
	"sync"

	"innoscope/internal/regular"
)

// File is a tablespace file opened read-only, with its page 0 decoded.
type File struct {
	Path     string
	Size     int64
	Header   FilHeader // of page 0
	FSP      FSPHeader
	Physical int // bytes per page on disk (the compressed size for ROW_FORMAT=COMPRESSED)
	Vendor   Vendor
	page0    []byte // the first page, as read by NewFile
	r        io.ReaderAt
	// verified: the file is read from disk (OpenFile), so the dictionary pages read from it
	// are checked against their checksums before they are used (dictPage).
	verified bool
	closer   io.Closer
	// data lists the data extents of r when it is an *os.File (holeInfo set; see extents).
	holesOnce sync.Once
	holeInfo  bool
	data      []Extent
}

// OpenFile opens a datafile read-only and decodes its first page. Anything but a regular
// file is refused without blocking (see regular.Open).
func OpenFile(path string) (*File, error) { return openFile(path, nil) }

// openFile is OpenFile, with the first len(page0) bytes read from page0 instead of the file when
// it is not nil (OpenFileWithPage0).
func openFile(path string, page0 []byte) (*File, error) {
	f, err := regular.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	var tf *File
	if err == nil && page0 == nil {
		tf, err = NewFile(f, fi.Size(), path)
	} else if err == nil {
		if tf, err = NewFile(page0Overlay{f, page0}, fi.Size(), path); err == nil {
			tf.holesOnce.Do(func() { tf.holeInfo, tf.data = true, withData(DataExtents(f, fi.Size()), int64(len(page0))) })
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	tf.closer, tf.verified = f, true
	return tf, nil
}

// NewFile decodes page 0 of the tablespace image r of the given size; path names it in errors.
func NewFile(r io.ReaderAt, size int64, path string) (*File, error) {
	// The flags decide the page size, so read the FSP header first.
	head := make([]byte, fspHeaderEnd+4)
	if n, err := r.ReadAt(head, 0); n < len(head) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%s: offset %d: file of %d bytes is too short for page 0: %w", path, n, size, err)
	}
	fl, err := DecodeFlags(binary.BigEndian.Uint32(head[fspFlags:]))
	if err != nil {
		return nil, fmt.Errorf("%s: offset %d: %w", path, fspFlags, err)
	}
	phys := fl.PageSize
	if fl.ZipSize != 0 {
		phys = fl.ZipSize
	}
	if size < int64(phys) {
		return nil, fmt.Errorf("%s: offset %d: file of %d bytes is shorter than one %d-byte page", path, size, size, phys)
	}
	p := make([]byte, phys)
	if _, err := r.ReadAt(p, 0); err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: offset 0: %w", path, err)
	}
	h, _ := ParseFilHeader(p)
	fsp, _ := ParseFSPHeader(p)
	return &File{Path: path, Size: size, Header: h, FSP: fsp, Physical: phys, Vendor: vendorOf(fl), page0: p, r: r}, nil
}

// vendorOf guesses who wrote a file from its flags: MySQL sets bits 10..14 (DATA_DIR, SHARED,
// TEMPORARY, ENCRYPTION, SDI), which MariaDB keeps zero; full_crc32 and page compression are
// MariaDB's.
func vendorOf(fl Flags) Vendor {
	switch {
	case fl.FullCRC32 || fl.PageCompression:
		return VendorMariaDB
	case !fl.FullCRC32 && fl.Raw&(0x1f<<10) != 0:
		return VendorMySQL
	}
	return VendorUnknown
}

// Page0 is the first page as read when the file was opened.
func (t *File) Page0() []byte { return t.page0 }

// Close closes the file.
func (t *File) Close() error {
	if t.closer == nil {
		return nil
	}
	return t.closer.Close()
}

// Pages is the number of whole pages in the file.
func (t *File) Pages() int64 { return t.Size / int64(t.Physical) }

// EachPage calls fn for pages [from, to) in order (to < 0: to the end), reading sequentially
// with a large buffer. The slice passed to fn is reused after fn returns. Pages that lie wholly
// in a hole of the file (an unallocated range: SEEK_DATA) are not read: fn gets a page of zero
// bytes, which is what reading them would give.
func (t *File) EachPage(from, to int64, fn func(no int64, p []byte) error) error {
	if to < 0 || to > t.Pages() {
		to = t.Pages()
	}
	return t.eachPageChunk(from, to, 4<<20, fn, nil)
}

// eachPageChunk is EachPage reading chunk bytes at a time. Runs of pages in a hole go to
// zeros(a, b) when it is set (it stands for fn on each of them with an all-zero page), else to
// fn one by one with a zero page.
func (t *File) eachPageChunk(from, to int64, chunk int, fn func(no int64, p []byte) error, zeros func(a, b int64) error) error {
	ps := int64(t.Physical)
	per := int64(chunk) / ps
	if per < 1 {
		per = 1
	}
	buf := make([]byte, per*ps)
	for no := from; no < to; {
		hole, end := t.dataRun(no)
		end = min(end, to)
		if hole {
			if zeros != nil {
				if err := zeros(no, end); err != nil {
					return err
				}
				no = end
				continue
			}
			z := buf[:ps]
			for ; no < end; no++ {
				clear(z)
				if err := fn(no, z); err != nil {
					return err
				}
			}
			continue
		}
		n := min(per, end-no)
		b := buf[:n*ps]
		if _, err := t.r.ReadAt(b, no*ps); err != nil && err != io.EOF {
			return fmt.Errorf("%s: offset %d: %w", t.Path, no*ps, err)
		}
		for i := int64(0); i < n; i++ {
			if err := fn(no+i, b[i*ps:(i+1)*ps]); err != nil {
				return err
			}
		}
		no += n
	}
	return nil
}
