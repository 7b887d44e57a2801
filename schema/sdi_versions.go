package schema

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// RowVersion is what MySQL 8.0.29+ keeps of a column an INSTANT ALTER added or dropped (the
// column's se_private_data): the row versions that added it (0: there from the start) and
// dropped it (0: not dropped), and the value, as stored, of the records older than Added (nil:
// NULL). A table with row versions stores every column at its physical_pos, dropped ones
// included, and each record says its version (or is of version 0).
type RowVersion struct {
	Added, Dropped int
	Default        []byte
}

// In reports whether a record of row version v stores the column.
func (rv *RowVersion) In(v int) bool {
	return rv == nil || rv.Added <= v && (rv.Dropped == 0 || rv.Dropped > v)
}

// hasRowVersions reports whether a column of d was added or dropped by an 8.0.29+ INSTANT
// ALTER.
func hasRowVersions(d *DDTable) bool {
	for _, c := range d.Columns {
		m := privateData(c.SEPrivateData)
		if _, ok := m["version_added"]; ok {
			return true
		}
		if _, ok := m["version_dropped"]; ok {
			return true
		}
	}
	return false
}

// rowVersionOf reads the physical position of column c of a table with row versions, and its
// RowVersion (nil: a column of the table as created, never dropped).
func rowVersionOf(c DDColumn) (uint32, *RowVersion, error) {
	m := privateData(c.SEPrivateData)
	p, err := strconv.ParseUint(m["physical_pos"], 10, 32)
	if err != nil {
		return 0, nil, fmt.Errorf("column %s: no physical_pos in se_private_data %q", c.Name, c.SEPrivateData)
	}
	num := func(k string) (int, error) {
		s, ok := m[k]
		if !ok {
			return 0, nil
		}
		n, err := strconv.ParseUint(s, 10, 8)
		if err != nil || n == 0 {
			return 0, fmt.Errorf("column %s: %s=%q in se_private_data", c.Name, k, s)
		}
		return int(n), nil
	}
	added, err := num("version_added")
	if err != nil {
		return 0, nil, err
	}
	dropped, err := num("version_dropped")
	if err != nil {
		return 0, nil, err
	}
	if added == 0 && dropped == 0 {
		return uint32(p), nil, nil
	}
	rv := &RowVersion{Added: added, Dropped: dropped}
	if added > 0 && dropped == 0 && m["default_null"] != "1" { // a dropped column is no column
		s, ok := m["default"]
		if !ok {
			return 0, nil, fmt.Errorf("column %s: added in row version %d without a default in se_private_data %q", c.Name, added, c.SEPrivateData)
		}
		if rv.Default, err = hex.DecodeString(s); err != nil {
			return 0, nil, fmt.Errorf("column %s: default %q in se_private_data: %v", c.Name, s, err)
		}
		if rv.Default == nil {
			rv.Default = []byte{} // an empty string, not NULL
		}
	}
	return uint32(p), rv, nil
}

// droppedName reports whether a column name is one MySQL gives a column an INSTANT DROP
// dropped ("!hidden!_dropped_v1_p3_b").
func droppedName(name string) bool { return strings.HasPrefix(name, "!hidden!") }
