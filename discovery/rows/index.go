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
// clustered index is damaged still has of those columns. Indexes on a column prefix (whose
// records hold a truncated value) are refused.
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
			return nil, fmt.Errorf("%s: table %s has no secondary index", t.File, t.Name)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("%s: table %s has no index %s (its secondary indexes: %s)", t.File, t.Name, name, strings.Join(names, ", "))
	}
	if ix.Type&dictVirtual != 0 {
		return nil, fmt.Errorf("%s: index %s of %s holds a VIRTUAL column (computed by the server, not stored in the table): not supported", t.File, ix.Name, t.Name)
	}
	if ix.Type&^dictUnique != 0 {
		return nil, fmt.Errorf("%s: index %s of %s is of type %d (FULLTEXT, SPATIAL or another kind): not supported", t.File, ix.Name, t.Name, ix.Type)
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
			return nil, fmt.Errorf("%s: index %s column %s is not a column of %s", t.File, ix.Name, k.ColName, t.Name)
		}
		if prefixLen(k, len(u.Cols) == 0) != 0 {
			return nil, fmt.Errorf("%s: index %s of %s holds a prefix of column %s: not supported", t.File, ix.Name, t.Name, k.ColName)
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

// prefixLen is the column prefix length of an index field (0: the whole column), as the server
// reads SYS_FIELDS.POS: an index with a prefix field stores every POS as position<<16 | prefix
// length, others the position alone, so the first field's POS, and any above 0xffff, carry a
// prefix length in their low 16 bits.
func prefixLen(f discovery.DictField, first bool) int {
	if first || f.Pos > 0xffff {
		return int(f.Pos & 0xffff)
	}
	return 0
}
