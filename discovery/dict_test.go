package discovery

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// TestDictTablesAgainstServer: SYS_TABLES and SYS_INDEXES read from the system tablespace of the
// directory the server itself recovered and shut down equal INNODB_SYS_TABLES (name, table id,
// space id) and INNODB_SYS_INDEXES (table id, index id, name, type, fields, root page, space) of
// the live server before the crash, for every kind of scenario and page size.
func TestDictTablesAgainstServer(t *testing.T) {
	for _, name := range []string{"dml", "ddl", "alter_force", "data_directory", "instant", "undo",
		"clean", "formats_crc32", "formats_4k", "formats_64k"} {
		t.Run(name, func(t *testing.T) {
			s := lab.Get(t, name)
			want, err := os.ReadFile(filepath.Join(s.Dir, "sys_tables.tsv"))
			if err != nil {
				t.Fatal(err)
			}
			f, err := OpenFile(filepath.Join(s.Dir, "server", "ibdata1"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			ts, err := ReadDictTables(f)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, x := range ts {
				if !x.Deleted {
					got = append(got, x.Name+"\t"+strconv.FormatUint(x.ID, 10)+"\t"+strconv.FormatUint(uint64(x.SpaceID), 10))
				}
			}
			sort.Strings(got)
			w := strings.Split(strings.TrimSpace(string(want)), "\n")
			sort.Strings(w)
			if strings.Join(got, "\n") != strings.Join(w, "\n") {
				t.Errorf("SYS_TABLES on disk:\n%s\nserver:\n%s", strings.Join(got, "\n"), strings.Join(w, "\n"))
			}
			ix, err := ReadDictIndexes(f)
			if err != nil {
				t.Fatal(err)
			}
			got = nil
			for _, x := range ix {
				if !x.Deleted {
					got = append(got, strings.Join([]string{strconv.FormatUint(x.TableID, 10), strconv.FormatUint(x.ID, 10), x.Name,
						strconv.Itoa(int(x.Type)), strconv.Itoa(int(x.NFields)), strconv.Itoa(int(x.PageNo)), strconv.Itoa(int(x.SpaceID))}, "\t"))
				}
			}
			wantIx, err := os.ReadFile(filepath.Join(s.Dir, "sys_indexes.tsv"))
			if err != nil {
				t.Fatal(err)
			}
			sort.Strings(got)
			w = strings.Split(strings.TrimSpace(string(wantIx)), "\n")
			sort.Strings(w)
			if strings.Join(got, "\n") != strings.Join(w, "\n") {
				t.Errorf("SYS_INDEXES on disk:\n%s\nserver:\n%s", strings.Join(got, "\n"), strings.Join(w, "\n"))
			}
		})
	}
}
