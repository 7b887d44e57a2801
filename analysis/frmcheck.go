package analysis

import (
	"fmt"
	"path/filepath"
	"strings"

	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/schema"
)

// dictKnown reports whether SYS_TABLES as crash recovery leaves it is known: recovered in memory
// (in.Undo), or on disk when the log has nothing to apply.
func dictKnown(in Input) bool {
	return (in.Undo != nil && len(in.Undo.Tables) > 0) || (in.Analysis != nil && in.Analysis.PageRecords == 0 && in.Dict != nil)
}

// frmFindings compares the .frm of every InnoDB table in the database directories with InnoDB's
// dictionary as crash recovery leaves it. The server opens a table by its .frm: one InnoDB does
// not have is "doesn't exist in engine" (FRM_NOT_IN_ENGINE), one with another number of
// columns than InnoDB's is marked corrupted (FRM_COLUMNS_MISMATCH); in both the server starts
// and the table fails CHECK TABLE. A log cut short leaves both (a salvage's log_truncated: a
// CREATE or RENAME TABLE, an instant ADD COLUMN after the cut; TestSalvageLostDDL). Tables a
// transaction left uncommitted (their rollback changes the dictionary) or the DDL log completes
// or reverts are not judged, nor a table the rollback of an uncommitted RENAME (TRUNCATE's
// too) gives its name back (TestSweep1053TruncateCut, TestDDLCutDataDirectoryTruncate); the
// in-place ALTER of a partitioned table the DDL log completes is judged by
// inplacePartitionFindings.
func frmFindings(in Input) []finding.Finding {
	if !dictKnown(in) {
		return nil
	}
	live := recoveredDict(in)
	active := map[uint64]bool{}
	restored := map[string]bool{} // names the rollback of uncommitted DDL gives back (TRUNCATE, RENAME cut)
	if in.Undo != nil {
		for _, t := range in.Undo.Trxs {
			active[t.ID] = true
		}
		for _, e := range PlanRollback(in.Undo.Trxs, in.Undo.Tables, in.Undo.Indexes) {
			if e.Action == "rename" {
				restored[e.Table] = true
			}
		}
	}
	ddlLog, _ := discovery.ReadDDLLog(filepath.Join(in.Datadir, "ddl_recovery.log"))
	fs := append(inplacePartitionFindings(in, ddlLog, live, active), createPartitionedFindings(in, ddlLog)...)
	ddl := ddlTables(ddlLog)
	frms, _ := filepath.Glob(filepath.Join(in.Datadir, "*", "*.frm"))
	for _, p := range frms {
		name := filepath.Base(filepath.Dir(p)) + "/" + strings.TrimSuffix(filepath.Base(p), ".frm")
		if strings.Contains(name, "#sql") || ddl[name] || ddl[strings.TrimPrefix(name, filepath.Base(filepath.Dir(p))+"/")] {
			continue
		}
		innodb, cols, err := schema.FrmColumns(p)
		if err != nil || !innodb {
			continue // a view, another engine, a partitioned table, or no .frm the server reads either
		}
		d, ok := live[name]
		switch {
		case ok && active[d.TrxID]:
		case !ok && restored[name]:
		case !ok:
			fs = append(fs, finding.Finding{Severity: finding.Error, Code: "FRM_NOT_IN_ENGINE", File: p,
				Message: fmt.Sprintf("%s defines the InnoDB table %s, which InnoDB's dictionary does not hold (after crash recovery): the server starts, but the table fails (\"Table '%s' doesn't exist in engine\", CHECK TABLE fails); the table's DDL is not in the dictionary (a log cut before its CREATE or RENAME TABLE?): restore the table from a backup, or DROP TABLE it", p, discovery.SQLTableName(name), discovery.SQLName(filepath.Base(name)))})
		case d.NCols&0xffff+d.NCols>>16 != uint32(cols):
			fs = append(fs, finding.Finding{Severity: finding.Error, Code: "FRM_COLUMNS_MISMATCH", SpaceID: u32(d.SpaceID), File: p,
				Message: fmt.Sprintf("%s defines %d columns for %s, InnoDB's dictionary (after crash recovery) %d: the server starts, but marks the table corrupted (\"Table %s is corrupted. Please drop the table and recreate\", CHECK TABLE fails); an ALTER TABLE (an instant ADD or DROP COLUMN) reached the .frm and not the dictionary (a log cut before it?): restore the table from a backup",
					p, cols, discovery.SQLTableName(name), d.NCols&0xffff+d.NCols>>16, discovery.SQLTableName(name))})
		}
	}
	return fs
}
