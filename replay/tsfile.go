package replay

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"

	"innoscope/discovery"
)

// tsFile is one tablespace of the working copy: its files (the system tablespace may span
// several innodb_data_file_path files, each holding a run of pages), its flags, and what
// recovery does to it besides writing pages.
type tsFile struct {
	id       uint32
	path     string // the (first) file's path in the copy
	segs     []segment
	flags    discovery.Flags
	phys     int  // bytes per page on disk
	logical  int  // innodb_page_size
	flagsSet bool // flags come from a valid page 0 (not a default for an unwritten file)
	created  bool // recovery created the file
	written  int  // pages written
	trimTo   int64
	// cut is where the server finds the end of a file shorter than the FSP_SIZE its page 0
	// gives (discovery.CutShort), 0 for a file that is not cut short (page 0 is in it).
	cut int64
	// page0 is page 0 restored from the doublewrite buffer in memory, for a read-only recovery
	// (nil: page 0 is read from the file).
	page0 []byte
}

// TruncatedError is a page recovery must read (no INIT_PAGE rebuilds it) that lies beyond the end
// of a file cut short: the server refuses to start ("Unable to apply log to corrupted page").
type TruncatedError struct {
	Space      uint32
	Path       string
	Page       uint32
	Pages, Cut int64 // the file's whole pages, and where the server finds its end
	Phys       int   // bytes per page
	FSPSize    uint32
}

func (e *TruncatedError) Error() string {
	return fmt.Sprintf("%s: offset %d: tablespace %d: recovery must read page %d, beyond the end of the file: it holds %d pages (the server counts %d, whole extents) where the FSP_SIZE of its page 0 says %d: the file was cut short, and the server refuses to start (\"Unable to apply log to corrupted page %d\"); restore the whole file",
		e.Path, e.Pages*int64(e.Phys), e.Space, e.Page, e.Pages, e.Cut, e.FSPSize, e.Cut)
}

// segment is one file of a tablespace: pages [first, first+count) live in it (count < 0: the
// last file, unbounded).
type segment struct {
	f     *os.File
	path  string
	first int64
	count int64
	def   *deferredFile // the pages the copy left out of the file (nil: none)
}

func (t *tsFile) String() string { return fmt.Sprintf("tablespace %d (%s)", t.id, t.path) }

// locate returns the file holding page no and the byte offset in it.
func (t *tsFile) locate(no uint32) (*segment, int64) {
	for i := range t.segs {
		s := &t.segs[i]
		if int64(no) >= s.first && (s.count < 0 || int64(no) < s.first+s.count) {
			return s, (int64(no) - s.first) * int64(t.phys)
		}
	}
	return nil, 0
}

// read returns page no as stored (a zero page beyond the end of the file).
func (t *tsFile) read(no uint32) ([]byte, error) {
	p := make([]byte, t.phys)
	return p, t.readInto(no, p)
}

// readInto reads page no into p (t.phys bytes; zero beyond the end of the file).
func (t *tsFile) readInto(no uint32, p []byte) error {
	if no == 0 && t.page0 != nil {
		copy(p, t.page0)
		clear(p[min(len(p), len(t.page0)):])
		return nil
	}
	s, off := t.locate(no)
	if s == nil {
		return fmt.Errorf("%s: page %d is beyond the system tablespace files", t, no)
	}
	switch s.def.state(off, int64(len(p))) {
	case fromSource:
		return s.def.readAt(p, off)
	case mixed:
		if err := s.def.materialize(s.f); err != nil {
			return err
		}
	}
	n, err := s.f.ReadAt(p, off)
	if err != nil && !(err == io.EOF && (n == 0 || n == len(p))) {
		if err == io.EOF {
			return fmt.Errorf("%s: offset %d: page %d is cut short by the end of the file", s.path, off, no)
		}
		return fmt.Errorf("%s: offset %d: %w", s.path, off, err)
	}
	clear(p[n:])
	return nil
}

// write stores page no.
func (t *tsFile) write(no uint32, p []byte) error {
	s, off := t.locate(no)
	if s == nil {
		return fmt.Errorf("%s: page %d is beyond the system tablespace files", t, no)
	}
	if len(p) != t.phys {
		// A frame of another size would spill into the next page or leave a gap.
		return fmt.Errorf("%s: offset %d: page %d is %d bytes, the tablespace's pages are %d", s.path, off, no, len(p), t.phys)
	}
	st := s.def.state(off, int64(len(p)))
	if st == mixed {
		if err := s.def.materialize(s.f); err != nil {
			return err
		}
	}
	if _, err := s.f.WriteAt(p, off); err != nil {
		return fmt.Errorf("%s: offset %d: writing page %d: %w", s.path, off, no, err)
	}
	if st == fromSource {
		s.def.wrote(off)
	}
	t.written++
	return nil
}

// setFlags adopts the flags of page 0 once it holds valid ones.
func (t *tsFile) setFlags(page0 []byte) {
	raw := binary.BigEndian.Uint32(page0[discovery.FSPFlags:])
	if fl, err := discovery.DecodeFlags(raw); err == nil && fl.PageSize == t.logical {
		t.flags, t.flagsSet = fl, true
		if fl.ZipSize != 0 {
			t.phys = fl.ZipSize
		}
	}
}

// checkEncryption refuses a tablespace whose page 0 says its pages are (being) encrypted:
// recovery would have to decrypt them, and write new pages encrypted.
func (t *tsFile) checkEncryption() error {
	p0, err := t.read(0)
	if err != nil {
		return err
	}
	if scheme, ok := discovery.EncryptionScheme(p0, t.flags); ok && scheme != discovery.CryptUnencrypted {
		return unsupported("%s is encrypted (encryption scheme %d on page 0): innoscope cannot decrypt it; recover with the server and its key management plugin",
			t, scheme)
	}
	return nil
}

// pages is the number of whole pages in the files.
func (t *tsFile) pages() (int64, error) {
	var n int64
	for _, s := range t.segs {
		fi, err := s.f.Stat()
		if err != nil {
			return 0, err
		}
		if s.count >= 0 {
			n += s.count
			continue
		}
		n += fi.Size() / int64(t.phys)
	}
	return n, nil
}

// resize makes the last file end at page n (growing sparsely or truncating).
func (t *tsFile) resize(n int64) error {
	s := &t.segs[len(t.segs)-1]
	if err := s.def.materialize(s.f); err != nil {
		return err
	}
	size := (n - s.first) * int64(t.phys)
	if size < 0 {
		size = 0
	}
	if err := s.f.Truncate(size); err != nil {
		return fmt.Errorf("%s: resizing to %d pages: %w", s.path, n, err)
	}
	return nil
}

// sync is where the replay is done with a tablespace's files. It does not fsync them: the
// copy is made durable as a whole by one syncfs (Copy.Sync) before its log is written.
func (t *tsFile) sync() error { return nil }

func (t *tsFile) close() {
	for _, s := range t.segs {
		s.f.Close()
	}
}
