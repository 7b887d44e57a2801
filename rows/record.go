package rows

import (
	"encoding/binary"
	"fmt"

	"innoscope/schema"
)

// Record status values (the low 3 bits of the byte 3 before a COMPACT record's origin).
const (
	statusOrdinary = 0
	statusNodePtr  = 1
	statusInfimum  = 2
	statusSupremum = 3
	statusInstant  = 4 // MariaDB: a leaf record with fields added by instant ALTER (or the metadata)

	infoMinRec  = 0x10
	infoDeleted = 0x20
	infoVersion = 0x40 // MySQL 8.0.29+: the record's row version is the byte before its NULL bitmap
	infoInstant = 0x80 // MySQL 8.0.12-8.0.28: the record carries its number of fields

	compactExtra   = 5 // REC_N_NEW_EXTRA_BYTES
	redundantExtra = 6 // REC_N_OLD_EXTRA_BYTES
	infimumNew     = 99
	supremumNew    = 112
	infimumOld     = 101
	supremumOld    = 116
)

// value is one field of a record: its bytes in the page (the local part of an off-page one).
type value struct {
	b    []byte
	null bool
	ext  bool // stored off page: b ends with the 20-byte reference
}

// record is a decoded record header and its fields.
type record struct {
	info   byte
	status byte
	next   int // origin of the next record, 0 when none
	vals   []value
	mblob  []byte // the metadata BLOB reference of an instant DROP/reorder metadata record
	// ver is a MySQL 8.0.29+ record's row version (infoVersion; 0 without it); hdr and end are
	// where a COMPACT record's header begins and its data ends.
	ver, hdr, end int
}

// compactNext is the origin of the record after the one at origin (0: none).
func compactNext(p []byte, origin int) int {
	rel := binary.BigEndian.Uint16(p[origin-2:])
	if rel == 0 {
		return 0
	}
	return (origin + int(rel)) & (len(p) - 1)
}

// layout is the clustered index as its records are stored.
type layout struct {
	flds      []field
	nCore     int // fields present in every record (before instant ADD COLUMN)
	nullBytes int // NULL bitmap bytes of an ordinary record or a node pointer
	nUniq     int // key fields
	// vers are the MySQL row versions of each of flds (nil: none): an ordinary record stores
	// the fields of its version only.
	vers []*schema.RowVersion
}

// firstUser is the position of the first field after DB_TRX_ID and DB_ROLL_PTR, where a
// metadata record with a BLOB carries it.
func (l *layout) firstUser() int { return l.nUniq + 2 }

// decodeCompact decodes the COMPACT/DYNAMIC record at origin of page p. A record carrying
// fewer fields than the index (instant ADD COLUMN) leaves the rest out of vals. mblob: the
// record is the metadata record of an instant DROP or reorder, with the 20-byte reference to
// the metadata BLOB after DB_ROLL_PTR (no length byte, no NULL bit), returned in record.mblob.
// The fields are appended to buf[:0].
func decodeCompact(p []byte, origin int, lay *layout, mblob bool, buf []value) (record, error) {
	if origin < infimumNew || origin >= len(p)-8 {
		return record{}, fmt.Errorf("record origin %d out of range", origin)
	}
	flds := lay.flds
	r := record{info: p[origin-5] & 0xf0, status: p[origin-3] & 7, next: compactNext(p, origin)}
	n := 0
	nulls := origin - compactExtra - 1 // the NULL bitmap, read backwards
	nullBytes := lay.nullBytes
	switch r.status {
	case statusInfimum, statusSupremum:
		return r, nil
	case statusNodePtr:
		n = lay.nUniq
	case statusOrdinary:
		n = lay.nCore
		if lay.vers != nil {
			var err error
			if r.ver, nulls, nullBytes, err = versionHeader(p, origin, lay, r.info); err != nil {
				return r, err
			}
			n = len(flds)
		}
	case statusInstant:
		if nulls < FilData {
			return r, fmt.Errorf("record at %d: header out of range", origin)
		}
		add := int(p[nulls])
		nulls--
		if add >= 0x80 {
			add = add&0x7f | int(p[nulls])<<7
			nulls--
		}
		n = lay.nCore + 1 + add
		if mblob {
			n--
		}
		if n > len(flds) {
			return r, fmt.Errorf("record at %d: %d fields, the index has %d", origin, n, len(flds))
		}
		nullable := 0
		for _, f := range flds[:n] {
			if f.nullable {
				nullable++
			}
		}
		nullBytes = (nullable + 7) / 8
	default:
		return r, fmt.Errorf("record at %d: status %d", origin, r.status)
	}
	if n > len(flds) {
		return r, fmt.Errorf("record at %d: %d fields, the index has %d", origin, n, len(flds))
	}
	lens := nulls - nullBytes
	if lens < FilData {
		return r, fmt.Errorf("record at %d: header out of range", origin)
	}
	bit := 0
	at := origin
	r.vals = buf[:0]
	for i, f := range flds[:n] {
		if lay.vers != nil && !lay.vers[i].In(r.ver) { // not stored in a record of its version
			r.vals = append(r.vals, absent(lay.vers[i], r.ver))
			continue
		}
		if mblob && i == lay.firstUser() {
			if at+fieldRefSize > len(p)-8 {
				return r, fmt.Errorf("record at %d: metadata BLOB reference runs past the page", origin)
			}
			r.mblob = p[at : at+fieldRefSize]
			at += fieldRefSize
		}
		if f.nullable {
			isNull := p[nulls-bit/8]&(1<<(bit%8)) != 0
			bit++
			if isNull {
				r.vals = append(r.vals, value{null: true})
				continue
			}
		}
		v, err := compactField(p, origin, f, &at, &lens)
		if err != nil {
			return r, err
		}
		r.vals = append(r.vals, v)
	}
	r.hdr, r.end = lens+1, at
	if r.status == statusNodePtr {
		if at+4 > len(p)-8 {
			return r, fmt.Errorf("record at %d: child page number runs past the page", origin)
		}
		r.vals = append(r.vals, value{b: p[at : at+4]})
	}
	return r, nil
}

// compactField reads field f of the COMPACT record at origin: its bytes at *at, its length
// (unless fixed) at *lens of the lengths read backwards; both move past it.
func compactField(p []byte, origin int, f field, at, lens *int) (value, error) {
	l, ext := f.fixed, false
	if l == 0 {
		if *lens < FilData {
			return value{}, fmt.Errorf("record at %d: header out of range", origin)
		}
		l = int(p[*lens])
		*lens--
		if f.big && l&0x80 != 0 {
			ext = l&0x40 != 0
			l = (l&0x3f)<<8 | int(p[*lens])
			*lens--
		}
	}
	if *at+l > len(p)-8 {
		return value{}, fmt.Errorf("record at %d: field %s of %d bytes runs past the page", origin, f.name, l)
	}
	v := value{b: p[*at : *at+l], ext: ext}
	*at += l
	return v, nil
}

// versionHeader reads the header of an ordinary record of a MySQL 8.0.29+ table with row
// versions (info bits info): with infoVersion its row version is the byte before the NULL
// bitmap, else it is 0 (written before the first INSTANT ALTER). The record stores the fields
// of its version only (added in it or before, not dropped by it), each nullable one with a NULL
// bit. It gives the version, where the NULL bitmap ends (read backwards) and its bytes.
func versionHeader(p []byte, origin int, lay *layout, info byte) (ver, nulls, nullBytes int, err error) {
	nulls = origin - compactExtra - 1
	switch {
	case info&infoVersion != 0:
		if nulls < FilData {
			return 0, 0, 0, fmt.Errorf("record at %d: header out of range", origin)
		}
		ver = int(p[nulls])
		nulls--
	case info&infoInstant != 0:
		return 0, 0, 0, fmt.Errorf("record at %d: a record of an 8.0.12-8.0.28 INSTANT ADD COLUMN (its number of fields in its header), which innoscope does not decode yet", origin)
	}
	nullable := 0
	for i, f := range lay.flds {
		if f.nullable && lay.vers[i].In(ver) {
			nullable++
		}
	}
	return ver, nulls, (nullable + 7) / 8, nil
}

// absent is the value of a field a record of version ver does not store: the default of a
// column added later, else NULL (a dropped column, which is no column).
func absent(rv *schema.RowVersion, ver int) value {
	if rv.Added > ver && rv.Default != nil {
		return value{b: rv.Default}
	}
	return value{null: true}
}

// versionedRedundant spreads the stored fields of a ROW_FORMAT=REDUNDANT leaf record of a
// MySQL table with row versions over the index's fields: a record stores the fields of its
// version only (versionHeader says which); the others take their default, or NULL.
func versionedRedundant(rec record, lay *layout, out []value) ([]value, error) {
	k := 0
	for i := range lay.flds {
		rv := lay.vers[i]
		switch {
		case rv.In(rec.ver):
			if k >= len(rec.vals) {
				return out, fmt.Errorf("%d fields stored, row version %d has more", len(rec.vals), rec.ver)
			}
			out = append(out, rec.vals[k])
			k++
		default:
			out = append(out, absent(rv, rec.ver))
		}
	}
	if k != len(rec.vals) {
		return out, fmt.Errorf("%d fields stored, row version %d has %d", len(rec.vals), rec.ver, k)
	}
	return out, nil
}

// FilData is where a page's payload starts (FIL_PAGE_DATA).
const FilData = 38

// decodeRedundant decodes the ROW_FORMAT=REDUNDANT record at origin: the end offset of every
// field is stored before the 6 header bytes, last field first, in 1 or 2 bytes; in 2 bytes the
// bit 0x4000 marks a field stored off page, 0x8000 (0x80 in 1 byte) SQL NULL.
func decodeRedundant(p []byte, origin int, buf []value) (record, error) {
	return redundantRecord(p, origin, false, buf)
}

// redundantRecord is decodeRedundant; versioned: the record is of a MySQL table with row
// versions, where the info bit infoVersion says a row version byte precedes the offsets
// (MariaDB's records never have that bit; read as one of them, a page of another format must
// not be read so).
func redundantRecord(p []byte, origin int, versioned bool, buf []value) (record, error) {
	if origin < infimumOld || origin >= len(p)-8 {
		return record{}, fmt.Errorf("record origin %d out of range", origin)
	}
	r := record{info: p[origin-6] & 0xf0, next: int(binary.BigEndian.Uint16(p[origin-2:]))}
	if origin == infimumOld || origin == supremumOld {
		r.status = statusInfimum
		if origin == supremumOld {
			r.status = statusSupremum
		}
		return r, nil
	}
	n := int(binary.BigEndian.Uint16(p[origin-4:])&0x7fe) >> 1
	short := p[origin-3]&1 != 0
	w := 2
	if short {
		w = 1
	}
	extra := redundantExtra
	if versioned && r.info&infoVersion != 0 { // MySQL 8.0.29+: the row version, then the field offsets
		r.ver = int(p[origin-redundantExtra-1])
		extra++
	}
	if n == 0 || origin-extra-n*w < FilData {
		return r, fmt.Errorf("record at %d: %d fields do not fit", origin, n)
	}
	start := 0
	r.vals = buf[:0]
	for i := 0; i < n; i++ {
		at := origin - extra - (i+1)*w
		var end int
		var null, ext bool
		if short {
			end, null = int(p[at]&0x7f), p[at]&0x80 != 0
		} else {
			v := binary.BigEndian.Uint16(p[at:])
			end, null, ext = int(v&0x3fff), v&0x8000 != 0, v&0x4000 != 0
		}
		if end < start || origin+end > len(p)-8 {
			return r, fmt.Errorf("record at %d: field %d ends at %d", origin, i, end)
		}
		r.vals = append(r.vals, value{b: p[origin+start : origin+end], null: null, ext: ext})
		start = end
	}
	return r, nil
}
