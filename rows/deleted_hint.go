package rows

import (
	"fmt"

	"innoscope/finding"
)

// DeletedHint is the DELETED_ROWS_ON_DISK info finding for a read of table (DB.TABLE) in
// data directory dir whose leaves held delete-marked records (Result.DeleteMarked): deleted
// rows that purge has not removed yet, which `rows --deleted` prints. Nil when there were none.
func DeletedHint(res *Result, dir, table string) *finding.Finding {
	if res == nil || res.DeleteMarked == 0 {
		return nil
	}
	return &finding.Finding{Severity: finding.Info, Code: "DELETED_ROWS_ON_DISK", File: res.File,
		Message: fmt.Sprintf("%d delete-marked records (deleted rows purge has not removed yet, or changes of uncommitted transactions) are still on the pages read: "+
			"`innoscope rows %s %s --deleted` prints the deleted rows still on disk", res.DeleteMarked, dir, table)}
}
