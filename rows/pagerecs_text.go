package rows

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"innoscope/discovery"
)

// FilePage is one page's records read by PageRecordsOfFile.
type FilePage struct {
	Table   *Table
	Records []PageRecord
	// Stale is ErrNeedsRecovery when the file's data directory needs crash recovery: the page
	// is as on disk, without the log's changes.
	Stale error
}

// PageRecordsOfFile is PageRecords for the file at path, in the data directory it lies in:
// DIR/db/t.ibd (DIR holding ibdata1), else the file's own directory (DIR/ibdata1); Stale says
// whether that directory's log holds changes not yet in the file.
func PageRecordsOfFile(path string, no uint32) (*FilePage, error) {
	dir := filepath.Dir(filepath.Dir(path))
	if _, err := os.Stat(filepath.Join(dir, "ibdata1")); err != nil {
		dir = filepath.Dir(path)
	}
	s, err := discovery.NewLayout(map[string]string{"datadir": dir})
	if err != nil {
		return nil, err
	}
	t, recs, err := PageRecords(s, path, no)
	if err != nil {
		return nil, err
	}
	fp := &FilePage{Table: t, Records: recs}
	if err := CheckClean(s); errors.As(err, new(ErrNeedsRecovery)) {
		fp.Stale = err
	}
	return fp, nil
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
