package rows

import (
	"fmt"
	"sort"
	"strings"

	"innoscope/discovery"
)

// Index is the table as one of its secondary indexes holds it: the index's columns in index
// order, then the clustered index key columns the index does not contain (every secondary
// index record carries them, or DB_ROW_ID when the table has no primary key), read from the
// index's own B-tree. Its rows come in index order, as `SELECT <those columns> FROM t FORCE
// INDEX (name) ORDER BY <those columns>` gives them; what the index holds is all a table whose
// clustered index is damaged still has of those columns. A DESC column of the index (or of
// the primary key it carries) reverses that order on it, as `ORDER BY ... DESC` does. Indexes
// on a column prefix (whose records hold a truncated value) are refused.
func (t *Table) Index(name string) (*Table, error) {
	var ix *discovery.DictIndex
	var names []string
	for i := range t.idxs {
		d := &t.idxs[i]
		if d.TableID != t.tableID || d.Deleted || d.Type&dictClustered != 0 {
			continue
		}
		names = append(names, d.Name)
		if strings.EqualFold(d.Name, name) {
			ix = d
		}
	}
	if ix == nil {
		if len(names) == 0 {
			return nil, fmt.Errorf("%s: table %s has no secondary index", t.File, t.shown)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("%s: table %s has no index %s (its secondary indexes: %s)", t.File, t.shown, name, strings.Join(names, ", "))
	}
	if ix.Type&dictVirtual != 0 {
		return nil, fmt.Errorf("%s: index %s of %s holds a VIRTUAL column (computed by the server, not stored in the table): not supported", t.File, ix.Name, t.shown)
	}
	if ix.Type&^dictUnique != 0 {
		return nil, fmt.Errorf("%s: index %s of %s is of type %d (FULLTEXT, SPATIAL or another kind): not supported", t.File, ix.Name, t.shown, ix.Type)
	}
	var key []discovery.DictField
	for _, f := range t.flds {
		if f.IndexID == ix.ID && !f.Deleted {
			key = append(key, f)
		}
	}
	sort.Slice(key, func(i, j int) bool { return key[i].Pos < key[j].Pos })
	u := *t
	u.Root, u.IndexID, u.IndexName, u.Cols, u.PK, u.fields = ix.PageNo, ix.ID, ix.Name, nil, nil, nil
	in := map[int]bool{}
	add := func(c int) {
		in[c] = true
		u.PK = append(u.PK, len(u.Cols))
		u.fields = append(u.fields, colField(len(u.Cols), t.Cols[c].Dict))
		u.Cols = append(u.Cols, t.Cols[c])
	}
	for _, k := range key {
		c := -1
		for i, col := range t.Cols {
			if strings.EqualFold(col.Name, k.ColName) {
				c = i
			}
		}
		if c < 0 {
			return nil, fmt.Errorf("%s: index %s column %s is not a column of %s", t.File, ix.Name, k.ColName, t.shown)
		}
		if n, _ := keyField(k, len(u.Cols) == 0); n != 0 {
			return nil, fmt.Errorf("%s: index %s of %s holds a prefix of column %s: not supported", t.File, ix.Name, t.shown, k.ColName)
		}
		add(c)
	}
	if len(t.PK) == 0 {
		u.fields = append(u.fields, field{col: -1, name: "DB_ROW_ID", fixed: sysRowIDLen})
	}
	for _, c := range t.PK {
		if !in[c] {
			add(c)
		}
	}
	// A secondary index's node pointers carry every field (key and clustered key) to be unique.
	u.nUniq = len(u.fields)
	return &u, nil
}

// indexDesc names the index the table's rows are read from, for messages.
func (t *Table) indexDesc() string {
	if t.IndexName == "" {
		return "clustered index"
	}
	return "index " + t.IndexName
}

// keyField reads the SYS_FIELDS.POS of an index field: its column prefix length in bytes (0:
// the whole column) and whether the field is DESC. POS is written in one of two forms for a
// whole index. In the narrow form (an index of whole, ascending columns) it is the field's
// position alone. When any field of the index holds a column prefix or, since MariaDB 10.8,
// is descending, every POS of the index takes the wide form instead: the position in the high
// 16 bits; in the low 16 the prefix length (at most 15 bits) with bit 15 (0x8000) set for a
// DESC field. The server (dict_load_field_low, dict0load.cc) cannot tell the two forms apart
// for the first field, whose position is 0, so it reads the first field, and any POS above
// 0xffff, in the wide form. A DESC field is stored as an ascending one is: only the order of
// the B-tree's records is reversed on it, and rows prints the records in index order.
func keyField(f discovery.DictField, first bool) (prefix int, desc bool) {
	if first || f.Pos > 0xffff {
		return int(f.Pos & 0x7fff), f.Pos&0x8000 != 0
	}
	return 0, false
}
