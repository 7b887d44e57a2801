package rows

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"

	"innoscope/discovery"
	"innoscope/pagezip"
)

// ROW_FORMAT=COMPRESSED tablespaces: their index pages are rebuilt as the server's buffer
// pool holds them (zipdecomp.go) before the COMPACT record decoder reads them, and their
// off-page values are one zlib stream over a chain of BLOB pages.

const (
	pageTypeZBlob  = 11 // FIL_PAGE_TYPE_ZBLOB: the first page of a compressed BLOB
	pageTypeZBlob2 = 12 // FIL_PAGE_TYPE_ZBLOB2: the next ones
)

// readPage reads page no. In a compressed tablespace an index page whose checksum holds is
// returned decompressed (the logical page size); one that does not decompress is returned as
// stored and check reports why.
func (r *reader) readPage(no uint32) ([]byte, error) { return r.readPageInto(nil, no) }

// readPageInto is readPage reading the stored page into buf (see discovery.File.ReadPageInto).
func (r *reader) readPageInto(buf []byte, no uint32) ([]byte, error) {
	p, err := r.fetchInto(buf, no)
	if err != nil || r.f.FSP.Flags.ZipSize == 0 {
		return p, err
	}
	if typ := binary.BigEndian.Uint16(p[discovery.FilPageType:]); typ != pageTypeIdx || r.checksum(p, no) != "" {
		return p, nil
	}
	u, err := pagezip.Decompress(p, r.f.FSP.Flags.PageSize)
	if err != nil {
		if r.zipBad == nil {
			r.zipBad = map[uint32]string{}
		}
		r.zipBad[no] = err.Error()
		return p, nil
	}
	delete(r.zipBad, no)
	r.unzipped = u
	return u, nil
}

// fetch reads page no as the server's buffer pool holds it after the read: a PAGE_COMPRESSED
// page whose stored checksum holds is decompressed (zlib, the default page_compression
// algorithm); one whose checksum fails is returned as stored, for check to report.
func (r *reader) fetch(no uint32) ([]byte, error) { return r.fetchInto(nil, no) }

// fetchInto is fetch reading the stored page into buf.
func (r *reader) fetchInto(buf []byte, no uint32) ([]byte, error) {
	p, err := r.f.ReadPageInto(buf, no)
	if err != nil {
		return p, err
	}
	return r.logical(p, no)
}

// logical is page no, read as stored (p), as the server's buffer pool holds it: fetch's
// decompression of a PAGE_COMPRESSED page.
func (r *reader) logical(p []byte, no uint32) ([]byte, error) {
	fl := r.f.FSP.Flags
	if !fl.PageCompression || !discovery.IsPageCompressed(p, fl) || r.checksum(p, no) != "" {
		return p, nil
	}
	u, err := discovery.Decompress(p, fl, fl.PageSize)
	if err != nil {
		return nil, fmt.Errorf("%s page %d: %w", r.t.File, no, err)
	}
	r.unzipped = u
	return u, nil
}

// zipChecked: p is the page readPage or fetch decompressed last (its checksum was verified as stored;
// with KEY_BLOCK_SIZE equal to the page size both have the same length).
func (r *reader) zipChecked(p []byte) bool {
	return len(p) > 0 && len(r.unzipped) > 0 && &p[0] == &r.unzipped[0]
}

// zipExternal reads an off-page value of a compressed table: the reference's page begins a
// chain of ZBLOB pages (the next page number at the reference's offset, the stream after it,
// or from FIL_PAGE_DATA when that offset is FIL_PAGE_NEXT) holding one zlib stream of the
// reference's length.
func (r *reader) zipExternal(local []byte) ([]byte, error) {
	be := binary.BigEndian
	ref := local[len(local)-fieldRefSize:]
	no, off := be.Uint32(ref[4:]), int(be.Uint32(ref[8:]))
	want := int(be.Uint32(ref[16:]))
	var stream []byte
	typ := uint16(pageTypeZBlob)
	for n := 0; no != filNull; n++ {
		p, err := r.blobPage(no, n)
		if err != nil {
			return nil, err
		}
		if t := be.Uint16(p[discovery.FilPageType:]); t != typ {
			return nil, fmt.Errorf("BLOB page %d: page type %d, not %d", no, t, typ)
		}
		if off+4 > len(p) {
			return nil, fmt.Errorf("BLOB page %d: offset %d", no, off)
		}
		next := be.Uint32(p[off:])
		at := off + 4
		if off == discovery.FilPageNext {
			at = FilData
		}
		stream = append(stream, p[at:]...)
		no, off, typ = next, discovery.FilPageNext, pageTypeZBlob2
	}
	zr, err := zlib.NewReader(bytes.NewReader(stream))
	if err != nil {
		return nil, fmt.Errorf("compressed BLOB at page %d: %v", be.Uint32(ref[4:]), err)
	}
	// The reference's length is a claim: the value grows as the stream (at most the chain's
	// pages) inflates, never allocated ahead.
	v, err := io.ReadAll(io.LimitReader(zr, int64(want)))
	if err == nil && len(v) < want {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, fmt.Errorf("compressed BLOB at page %d: %d bytes wanted: %v", be.Uint32(ref[4:]), want, err)
	}
	return append(local[:len(local)-fieldRefSize:len(local)-fieldRefSize], v...), nil
}

// scanPage emits the rows of leaf page no as EachPage read it (p is reused by EachPage):
// decompressed first in a compressed tablespace.
func (r *reader) scanPage(p []byte, no uint32, fn func(Row) error) error {
	if r.f.FSP.Flags.ZipSize == 0 {
		return r.page(append([]byte(nil), p...), no, fn)
	}
	u, err := pagezip.Decompress(p, r.f.FSP.Flags.PageSize)
	if err != nil {
		r.lose(p, no, "ROW_FORMAT=COMPRESSED page does not decompress: "+err.Error())
		return nil
	}
	return r.page(u, no, fn)
}
