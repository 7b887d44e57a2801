package discovery

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzPage decodes arbitrary bytes as a page under every page size: headers, flags, checksum
// verdicts and the index page header must give errors, never panics.
func FuzzPage(f *testing.F) {
	seed := make([]byte, 16384)
	binary.BigEndian.PutUint32(seed[fspFlags:], 0x15)
	binary.BigEndian.PutUint16(seed[FilPageType:], uint16(PageIndex))
	f.Add(seed[:4096], uint32(0x15))
	f.Add(seed, uint32(0))
	f.Fuzz(func(t *testing.T, p []byte, flags uint32) {
		if len(p) > 1<<16 {
			return
		}
		fl, err := DecodeFlags(flags)
		ParseFilHeader(p)
		ParseFSPHeader(p)
		ParseIndexPage(p)
		for _, size := range []int{1024, 2048, 4096, 8192, 16384, 32768, 65536} {
			if len(p) >= size && err == nil {
				CheckPage(p[:size], fl, 0, 0)
				ParseIndexPage(p[:size])
			}
		}
	})
}

// FuzzOpenFile lays the input (page 0's first bytes, flags included) into a four-page file image
// and inspects it with verification: small inputs keep the fuzzer fast while the file still has
// several pages of the size its flags announce.
func FuzzOpenFile(f *testing.F) {
	seed := make([]byte, fspHeaderEnd+8)
	binary.BigEndian.PutUint32(seed[fspFlags:], 0x13) // full_crc32, 4 KiB pages
	f.Add(seed, uint16(0))
	f.Fuzz(func(t *testing.T, b []byte, at uint16) {
		if len(b) > 4096 || len(b) < fspHeaderEnd {
			return
		}
		size := 16384
		if fl, err := DecodeFlags(binary.BigEndian.Uint32(b[fspFlags:])); err == nil {
			size = fl.PageSize
			if fl.ZipSize != 0 {
				size = fl.ZipSize
			}
		}
		img := make([]byte, 4*size)
		copy(img, b)
		copy(img[int(at)%(3*size)+size:], b) // and somewhere in a later page
		tf, err := NewFile(bytes.NewReader(img), int64(len(img)), "fuzz.ibd")
		if err != nil {
			return
		}
		if _, err := Inspect(tf, InspectOptions{Verify: true, To: -1, FutureLSN: 1}); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzDict runs the SYS_TABLES walk over an arbitrary system tablespace image: pointers into
// records, node pointers and leaf chains are all hostile, and must give errors, not panics or
// endless loops.
func FuzzDict(f *testing.F) {
	img := make([]byte, 12*4096)
	binary.BigEndian.PutUint32(img[fspFlags:], 0x13) // full_crc32, 4 KiB pages
	binary.BigEndian.PutUint32(img[7*4096+dictHdrTables:], 8)
	root := img[8*4096 : 9*4096]
	binary.BigEndian.PutUint16(root[FilPageType:], uint16(PageIndex))
	binary.BigEndian.PutUint16(root[infimumOld-2:], supremumOld)
	f.Add(img)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<20 {
			return
		}
		tf, err := NewFile(bytes.NewReader(b), int64(len(b)), "ibdata1")
		if err != nil {
			return
		}
		ReadDictTables(tf)
		DoublewriteCopies(tf)
	})
}

// FuzzUndoRecord decodes arbitrary bytes as the body of an undo record: errors, never panics.
func FuzzUndoRecord(f *testing.F) {
	f.Add([]byte{UndoRenameTable, 0, 0x81, 0xc2, 'd', 'b', '/', 't'})
	f.Add([]byte{UndoInsertRec, 2, DictTablesID, 4, 'd', 'b', '/', 't'})
	f.Add([]byte{UndoInsertRec, 19, DictIndexesID, 8, 0, 0, 0, 0, 0, 0, 1, 0xcd, 8, 0, 0, 0, 0, 0, 0, 3, 0xa6})
	f.Add([]byte{UndoInsertRec, 0xff, 0xf0, 1, 2, 3, 4, 5})
	f.Fuzz(func(t *testing.T, b []byte) {
		ParseUndoRecord(b)
	})
}

// FuzzUndoTrxs lays the input into the undo log header page of a one-slot rollback segment
// (from the segment header on, and as a second page of the log) and walks TRX_SYS: errors,
// never panics, and no endless walk.
func FuzzUndoTrxs(f *testing.F) {
	const ps = 4096
	hdr := make([]byte, 200)
	be := binary.BigEndian
	be.PutUint16(hdr[0:], 86+undoLogHdrSize) // TRX_UNDO_PAGE_START (relative to FilPageData)
	be.PutUint16(hdr[2:], 86+undoLogHdrSize+12)
	be.PutUint16(hdr[undoState-FilPageData:], UndoActive)
	be.PutUint16(hdr[undoLastLog-FilPageData:], 86)
	f.Add(hdr, uint32(filNull))
	f.Add(hdr, uint32(4))
	f.Fuzz(func(t *testing.T, b []byte, next uint32) {
		if len(b) > ps-FilPageData-8 {
			return
		}
		pages := map[uint32][]byte{}
		sys := make([]byte, ps)
		for i := 0; i < trxSysNRsegs; i++ {
			be.PutUint32(sys[trxSysRsegs+8*i+4:], filNull)
		}
		be.PutUint32(sys[trxSysRsegs+4:], 6) // rollback segment 0: space 0 page 6
		pages[trxSysPage] = sys
		rseg := make([]byte, ps)
		for s := 0; rsegUndoSlots+4*s+4 <= ps; s++ {
			be.PutUint32(rseg[rsegUndoSlots+4*s:], filNull)
		}
		be.PutUint32(rseg[rsegUndoSlots:], 3)
		pages[6] = rseg
		for _, no := range []uint32{3, 4} {
			p := make([]byte, ps)
			be.PutUint16(p[FilPageType:], pageTypeUndo)
			copy(p[FilPageData:], b)
			be.PutUint32(p[undoPageNode+6:], next)
			pages[no] = p
		}
		ReadUndoTrxs(func(space, no uint32) ([]byte, error) {
			if p, ok := pages[no]; ok && space == 0 {
				return p, nil
			}
			return nil, io.ErrUnexpectedEOF
		})
	})
}

// FuzzMyCnf reads arbitrary text as a my.cnf: an error or options, never a panic; every key it
// returns is spelled with '_', as NewLayout looks them up.
func FuzzMyCnf(f *testing.F) {
	f.Add("[mysqld]\ndatadir = \"/a # b\" # c\nloose-innodb-page-size='8k'\n!includedir /nonexistent\n")
	f.Add("[client-server]\n!include /dev/null\n[x\n")
	f.Add("[MYSQLD]\n  innodb-log-group-home-dir = /l;x\n[galera]\nloose-datadir=/d#\n")
	f.Fuzz(func(t *testing.T, text string) {
		if strings.Contains(text, "!include") {
			return // no reading of the machine's files
		}
		p := filepath.Join(t.TempDir(), "my.cnf")
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		opts, err := ReadMyCnf(p)
		if err != nil {
			return
		}
		for k := range opts {
			if strings.Contains(k, "-") {
				t.Errorf("key %q", k)
			}
		}
	})
}
