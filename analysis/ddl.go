package analysis

import (
	"fmt"
	"path/filepath"
	"strings"

	"innoscope/discovery"
	"innoscope/finding"
)

// ddlTables are the db/table names the pending actions of a DDL log touch (nil log: none).
// Their statements were cut by the crash: after InnoDB's recovery, which rolls back the
// statement's uncommitted dictionary transaction (renaming a file back), the server's DDL
// recovery completes or reverts them.
func ddlTables(l *discovery.DDLLog) map[string]bool {
	tables := map[string]bool{}
	for _, chain := range l.Pending() {
		for _, e := range chain {
			for _, n := range []string{e.DB + "/" + e.Name, e.FromDB + "/" + e.FromName, e.DB + "/" + e.ExtraName,
				e.Name, e.FromName, e.TmpName} {
				if t := TableName(strings.TrimPrefix(n, "./")); t != "" && !strings.HasSuffix(t, "/") && !strings.HasPrefix(t, "/") {
					tables[t] = true
				}
			}
		}
	}
	return tables
}

// PendingDDL reads datadir's ddl_recovery.log and returns ddlTables of it.
func PendingDDL(datadir string) (map[string]bool, error) {
	l, err := discovery.ReadDDLLog(filepath.Join(datadir, "ddl_recovery.log"))
	if err != nil {
		return nil, err
	}
	return ddlTables(l), nil
}

// deferredFinding: a file too short for page 0 is usable when the log rebuilds page 0 or does
// not change the tablespace at all (the server's recover_deferred); otherwise recovery fails.
func deferredFinding(in Input, e expectation, t discovery.Tablespace) *finding.Finding {
	if in.Analysis == nil {
		return nil
	}
	read, named := in.Analysis.Pages[PageID{e.id, 0}]
	if named && !read {
		return nil // INIT_PAGE rebuilds page 0
	}
	for id := range in.Analysis.Pages {
		if id.Space == e.id {
			return &finding.Finding{Severity: finding.Error, Code: "SPACE_ID_MISMATCH", SpaceID: u32(e.id), File: t.Path, LSN: e.lsn,
				Message: fmt.Sprintf("the file is too short to hold page 0 (%s) and the log changes space %d without rebuilding page 0: the server cannot apply the log (\"Cannot apply log to ... of corrupted file\")", t.Error, e.id)}
		}
	}
	return nil
}

// ddlLogFindings: the statements ddl_recovery.log makes the server complete or revert after
// crash recovery (DDL_RECOVERY, info), those it cannot complete (DDL_RECOVERY_FAILS, error:
// ddlRecoveryFailures), and the db/table names their actions touch, without those whose file
// blocks a failing rename.
func ddlLogFindings(in Input) ([]finding.Finding, map[string]bool) {
	path := filepath.Join(in.Datadir, "ddl_recovery.log")
	l, err := discovery.ReadDDLLog(path)
	if err != nil {
		return []finding.Finding{{Severity: finding.Warning, Code: "DDL_RECOVERY", File: path,
			Message: "cannot read the DDL log: " + err.Error()}}, nil
	}
	tables := ddlTables(l)
	var what []string
	for _, chain := range l.Pending() {
		for _, e := range chain {
			if e.ActionName() == "store query" {
				continue
			}
			w := fmt.Sprintf("%s %s", e.ActionName(), strings.TrimPrefix(e.Name, "./"))
			if e.DB != "" {
				w = fmt.Sprintf("%s %s.%s", e.ActionName(), e.DB, e.Name)
			}
			if e.FromName != "" {
				w += " (from " + strings.TrimPrefix(strings.TrimPrefix(e.FromDB+"."+e.FromName, "."), "./") + ")"
			}
			what = append(what, fmt.Sprintf("%s, phase %d", w, e.Phase))
		}
	}
	if len(what) == 0 {
		return nil, tables
	}
	fs := []finding.Finding{{Severity: finding.Info, Code: "DDL_RECOVERY", File: path,
		Message: fmt.Sprintf("after crash recovery the server completes or reverts %d interrupted DDL action(s): %s", len(what), strings.Join(what, "; "))}}
	for _, f := range ddlRecoveryFailures(in, l) {
		fs = append(fs, f.finding(in, path))
		if f.target != "" {
			// the file in the way is no leftover the DDL recovery removes (its ORPHAN_FILE says so)
			delete(tables, TableName(f.target))
		}
	}
	return fs, tables
}
