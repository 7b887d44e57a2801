package analysis

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"innoscope/discovery"
	"innoscope/finding"
)

// droppedIndex is what the page scan saw of one index id no live index has.
type droppedIndex struct {
	id     uint64
	leaves int
	name   string // db.table from the dictionary's leftovers ("": none left)
	files  map[string]bool
}

// droppedPagesFindings: DROPPED_TABLE_PAGES (info), one finding, when the leaf pages read for
// their checksums (in.Pages, as on disk) include pages of index ids that no live index of the
// dictionary has (on disk, or as crash recovery leaves it): the rows of dropped or truncated
// tables, which `undrop` carves. Counted: such pages in the system tablespace (tables created
// with innodb_file_per_table=0), except a dropped secondary index of a live table as the
// dictionary's delete-marked records tell it; in a file-per-table tablespace only the pages of
// an index those records say was a clustered index (the other freed pages there are the
// table's own dropped secondary indexes: TRUNCATE and rebuilds make new files). The
// dictionary's SYS_* indexes and the change buffer's are never counted. Nothing without a
// readable dictionary, or when the pages were not read (--skip-pages).
func droppedPagesFindings(in Input, dir string) []finding.Finding {
	if in.Dict == nil || len(in.Indexes) == 0 {
		return nil
	}
	live, liveTable := map[uint64]bool{}, map[uint64]bool{}
	leftover := map[uint64]discovery.DictIndex{}
	names := map[uint64]string{}
	tables, indexes := in.Dict, in.Indexes
	if in.Undo != nil {
		tables = append(append([]discovery.DictTable(nil), tables...), in.Undo.Tables...)
		indexes = append(append([]discovery.DictIndex(nil), indexes...), in.Undo.Indexes...)
	}
	for _, t := range tables {
		if !t.Deleted {
			liveTable[t.ID] = true
		}
		if names[t.ID] == "" || !t.Deleted {
			names[t.ID] = discovery.SQLTableName(t.Name)
		}
	}
	for _, x := range indexes {
		if !x.Deleted {
			live[x.ID] = true
		} else {
			leftover[x.ID] = x
		}
	}
	found := map[uint64]*droppedIndex{}
	var sys string
	for path, r := range in.Pages {
		if r == nil {
			continue
		}
		if r.SpaceID == 0 && (sys == "" || path < sys) {
			sys = path
		}
		for id, n := range r.Leaves {
			if live[id] || !discovery.TableIndexID(id) {
				continue
			}
			x, known := leftover[id]
			clustered := known && x.Type&1 != 0
			if known && !clustered && liveTable[x.TableID] || r.SpaceID != 0 && !clustered {
				continue
			}
			d := found[id]
			if d == nil {
				d = &droppedIndex{id: id, files: map[string]bool{}}
				if known {
					d.name = names[x.TableID]
				}
				found[id] = d
			}
			d.leaves += n
			d.files[filepath.Base(path)] = true
		}
	}
	if len(found) == 0 {
		return nil
	}
	list := make([]*droppedIndex, 0, len(found))
	total := 0
	for _, d := range found {
		list = append(list, d)
		total += d.leaves
	}
	sort.Slice(list, func(i, j int) bool {
		if (list[i].name != "") != (list[j].name != "") {
			return list[i].name != ""
		}
		return list[i].leaves > list[j].leaves || list[i].leaves == list[j].leaves && list[i].id < list[j].id
	})
	const shown = 5
	var parts []string
	for i, d := range list {
		if i == shown {
			parts = append(parts, fmt.Sprintf("and %d more", len(list)-shown))
			break
		}
		what := fmt.Sprintf("index %d", d.id)
		if d.name != "" {
			what = d.name + " (" + what + ")"
		}
		files := make([]string, 0, len(d.files))
		for f := range d.files {
			files = append(files, f)
		}
		sort.Strings(files)
		parts = append(parts, fmt.Sprintf("%s: %d leaf pages in %s", what, d.leaves, strings.Join(files, ", ")))
	}
	file := sys
	if file == "" {
		file = dir
	}
	var space *uint32
	if sys != "" {
		space = u32(0)
	}
	return []finding.Finding{{Severity: finding.Info, Code: "DROPPED_TABLE_PAGES", SpaceID: space, File: file,
		Message: fmt.Sprintf("%d leaf pages of %s that no live table has are still on disk (the rows of dropped or truncated tables, or a dropped index's records): %s; "+
			"`innoscope undrop %s --list` lists them, `innoscope undrop %s DB.TABLE` prints a dropped table's rows",
			total, plural(len(list), "index", "indexes"), strings.Join(parts, "; "), dir, dir)}}
}

// plural is n with the noun's singular or plural form.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
