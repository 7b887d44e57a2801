package mysqldd

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"innoscope/schema"
)

// Tablespace is one tablespace of the dictionary: a row of mysql.tablespaces with its files
// (mysql.tablespace_files) and the tables whose indexes it holds (mysql.indexes,
// mysql.index_partitions).
type Tablespace struct {
	ID      uint64 `json:"dd_id"`    // mysql.tablespaces.id
	Name    string `json:"name"`     // "shop/orders", "ts1", "mysql", "innodb_system", "innodb_undo_001"
	SpaceID uint32 `json:"space_id"` // InnoDB's space id (id= of its se_private_data)
	// HasSpaceID is false where the row names no InnoDB space id.
	HasSpaceID bool     `json:"-"`
	Engine     string   `json:"engine"`
	Files      []string `json:"files"`            // file_name of mysql.tablespace_files, by ordinal position
	Tables     []string `json:"tables,omitempty"` // "db.table", "db.table PARTITION p0", sorted
}

// Dictionary is what innoscope reads of a MySQL 8 data dictionary.
type Dictionary struct {
	Path string `json:"path"` // mysql.ibd
	// Version is the mysqld_version_id the SDI of mysql.ibd gives (80033, 90704).
	Version     int          `json:"version"`
	Tablespaces []Tablespace `json:"tablespaces"`
	bySpace     map[uint32]int
}

// BySpace is the tablespace of InnoDB space id id, nil if the dictionary has none.
func (d *Dictionary) BySpace(id uint32) *Tablespace {
	if d == nil {
		return nil
	}
	if i, ok := d.bySpace[id]; ok {
		return &d.Tablespaces[i]
	}
	return nil
}

// tablesRead are the dictionary tables Read decodes.
var tablesRead = []string{"schemata", "tables", "tablespaces", "tablespace_files", "indexes", "table_partitions", "index_partitions"}

// Read reads the data dictionary stored in mysql.ibd at path: the tablespaces, their files and
// their tables. The definitions of the dictionary tables come from the SDI of the same file,
// their rows from their clustered indexes, read as they are on disk (a crashed server's
// dictionary lacks what its redo log has not yet brought to the pages).
func Read(path string) (*Dictionary, error) {
	recs, err := schema.ReadSDI(path)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		// mysqld --initialize creates mysql.ibd, its SDI index and the dictionary tables' empty
		// roots first and fills them in memory: a directory copied (or killed) before its pages
		// were flushed has only those on disk, the rest in the redo log.
		return nil, fmt.Errorf("%s: the SDI holds no record yet, so no dictionary table is defined on disk: mysql.ibd as mysqld --initialize leaves it before it flushes the dictionary (copied or stopped during the initialisation; its redo log may hold the rest)", path)
	}
	d := &Dictionary{Path: path, bySpace: map[uint32]int{}}
	defs := map[string]*ddTable{}
	for _, r := range recs {
		if r.Type != 1 {
			continue
		}
		o, err := schema.ParseSDITable(r.JSON)
		if err != nil || o.Table.SchemaRef != "mysql" {
			continue
		}
		if d.Version == 0 {
			d.Version = o.MysqldVersionID
		}
		for _, n := range tablesRead {
			if o.Table.Name != n {
				continue
			}
			def, err := schema.TableFromDD(asBlobs(&o.Table), path)
			if err != nil {
				return nil, fmt.Errorf("%s: the definition of mysql.%s: %v", path, n, err)
			}
			defs[n] = &ddTable{name: n, def: def}
		}
	}
	data := map[string][]record{}
	for _, n := range tablesRead {
		t := defs[n]
		if t == nil {
			return nil, fmt.Errorf("%s: the SDI holds no definition of mysql.%s: not the data dictionary of a MySQL 8 server", path, n)
		}
		if data[n], err = t.read(); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
	}
	d.build(data)
	return d, nil
}

// build joins the rows of the dictionary tables into d.Tablespaces.
func (d *Dictionary) build(data map[string][]record) {
	schemas := map[uint64]string{}
	for _, r := range data["schemata"] {
		if id, ok := r.uint("id"); ok {
			schemas[id] = r.str("name")
		}
	}
	tables := map[uint64]string{}
	for _, r := range data["tables"] {
		id, ok := r.uint("id")
		if !ok {
			continue
		}
		s, _ := r.uint("schema_id")
		tables[id] = schemas[s] + "." + r.str("name")
	}
	partitions := map[uint64]string{}
	for _, r := range data["table_partitions"] {
		id, ok := r.uint("id")
		if !ok {
			continue
		}
		t, _ := r.uint("table_id")
		partitions[id] = tables[t] + " PARTITION " + r.str("name")
	}
	byID := map[uint64]int{}
	for _, r := range data["tablespaces"] {
		id, ok := r.uint("id")
		if !ok {
			continue
		}
		ts := Tablespace{ID: id, Name: r.str("name"), Engine: r.str("engine")}
		if sp, ok := privateUint(r.str("se_private_data"), "id"); ok {
			ts.SpaceID, ts.HasSpaceID = uint32(sp), true
		}
		byID[id] = len(d.Tablespaces)
		d.Tablespaces = append(d.Tablespaces, ts)
	}
	type file struct {
		pos  uint64
		name string
	}
	files := map[uint64][]file{}
	for _, r := range data["tablespace_files"] {
		ts, ok := r.uint("tablespace_id")
		if !ok {
			continue
		}
		pos, _ := r.uint("ordinal_position")
		files[ts] = append(files[ts], file{pos, r.str("file_name")})
	}
	named := map[uint64]map[string]bool{}
	name := func(ts uint64, what string) {
		if named[ts] == nil {
			named[ts] = map[string]bool{}
		}
		named[ts][what] = true
	}
	for _, r := range data["indexes"] {
		ts, ok1 := r.uint("tablespace_id")
		t, ok2 := r.uint("table_id")
		if ok1 && ok2 && tables[t] != "" {
			name(ts, tables[t])
		}
	}
	for _, r := range data["index_partitions"] {
		ts, ok1 := r.uint("tablespace_id")
		p, ok2 := r.uint("partition_id")
		if ok1 && ok2 && partitions[p] != "" {
			name(ts, partitions[p])
		}
	}
	for i := range d.Tablespaces {
		ts := &d.Tablespaces[i]
		fs := files[ts.ID]
		sort.Slice(fs, func(a, b int) bool { return fs[a].pos < fs[b].pos })
		for _, f := range fs {
			ts.Files = append(ts.Files, f.name)
		}
		for t := range named[ts.ID] {
			ts.Tables = append(ts.Tables, t)
		}
		sort.Strings(ts.Tables)
		if ts.HasSpaceID {
			d.bySpace[ts.SpaceID] = i
		}
	}
	sort.SliceStable(d.Tablespaces, func(a, b int) bool { return d.Tablespaces[a].ID < d.Tablespaces[b].ID })
	for i, ts := range d.Tablespaces {
		if ts.HasSpaceID {
			d.bySpace[ts.SpaceID] = i
		}
	}
}

// The dd::enum_column_types of a JSON column and of a LONGBLOB.
const (
	ddTypeLongBlob = 26
	ddTypeJSON     = 31
)

// asBlobs is a copy of dictionary table t whose JSON columns (options, engine_attribute) read as
// LONGBLOB, which is how InnoDB stores them: innoscope decodes no JSON, and the dictionary
// needs none of their values.
func asBlobs(t *schema.DDTable) *schema.DDTable {
	c := *t
	c.Columns = append([]schema.DDColumn(nil), t.Columns...)
	for i := range c.Columns {
		if c.Columns[i].Type == ddTypeJSON {
			c.Columns[i].Type = ddTypeLongBlob
		}
	}
	return &c
}

// privateUint is the number key= of a dictionary se_private_data string ("id=5;flags=33;").
func privateUint(s, key string) (uint64, bool) {
	for _, kv := range strings.Split(s, ";") {
		k, v, ok := strings.Cut(kv, "=")
		if ok && k == key {
			n, err := strconv.ParseUint(v, 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
