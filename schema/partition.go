package schema

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"innoscope/discovery"
)

// partitioned is the error for db/name when SYS_TABLES holds no table of that name but holds
// its partitions: a partitioned table has no InnoDB table of its own, each partition (and each
// subpartition) is one, named db/name#P#p (db/name#P#p#SP#s). It names them as rows takes
// them (db.name#P#p, the table part in the file-name encoding), in the order the table
// defines them (its .par file), or by name if that cannot be read; nil when there are none.
func partitioned(tables []discovery.DictTable, datadir, sqlDB, db, name string) error {
	full := db + "/" + name
	var parts []string
	for _, t := range tables {
		rest, ok := strings.CutPrefix(t.Name, full+"#")
		if t.Deleted || !ok {
			continue
		}
		if up := strings.ToUpper(rest); strings.HasPrefix(up, "P#") || strings.HasPrefix(up, "SP#") {
			parts = append(parts, t.Name[len(db)+1:])
		}
	}
	if len(parts) == 0 {
		return nil
	}
	// The .par file lists the partitions after the table's name and its own "#P#".
	order := map[string]int{}
	for i, p := range parFile(filepath.Join(datadir, db, TableOf(name)+".par")) {
		order[strings.ToUpper(TableOf(name)+"#P#"+p)] = i
	}
	rank := func(p string) int {
		if i, ok := order[strings.ToUpper(p)]; ok {
			return i
		}
		return len(order)
	}
	sort.Slice(parts, func(i, j int) bool {
		if a, b := rank(parts[i]), rank(parts[j]); a != b {
			return a < b
		}
		return parts[i] < parts[j]
	})
	for i, p := range parts {
		parts[i] = sqlDB + "." + p
	}
	if TableOf(name) != name {
		return fmt.Errorf("%s.%s has subpartitions: rows reads one at a time, as an InnoDB table of its own: %s", sqlDB, name, strings.Join(parts, ", "))
	}
	return fmt.Errorf("%s.%s is a partitioned table: rows reads one partition at a time, as an InnoDB table of its own: %s", sqlDB, name, strings.Join(parts, ", "))
}

// parFile reads the partition names of a .par file (ha_partition's: 4-byte little-endian words
// giving its length in words, a checksum and the number of partitions; a byte a partition
// naming its engine, padded to a word; the length in bytes of the names; the names, each
// ended by a NUL, a subpartition as p#SP#s), nil if it is missing or not of that shape.
func parFile(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) < 16 {
		return nil
	}
	le := binary.LittleEndian
	n := int(le.Uint32(b[8:]))
	off := 12 + (n+3)/4*4
	if n <= 0 || off+4 > len(b) {
		return nil
	}
	l := int(le.Uint32(b[off:]))
	if l <= 0 || off+4+l > len(b) {
		return nil
	}
	names := strings.Split(strings.TrimRight(string(b[off+4:off+4+l]), "\x00"), "\x00")
	if len(names) != n {
		return nil
	}
	return names
}
