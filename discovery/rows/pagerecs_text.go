package rows

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"innoscope/discovery"
)

// PageRecordsOfFile is PageRecords for the file at path, in the data directory it lies in:
// DIR/db/t.ibd (DIR holding ibdata1), else the file's own directory (DIR/ibdata1).
func PageRecordsOfFile(path string, no uint32) (*Table, []PageRecord, error) {
	dir := filepath.Dir(filepath.Dir(path))
	if _, err := os.Stat(filepath.Join(dir, "ibdata1")); err != nil {
		dir = filepath.Dir(path)
	}
	s, err := discovery.NewLayout(map[string]string{"datadir": dir})
	if err != nil {
		return nil, nil, err
	}
	return PageRecords(s, path, no)
}

// RecordRows are a page's records as a table: OFFSET, STATUS, FLAGS, CHILD and the table's
// columns (NULL as NULL, other values Go-quoted without the quotes).
func RecordRows(t *Table, recs []PageRecord) (head []string, rows [][]string) {
	head = []string{"OFFSET", "STATUS", "FLAGS", "CHILD"}
	for _, col := range t.Cols {
		head = append(head, col.Name)
	}
	for _, r := range recs {
		var flags []string
		if r.Deleted {
			flags = append(flags, "deleted")
		}
		if r.Metadata {
			flags = append(flags, "metadata")
		}
		if r.Error != "" {
			flags = append(flags, "error: "+r.Error)
		}
		child := ""
		if r.Child != nil {
			child = fmt.Sprint(*r.Child)
		}
		row := []string{fmt.Sprint(r.Offset), r.Status, strings.Join(flags, ","), child}
		for _, v := range r.Values {
			if v == nil {
				row = append(row, "NULL")
			} else {
				q := strconv.Quote(*v)
				row = append(row, q[1:len(q)-1])
			}
		}
		for len(row) < len(head) {
			row = append(row, "")
		}
		rows = append(rows, row)
	}
	return head, rows
}
