package pagezip

import "fmt"

// A ROW_FORMAT=COMPRESSED index page begins its zlib stream with a description of the index,
// so that the page can be decompressed without the data dictionary. Each entry is one or two
// bytes: a run of consecutive NOT NULL fixed-length fields is merged into one entry whose
// length is their sum (the run is cut before DB_TRX_ID, which starts a new run, and before it
// would pass 768 bytes); a nullable fixed-length field is its own entry; a variable-length
// field says only whether it is nullable and whether its maximum length passes 255 bytes
// (then its length may take two bytes in the record header). The low bit of an entry is
// "NOT NULL". One last number follows: on leaf pages the position (in entries) of the run that
// starts with DB_TRX_ID (0: no such column, a secondary index), on node pointer pages the
// number of nullable fields of the whole index (the size of the NULL bitmap).

// zipField is one entry of that description.
type zipField struct {
	fixed    int // length of a fixed-length entry, 0 for a variable-length one
	nullable bool
	big      bool // variable-length with a maximum over 255 bytes
}

// zipIndex is the index a compressed page describes.
type zipIndex struct {
	flds      []zipField
	nullBytes int // NULL bitmap bytes of every record
	trxCol    int // entry starting with DB_TRX_ID (leaf pages of a clustered index), else -1
}

// maxFixed is DICT_MAX_FIXED_COL_LEN: a longer "fixed" column is stored as a variable one.
const maxFixed = 768

// decodeZipFields reads the index description b (the bytes before the first flush point of
// the stream) of a leaf page or a node pointer page.
func decodeZipFields(b []byte, leaf bool) (*zipIndex, error) {
	n := 0
	for i := 0; i < len(b); n++ {
		if b[i]&0x80 != 0 {
			i++
		}
		i++
		if i > len(b) {
			return nil, fmt.Errorf("index description of %d bytes ends inside an entry", len(b))
		}
	}
	n-- // the last number
	if n < 1 || n > 1023 {
		return nil, fmt.Errorf("index description with %d fields", n)
	}
	ix := &zipIndex{trxCol: -1}
	at, nullable := 0, 0
	for i := 0; i < n; i++ {
		v := int(b[at])
		at++
		var f zipField
		switch {
		case v&0x80 != 0:
			v = (v&0x7f)<<8 | int(b[at])
			at++
			f.fixed = v >> 1
		case v >= 126:
			f.big = true
		case v <= 1:
		default:
			f.fixed = v >> 1
		}
		if f.fixed > maxFixed {
			f.fixed, f.big = 0, true
		}
		f.nullable = v&1 == 0
		if f.nullable {
			nullable++
		}
		ix.flds = append(ix.flds, f)
	}
	v := int(b[at])
	if v&0x80 != 0 {
		v = (v&0x7f)<<8 | int(b[at+1])
	}
	if leaf {
		if v >= n {
			return nil, fmt.Errorf("index description: DB_TRX_ID at entry %d of %d", v, n)
		}
		if v != 0 {
			ix.trxCol = v
		}
	} else {
		if v < nullable {
			return nil, fmt.Errorf("index description: %d nullable fields, %d marked", v, nullable)
		}
		nullable = v
	}
	ix.nullBytes = (nullable + 7) / 8
	return ix, nil
}

// zipOffs is where the fields of one record are in the page (start[i] == end[i] for NULL).
type zipOffs struct {
	start, end []int
	ext        []bool
	anyExt     bool
	recEnd     int // end of the data bytes (after the child page number of a node pointer)
}

// offsets finds the fields of the record at rec on page p from its header, as the server's
// rec_get_offsets does for the index the page describes. A node pointer carries the child page
// number after its fields.
func (ix *zipIndex) offsets(p []byte, rec int, nodePtr bool, o *zipOffs) error {
	o.start, o.end, o.ext, o.anyExt = o.start[:0], o.end[:0], o.ext[:0], false
	nulls := rec - compactExtra - 1
	lens := nulls - ix.nullBytes
	if rec < zipStart+compactExtra || rec >= len(p) || lens < 0 {
		return fmt.Errorf("record at %d: header out of range", rec)
	}
	bit, at := 0, rec
	for _, f := range ix.flds {
		if f.nullable {
			null := p[nulls-bit/8]&(1<<(bit%8)) != 0
			bit++
			if null {
				o.start, o.end, o.ext = append(o.start, at), append(o.end, at), append(o.ext, false)
				continue
			}
		}
		l, ext := f.fixed, false
		if f.fixed == 0 {
			if lens < 0 {
				return fmt.Errorf("record at %d: header out of range", rec)
			}
			l = int(p[lens])
			lens--
			if f.big && l&0x80 != 0 {
				if lens < 0 {
					return fmt.Errorf("record at %d: header out of range", rec)
				}
				ext = l&0x40 != 0
				l = (l&0x3f)<<8 | int(p[lens])
				lens--
			}
		}
		o.start, o.end, o.ext = append(o.start, at), append(o.end, at+l), append(o.ext, ext)
		o.anyExt = o.anyExt || ext
		at += l
	}
	if nodePtr {
		at += 4
	}
	if at > len(p)-pageDirEnd {
		return fmt.Errorf("record at %d: data runs to %d, past the page", rec, at)
	}
	o.recEnd = at
	return nil
}

// logExtra is the length of a record header (without the 5 fixed bytes) that the modification
// log b carries first: the NULL bitmap and the field lengths, in the reverse order of the page.
func (ix *zipIndex) logExtra(b []byte) (int, error) {
	if ix.nullBytes > len(b) {
		return 0, fmt.Errorf("modification log ends in a record header")
	}
	lens, bit := ix.nullBytes, 0
	for _, f := range ix.flds {
		if f.nullable {
			null := b[bit/8]&(1<<(bit%8)) != 0
			bit++
			if null {
				continue
			}
		}
		if f.fixed != 0 {
			continue
		}
		if lens >= len(b) {
			return 0, fmt.Errorf("modification log ends in a record header")
		}
		l := b[lens]
		lens++
		if f.big && l&0x80 != 0 {
			lens++
		}
	}
	if lens >= len(b) {
		return 0, fmt.Errorf("modification log ends in a record header")
	}
	return lens, nil
}
