package schema

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"innoscope/discovery"
)

// PartitionOf is the partitioned table d as the one partition (or subpartition) whose tablespace
// is the file path: d with that partition's index roots, ids and space id (matched by the
// file's space id, so a renamed file is still found) and its table id, not partitioned; and the
// partition's name.
func PartitionOf(d *DDTable, path string) (*DDTable, string, error) {
	f, err := discovery.OpenFile(path)
	if err != nil {
		return nil, "", err
	}
	space := f.FSP.SpaceID
	f.Close()
	var names []string
	var found *DDPartition
	var walk func(ps []DDPartition)
	walk = func(ps []DDPartition) {
		for i := range ps {
			p := &ps[i]
			if len(p.Subpartitions) > 0 {
				walk(p.Subpartitions)
				continue
			}
			for _, x := range p.Indexes {
				if id, ok := privateUint(x.SEPrivateData, "space_id"); ok && x.IndexOpx == 0 {
					names = append(names, fmt.Sprintf("%s (space %d)", p.Name, id))
					if uint32(id) == space {
						found = p
					}
				}
			}
		}
	}
	walk(d.Partitions)
	if found == nil {
		return nil, "", fmt.Errorf("%s: table %s.%s (SDI) is partitioned and none of its partitions is in space %d, this file's: %s",
			path, d.SchemaRef, d.Name, space, strings.Join(names, ", "))
	}
	v := *d
	v.PartitionType, v.Partitions, v.SEPrivateID = 0, nil, found.SEPrivateID
	v.Indexes = append([]DDIndex(nil), d.Indexes...)
	for _, x := range found.Indexes {
		if x.IndexOpx < 0 || x.IndexOpx >= len(v.Indexes) {
			return nil, "", fmt.Errorf("%s: table %s.%s (SDI), partition %s: index %d of %d", path, d.SchemaRef, d.Name, found.Name, x.IndexOpx, len(v.Indexes))
		}
		v.Indexes[x.IndexOpx].SEPrivateData = x.SEPrivateData
	}
	return &v, found.Name, nil
}

// partitionFile reports whether a file (or a tablespace) is named as MySQL names a partition's
// (t#p#p0.ibd, db/t#p#p0).
func partitionFile(name string) bool {
	return strings.Contains(strings.ToLower(filepath.Base(name)), "#p#")
}

// partitionTable reads the entry of the partitioned table whose partition file path holds only
// its tablespace's (named space, "db/t#p#p1"; "": unknown): MySQL keeps the table's in the first
// partition's tablespace, a file beside it named t#p#... too.
func partitionTable(path, space string) (*SDIObject, error) {
	base := filepath.Base(path)
	name := base
	if partitionFile(space) {
		name = filepath.Base(space) // the file may have been renamed
	}
	table := name[:strings.Index(strings.ToLower(name), "#p#")]
	ents, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	var tried []string
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	for _, e := range ents {
		n := e.Name()
		if n == base || !strings.HasSuffix(n, ".ibd") || !strings.HasPrefix(strings.ToLower(n), strings.ToLower(table)+"#p#") {
			continue
		}
		tried = append(tried, n)
		recs, err := ReadSDI(filepath.Join(filepath.Dir(path), n))
		if err != nil {
			continue
		}
		for _, r := range recs {
			if r.Type == 1 {
				return ParseSDITable(r.JSON)
			}
		}
	}
	read := "no other file " + table + "#p#*.ibd is there"
	if len(tried) > 0 {
		read = "none of " + strings.Join(tried, ", ") + " beside it holds it"
	}
	return nil, fmt.Errorf("%s: the SDI holds only this partition's tablespace (%s): MySQL keeps the table's definition in its first partition's file, and %s; put the table's partition files (%s#p#*.ibd) in one directory",
		path, or(space, name), read, table)
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
