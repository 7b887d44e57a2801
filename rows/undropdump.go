package rows

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"innoscope/discovery"
	"innoscope/schema"
)

// UndropOptions are what `undrop` is given besides the data directory and the table.
type UndropOptions struct {
	Images   []string // raw images (a filesystem image, a block device) to carve too
	Schema   string   // a file holding the table's CREATE TABLE ("": the dictionary's leftovers)
	IndexID  uint64   // the dropped clustered index to read (0: chosen)
	Format   string
	TimeZone *time.Location
}

// DroppedTable is an index whose pages were found but that no live table has: the table it
// belonged to when the dictionary still holds a trace of it (a delete-marked SYS_TABLES or
// SYS_INDEXES record).
type DroppedTable struct {
	Name    string `json:"name"`     // db.table ("": not known)
	TableID uint64 `json:"table_id"` // 0: not known
	// Index is the index's name in the dictionary's leftovers ("": not known).
	Index string `json:"index"`
	DroppedIndex
}

// CarveDir carves the system tablespace files and every .ibd file of the data directory s, and
// the images.
func CarveDir(s discovery.Layout, images []string) (*Carving, error) {
	c := NewCarving()
	home := s.DataHome()
	for _, f := range s.SystemFiles() {
		if err := c.AddFile(filepath.Join(home, f)); err != nil {
			return nil, err
		}
	}
	var ibds []string
	filepath.WalkDir(s.Datadir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasSuffix(p, ".ibd") {
			ibds = append(ibds, p)
		}
		return nil
	})
	for _, p := range ibds {
		if err := c.AddFile(p); err != nil {
			continue // a damaged file holds nothing to carve from page 0 on; the others still do
		}
	}
	if sys, err := discovery.OpenFile(filepath.Join(home, s.SystemFiles()[0])); err == nil {
		c.ZipLogical = sys.FSP.Flags.PageSize
		sys.Close()
	}
	for _, img := range images {
		if err := c.AddImage(img); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// dictionary is what the system tablespace's dictionary holds, live and delete-marked.
type dictionary struct {
	tables []discovery.DictTable
	idxs   []discovery.DictIndex
	cols   []discovery.DictColumn
	flds   []discovery.DictField
}

func readDictionary(s discovery.Layout) (*dictionary, error) {
	dir, name := s.SystemFile()
	sys, err := discovery.OpenFile(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	defer sys.Close()
	d := &dictionary{}
	if d.tables, err = discovery.ReadDictTables(sys); err != nil {
		return nil, err
	}
	if d.idxs, err = discovery.ReadDictIndexes(sys); err != nil {
		return nil, err
	}
	if d.cols, err = discovery.ReadDictColumns(sys); err != nil {
		return nil, err
	}
	d.flds, err = discovery.ReadDictFields(sys)
	return d, err
}

// ListDropped lists the indexes whose pages c found that no live index of the dictionary has,
// named from the dictionary's delete-marked records where they are still there.
func ListDropped(s discovery.Layout, c *Carving) ([]DroppedTable, error) {
	d, err := readDictionary(s)
	if err != nil {
		return nil, err
	}
	return d.dropped(c), nil
}

func (d *dictionary) dropped(c *Carving) []DroppedTable {
	live := map[uint64]bool{}
	for _, x := range d.idxs {
		if !x.Deleted {
			live[x.ID] = true
		}
	}
	var out []DroppedTable
	for _, x := range c.Indexes() {
		if live[x.IndexID] || !discovery.TableIndexID(x.IndexID) {
			continue
		}
		dt := DroppedTable{DroppedIndex: x}
		for _, di := range d.idxs {
			if di.Deleted && di.ID == x.IndexID {
				dt.TableID, dt.Index = di.TableID, di.Name
			}
		}
		for _, t := range d.tables {
			if dt.TableID != 0 && t.ID == dt.TableID {
				dt.Name = discovery.SQLName(strings.Replace(t.Name, "/", ".", 1))
			}
		}
		out = append(out, dt)
	}
	return out
}

// Undrop writes the rows of the dropped or truncated table db.name of data directory s,
// carved from the data directory's files and opt.Images. The definition is opt.Schema's
// CREATE TABLE, else the live table's of that name (a truncated or re-created table: its
// dictionary entry and .frm), else the dictionary's delete-marked records of the dropped table
// with its leftover .frm. The clustered index read is opt.IndexID, else the dropped index the
// dictionary's leftovers give the table, else the one dropped index whose leaf pages all
// decode under the definition.
func Undrop(s discovery.Layout, db, name string, opt UndropOptions, out *bufio.Writer) (*Result, error) {
	d, err := readDictionary(s)
	if err != nil {
		return nil, err
	}
	c, err := CarveDir(s, opt.Images)
	if err != nil {
		return nil, err
	}
	def, own, err := undropDefinition(s, d, db, name, opt.Schema)
	if err != nil {
		return nil, err
	}
	dropped := d.dropped(c)
	found := map[uint64]DroppedTable{}
	for _, x := range dropped {
		found[x.IndexID] = x
	}
	var pick *DroppedTable
	var note string
	for _, x := range c.Indexes() {
		if _, ok := found[x.IndexID]; !ok && x.IndexID == def.Clustered.ID && x.IndexID != 0 {
			found[x.IndexID] = DroppedTable{Name: def.Shown, TableID: def.TableID, Index: def.Clustered.Name, DroppedIndex: x}
		}
	}
	for _, x := range dropped {
		if opt.IndexID == 0 && x.Name != "" && strings.EqualFold(x.Name, def.Shown) && (x.Index == "PRIMARY" || x.Index == "GEN_CLUST_INDEX") {
			pick = &x
		}
	}
	switch x, ok := found[def.Clustered.ID]; {
	case opt.IndexID != 0:
		x, ok := found[opt.IndexID]
		if !ok {
			return nil, fmt.Errorf("no page of index %d found (`innoscope undrop %s --list` lists the dropped indexes found)", opt.IndexID, s.Datadir)
		}
		pick = &x
	case pick != nil:
	case own && ok:
		pick = &x
	default:
		var fits []DroppedTable
		var tried []string
		for _, x := range dropped {
			if x.Leaves == 0 || x.Compact != def.Compact && opt.Schema == "" {
				continue
			}
			if good, bad := c.Fits(def, x.DroppedIndex); good > 0 && bad == 0 {
				fits = append(fits, x)
				tried = append(tried, fmt.Sprintf("index %d (%d leaf pages)", x.IndexID, good))
			}
		}
		switch {
		case len(fits) == 1:
			pick = &fits[0]
		case len(fits) > 1:
			return nil, fmt.Errorf("several dropped indexes decode as %s's records: %s; choose one with --index-id (`innoscope undrop %s --list` says where each was found)", def.Shown, strings.Join(tried, ", "), s.Datadir)
		case ok:
			// No dropped index fits: the dictionary on disk still has the table's own (a crash
			// before the DROP or TRUNCATE reached the disk).
			pick = &x
			note = fmt.Sprintf("no dropped index decodes as %s's records: index %d is the table's in the dictionary on disk (the DROP or TRUNCATE did not reach it)", def.Shown, x.IndexID)
		default:
			return nil, fmt.Errorf("no dropped index found whose leaf pages decode as %s's records (%d dropped indexes found: `innoscope undrop %s --list`); give the table's CREATE TABLE with --schema FILE.sql, or --image the filesystem the table's file was on", def.Shown, len(dropped), s.Datadir)
		}
	}
	if opt.Schema != "" {
		def.Compact = pick.Compact
	}
	tz := opt.TimeZone
	if tz == nil {
		tz = time.UTC
	}
	c.tz = tz
	res, _, err := c.DumpUndrop(def, pick.DroppedIndex, pick.TableID, opt.Format, out)
	if res != nil && note != "" {
		res.Notes = append(res.Notes, note)
	}
	return res, err
}

// undropDefinition is the dropped table's definition (see Undrop), and whether it is the
// table's own entry in the dictionary, dropped (delete-marked) or whose .frm is gone: its
// clustered index is then the one to read.
func undropDefinition(s discovery.Layout, d *dictionary, db, name, file string) (*schema.Table, bool, error) {
	full := schema.FileName(db) + "/" + schema.FileName(name)
	frm := filepath.Join(s.Datadir, schema.FileName(db), schema.FileName(name)+".frm")
	var dt *discovery.DictTable
	for i := range d.tables {
		if t := &d.tables[i]; t.Name == full && (dt == nil || dt.Deleted) {
			dt = t
		}
	}
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, false, err
		}
		def, err := schema.FromCreateTable(string(b), file)
		if err != nil {
			return nil, false, err
		}
		def.DB, def.TableName, def.Shown = db, name, db+"."+name
		def.Name = schema.FileName(db) + "/" + schema.FileName(name)
		// The clustered index the dictionary gives the table of that name, to read when no
		// dropped index fits.
		for _, x := range d.idxs {
			if dt != nil && x.TableID == dt.ID && x.Deleted == dt.Deleted && x.Type&schema.IndexClustered != 0 {
				def.Clustered.ID, def.TableID = x.ID, dt.ID
			}
		}
		return def, false, nil
	}
	switch _, err := os.Stat(frm); {
	case dt == nil:
		return nil, false, fmt.Errorf("%s.%s: the dictionary in %s holds no trace of the table (no live or delete-marked SYS_TABLES record: purge removed it); give its CREATE TABLE with --schema FILE.sql", db, name, s.Datadir)
	case !dt.Deleted && err == nil:
		def, err := schema.FromDictionary(s, db, name)
		return def, false, err
	}
	def, err := leftoverDefinition(s, d, dt, db, name)
	return def, true, err
}

// leftoverDefinition builds a dropped table's definition from the delete-marked SYS_COLUMNS,
// SYS_INDEXES and SYS_FIELDS records of table dt (its live ones when dt is live), with the SQL types of its leftover .frm, or
// without one as far as the dictionary gives them (schema.SQLTypeOf).
func leftoverDefinition(s discovery.Layout, d *dictionary, dt *discovery.DictTable, db, name string) (*schema.Table, error) {
	frmPath := filepath.Join(s.Datadir, schema.FileName(db), schema.FileName(name)+".frm")
	frm, err := schema.ReadFrm(frmPath)
	if err != nil {
		frm, frmPath = nil, "" // gone with the table: the SQL types from the dictionary's
	}
	t := &schema.Table{Name: dt.Name, DB: db, TableName: name, Shown: db + "." + name, Frm: frmPath, SpaceID: dt.SpaceID, TableID: dt.ID, Compact: dt.Compact}
	var cols []discovery.DictColumn
	for _, c := range d.cols {
		if c.TableID == dt.ID && c.Deleted == dt.Deleted && !c.Virtual() {
			cols = append(cols, c)
		}
	}
	sort.Slice(cols, func(i, j int) bool { return cols[i].Pos < cols[j].Pos })
	for _, c := range cols {
		col := schema.Column{Name: c.Name, InnoDB: c}
		if col.SQL, err = schema.SQLTypeOf(c); err != nil && frm == nil {
			return nil, fmt.Errorf("%s.%s: %v; give its CREATE TABLE with --schema FILE.sql", db, name, err)
		}
		for _, f := range frm {
			if strings.EqualFold(f.Name, c.Name) {
				col.SQL = f.SQLType
			}
		}
		t.Cols = append(t.Cols, col)
	}
	for _, x := range d.idxs {
		if x.TableID != dt.ID || x.Deleted != dt.Deleted || x.Type&schema.IndexClustered == 0 {
			continue
		}
		t.Clustered = schema.Index{Name: x.Name, ID: x.ID, Type: x.Type}
		for _, f := range d.flds {
			if f.IndexID != x.ID || f.Deleted != x.Deleted || x.Name == "GEN_CLUST_INDEX" {
				continue
			}
			for i, c := range t.Cols {
				if strings.EqualFold(c.Name, f.ColName) {
					t.PK = append(t.PK, i)
					t.Clustered.Fields = append(t.Clustered.Fields, schema.IndexField{Col: c.Name})
				}
			}
		}
	}
	return t, nil
}
