package analysis

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"innoscope/discovery"
	"innoscope/finding"
)

// createPartitionedFindings: the server's DDL recovery reverts a CREATE TABLE of a partitioned
// table the crash cut (a pending "create table" action of the partition engine) by dropping the
// table through that engine, which reads the table's .frm first, and deletes the .frm only when
// the drop worked (sql/ddl_log.cc, DDL_LOG_CREATE_TABLE_ACTION). A .frm the crash left empty
// (created, its bytes not yet written) makes the drop fail: the recovery leaves the .frm (and
// the .par) behind, the server starts, and the table fails ("Incorrect information in file",
// CHECK TABLE: Corrupt). Checked on MariaDB 10.11 (crash sweep seed 11550, CREATE TABLE ... LIKE
// of a partitioned table): with the empty .frm replaced by a readable one, the recovery removed
// both files and every table passed. FRM_UNREADABLE, one finding a table.
func createPartitionedFindings(in Input, l *discovery.DDLLog) []finding.Finding {
	var fs []finding.Finding
	for _, chain := range l.Pending() {
		for _, e := range chain {
			if e.ActionName() != "create table" || e.Handler != "partition" || e.Done() || e.TmpName == "" {
				continue
			}
			base := filepath.Join(in.Datadir, filepath.FromSlash(strings.TrimPrefix(e.TmpName, "./")))
			frm := base + ".frm"
			if fi, err := os.Lstat(frm); err != nil || !fi.Mode().IsRegular() || fi.Size() != 0 {
				continue // no .frm (nothing to fail) or one with bytes: the drop reads it
			}
			table := discovery.SQLName(e.DB) + "." + discovery.SQLName(e.Name)
			fs = append(fs, finding.Finding{Severity: finding.Error, Code: "FRM_UNREADABLE", File: frm,
				Message: fmt.Sprintf("%s is empty: the crash cut CREATE TABLE %s (a partitioned table) before its .frm was written. The server's DDL recovery drops such a table through the partition engine, which cannot read this .frm, so it leaves the file (and %s.par) behind: the server starts, but the table fails (\"Incorrect information in file: '%s'\", CHECK TABLE fails). The CREATE TABLE never completed and the table holds no rows: delete %s and %s.par (and any %s#P#* file), then create the table again",
					frm, table, base, "./"+strings.TrimPrefix(e.TmpName, "./")+".frm", frm, base, base)})
		}
	}
	return fs
}
