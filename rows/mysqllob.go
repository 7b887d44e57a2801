package rows

import (
	"encoding/binary"
	"fmt"
)

// MySQL 8.0's LOB format (WL#8960, storage/innobase/include/lob0first.h, lob0index.h,
// lob0data.h): an off-page value of an uncompressed table begins on a LOB first page
// (FIL_PAGE_TYPE_LOB_FIRST), whose header after FIL_PAGE_DATA holds the version (1 byte), flags
// (1), LOB version (4), last transaction id (6) and undo number (4), the length of the data on
// this page (4), the creator's transaction id (6), the base node of the index list (16: its
// length, first and last address, each a page number of 4 and an offset of 2 bytes) and of the
// free list (16); then room for 10 index entries of 60 bytes, then the data. Each index entry:
// previous and next address (6 each), the base node of its older versions (16), transaction ids
// and undo numbers of its creator and modifier (6+6+4+4), the page of its data (4), the length
// of that data (2), the LOB version (4). The entries in list order give the value: the first
// one's data is on the first page, the others' on LOB data pages (FIL_PAGE_TYPE_LOB_DATA), whose
// header after FIL_PAGE_DATA is the version (1), the data length (4) and the transaction id (6),
// then the data. Entries beyond the first page's 10 are on LOB index pages; the list's
// addresses reach them wherever they are. Older versions (a partial update) are not read.
const (
	pageTypeLOBFirst = 24
	pageTypeLOBData  = 23
	pageTypeLOBIndex = 22
	lobFirstIndex    = FilData + 26
	lobFirstData     = FilData + 58 + 10*lobEntrySize
	lobFirstDataLen  = FilData + 16
	lobEntrySize     = 60
	lobDataData      = FilData + 11
	lobDataLen       = FilData + 1
)

// mysqlLOB reads the off-page value whose LOB first page is p (page no) and that holds want
// bytes after the local prefix.
func (r *reader) mysqlLOB(p []byte, no uint32, prefix []byte, want int) ([]byte, error) {
	be := binary.BigEndian
	out := append(make([]byte, 0, len(prefix)+min(want, 4*r.f.Physical)), prefix...)
	n := int(be.Uint32(p[lobFirstIndex:]))
	at, off := be.Uint32(p[lobFirstIndex+4:]), int(be.Uint16(p[lobFirstIndex+8:]))
	got := 0
	pages := map[uint32][]byte{no: p}
	page := func(pn uint32, i int) ([]byte, error) {
		if q, ok := pages[pn]; ok {
			return q, nil
		}
		q, err := r.blobPage(pn, i)
		if err != nil {
			return nil, err
		}
		pages = map[uint32][]byte{no: p, pn: q} // keep the first page and the last one read
		return q, nil
	}
	for i := 0; i < n; i++ {
		if at == filNull {
			return nil, fmt.Errorf("LOB first page %d: index list ends after %d of %d entries", no, i, n)
		}
		ip, err := page(at, i)
		if err != nil {
			return nil, err
		}
		if off < FilData || off+lobEntrySize > len(ip)-8 {
			return nil, fmt.Errorf("LOB index entry %d at page %d offset %d: out of the page", i, at, off)
		}
		e := ip[off : off+lobEntrySize]
		nextAt, nextOff := be.Uint32(e[6:]), int(be.Uint16(e[10:]))
		dataPage, dataLen := be.Uint32(e[48:]), int(be.Uint16(e[52:]))
		var data []byte
		if dataPage == no {
			if dataLen != int(be.Uint32(p[lobFirstDataLen:])) || lobFirstData+dataLen > len(p)-8 {
				return nil, fmt.Errorf("LOB first page %d: data of %d bytes (the page says %d)", no, dataLen, be.Uint32(p[lobFirstDataLen:]))
			}
			data = p[lobFirstData : lobFirstData+dataLen]
		} else {
			dp, err := page(dataPage, i)
			if err != nil {
				return nil, err
			}
			if typ := be.Uint16(dp[24:]); typ != pageTypeLOBData {
				return nil, fmt.Errorf("LOB data page %d: page type %d, not a LOB data page (%d)", dataPage, typ, pageTypeLOBData)
			}
			if dataLen != int(be.Uint32(dp[lobDataLen:])) || lobDataData+dataLen > len(dp)-8 {
				return nil, fmt.Errorf("LOB data page %d: data of %d bytes (the page says %d)", dataPage, dataLen, be.Uint32(dp[lobDataLen:]))
			}
			data = dp[lobDataData : lobDataData+dataLen]
		}
		if got+len(data) > want {
			return nil, fmt.Errorf("LOB first page %d: the pages hold more than the reference's %d bytes", no, want)
		}
		out = append(out, data...)
		got += len(data)
		at, off = nextAt, nextOff
	}
	if got != want {
		return nil, fmt.Errorf("LOB first page %d: %d bytes, the reference says %d", no, got, want)
	}
	return out, nil
}
