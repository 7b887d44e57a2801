package rows

import (
	"fmt"
	"sort"
	"strings"

	"innoscope/schema"
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
	var ix *schema.Index
	var names []string
	for i := range t.Indexes {
		d := &t.Indexes[i]
		names = append(names, d.Name)
		if strings.EqualFold(d.Name, name) {
			ix = d
		}
	}
	if ix == nil {
		if len(names) == 0 {
			return nil, fmt.Errorf("%s: table %s has no secondary index", t.File, t.Shown)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("%s: table %s has no index %s (its secondary indexes: %s)", t.File, t.Shown, name, strings.Join(names, ", "))
	}
	if ix.Type&schema.IndexVirtual != 0 {
		return nil, fmt.Errorf("%s: index %s of %s holds a VIRTUAL column (computed by the server, not stored in the table): not supported", t.File, ix.Name, t.Shown)
	}
	if ix.Type&^schema.IndexUnique != 0 {
		return nil, fmt.Errorf("%s: index %s of %s is of type %d (FULLTEXT, SPATIAL or another kind): not supported", t.File, ix.Name, t.Shown, ix.Type)
	}
	u := *t
	u.Root, u.IndexID, u.IndexName, u.Cols, u.PK, u.fields = ix.Root, ix.ID, ix.Name, nil, nil, nil
	in := map[int]bool{}
	add := func(c int) {
		in[c] = true
		u.PK = append(u.PK, len(u.Cols))
		u.fields = append(u.fields, colField(len(u.Cols), t.Cols[c].InnoDB))
		u.Cols = append(u.Cols, t.Cols[c])
	}
	for _, k := range ix.Fields {
		c := -1
		for i, col := range t.Cols {
			if strings.EqualFold(col.Name, k.Col) {
				c = i
			}
		}
		if c < 0 {
			return nil, fmt.Errorf("%s: index %s column %s is not a column of %s", t.File, ix.Name, k.Col, t.Shown)
		}
		if k.Prefix != 0 {
			return nil, fmt.Errorf("%s: index %s of %s holds a prefix of column %s: not supported", t.File, ix.Name, t.Shown, k.Col)
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
