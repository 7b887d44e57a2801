package schema

import (
	"encoding/binary"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"innoscope/discovery"
	"innoscope/internal/regular"
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

// parMaxSize bounds what parFile reads: a .par holds at most MAX_PARTITIONS (8192) partitions
// and subpartitions together, a byte each for its engine, and a name each of at most two
// identifiers of 64 characters in the file-name encoding (5 bytes a character at most) joined
// by "#SP#" and ended by a NUL, after its four header words.
const parMaxSize = 16 + 8192 + 8192*(2*64*5+4+1)

// parFile reads the partition names of a .par file as ha_partition::read_par_file reads it:
// 4-byte little-endian words, the first giving the file's length in words (that many are read,
// whatever the file's size), whose XOR is zero; then the number of partitions; a byte a
// partition naming its engine, padded to a word; the length in bytes of the names; the names,
// each ended by a NUL, a subpartition as p#SP#s. It returns nil if the file is missing or not of
// that shape (the server cannot open the table either), or claims more than a .par can hold.
func parFile(path string) []string {
	f, err := regular.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	le := binary.LittleEndian
	var w [4]byte
	if _, err := io.ReadFull(f, w[:]); err != nil {
		return nil
	}
	size := 4 * int64(le.Uint32(w[:]))
	if size < 16 || size > parMaxSize {
		return nil
	}
	b := make([]byte, size)
	if _, err := f.ReadAt(b, 0); err != nil {
		return nil
	}
	var sum uint32
	for i := 0; i < len(b); i += 4 {
		sum ^= le.Uint32(b[i:])
	}
	n := int(le.Uint32(b[8:]))
	off := 12 + (n+3)/4*4
	if sum != 0 || n <= 0 || off+4 > len(b) {
		return nil
	}
	l := int(le.Uint32(b[off:]))
	if l <= 0 || off+4+(l+3)/4*4 != len(b) {
		return nil
	}
	names := strings.Split(strings.TrimRight(string(b[off+4:off+4+l]), "\x00"), "\x00")
	if len(names) != n {
		return nil
	}
	return names
}

// ParPartitions lists the partitions a .par file names (a subpartition as p#SP#s), in the
// file's order; nil when the file is missing or not of a .par's shape.
func ParPartitions(path string) []string { return parFile(path) }
