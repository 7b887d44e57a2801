package rows

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// MariaDB's instant ALTER TABLE, as the clustered index keeps it (10.3+ ADD COLUMN, 10.4+ DROP
// and reorder):
//   - the root page has the type FIL_PAGE_TYPE_INSTANT and PAGE_INSTANT holds the number of
//     "core" fields, present in every record; a record with more has the status
//     REC_STATUS_INSTANT and stores how many;
//   - the first record of the leftmost leaf is the metadata record (REC_INFO_MIN_REC_FLAG): its
//     fields are the values that records with fewer fields take for the fields they lack;
//   - after a DROP or reorder the metadata record is also delete-marked and carries, right
//     after DB_ROLL_PTR, a 20-byte reference to a single BLOB page: 4 bytes, the number of
//     fields after DB_ROLL_PTR in the physical record, then 2 bytes per such field: bit 15 set
//     for a dropped column (bit 14: it was NOT NULL; low bits: 0 variable length up to 255
//     bytes, 1 variable and longer, n > 1 fixed length n-1), else the column's position in
//     the table (SYS_COLUMNS.POS); and since the NULL bitmap of the core fields cannot be
//     derived any more, its size is kept in the 8th byte of the supremum record (the infimum
//     and supremum then hold zero bytes instead of their names).

// rootLayout sets up the record layout from the clustered index root page p.
func (t *Table) rootLayout(p []byte, compact, instantRoot bool, pageInstant int) (*layout, error) {
	lay := &layout{flds: t.fields, nCore: len(t.fields), nUniq: t.nUniq, vers: t.vers}
	if compact && instantRoot {
		if pageInstant < t.nUniq+2 || pageInstant > 1023 {
			return nil, fmt.Errorf("PAGE_INSTANT %d", pageInstant)
		}
		lay.nCore = pageInstant
	}
	if !compact {
		return lay, nil
	}
	if !bytes.Equal(p[infimumNew:infimumNew+8], []byte("infimum\x00")) {
		lay.nullBytes = int(p[supremumNew+7])
		return lay, nil
	}
	nullable := 0
	for _, f := range t.fields[:min(lay.nCore, len(t.fields))] {
		if f.nullable {
			nullable++
		}
	}
	lay.nullBytes = (nullable + 7) / 8
	return lay, nil
}

// metadataLayout reads the metadata BLOB the reference ref points to and rebuilds the
// physical field list from it.
func (r *reader) metadataLayout(ref []byte) error {
	be := binary.BigEndian
	no, want := be.Uint32(ref[4:]), int(be.Uint32(ref[16:]))
	p, err := r.fetch(no)
	if err != nil {
		return err
	}
	if why := r.checksum(p, no); why != "" {
		return fmt.Errorf("metadata BLOB page %d: %s", no, why)
	}
	if int(be.Uint32(p[FilData:])) != want || want < 4 || FilData+8+want > len(p) {
		return fmt.Errorf("metadata BLOB page %d: part length %d, reference length %d", no, be.Uint32(p[FilData:]), want)
	}
	b := p[FilData+8 : FilData+8+want]
	n := int(be.Uint32(b))
	if 4+2*n != len(b) {
		return fmt.Errorf("metadata BLOB page %d: %d fields in %d bytes", no, n, len(b))
	}
	flds := append([]field(nil), r.lay.flds[:r.lay.firstUser()]...)
	byPos := map[uint32]int{}
	for c := range r.t.Cols {
		byPos[r.t.Cols[c].InnoDB.Pos] = c
	}
	// The BLOB lists the fields after the key and the system columns: every column not in
	// the key once. A key column there, or one listed twice, is a definition (a .frm) of
	// another table.
	taken := map[int]bool{}
	for _, c := range r.t.PK {
		taken[c] = true
	}
	for i := 0; i < n; i++ {
		e := be.Uint16(b[4+2*i:])
		ind := e & 0x3ff
		if e&0x8000 != 0 {
			f := field{col: -1, name: fmt.Sprintf("(dropped #%d)", i), nullable: e&0x4000 == 0, big: ind == 1}
			if ind > 1 {
				f.fixed = int(ind) - 1
			}
			flds = append(flds, f)
			continue
		}
		c, ok := byPos[uint32(ind)]
		if !ok {
			return fmt.Errorf("metadata BLOB page %d: field %d is column %d, not in the definition", no, i, ind)
		}
		if taken[c] {
			return fmt.Errorf("metadata BLOB page %d: field %d is column %d (%s), a key column or one listed before", no, i, ind, r.t.Cols[c].Name)
		}
		taken[c] = true
		flds = append(flds, colField(c, r.t.Cols[c].InnoDB))
	}
	if len(flds)-r.lay.firstUser() < len(r.t.Cols)-len(r.t.PK) {
		return fmt.Errorf("metadata BLOB page %d: %d fields for %d columns", no, n, len(r.t.Cols))
	}
	r.lay.flds = flds
	return nil
}
