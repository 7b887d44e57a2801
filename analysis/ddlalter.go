package analysis

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"innoscope/discovery"
	"innoscope/finding"
)

// The ALTER TABLE action of the DDL log (sql/ddl_log.cc, ddl_log_execute_action; the phases
// and flags of sql/ddl_log.h) as far as ddlRecoveryFailures simulates it.
const (
	ddlAlterTable = 16 // alter table
	// A copying ALTER TABLE has copied the rows into the new table (#sql-alter-...) and
	// committed; the original table still has its name. Recovery drops the original and goes on
	// as in ddlAlterOldRenamed.
	ddlAlterCopied = 6
	// The original table was renamed to the backup name (#sql-backup-...). Recovery renames the
	// new table to the original name and drops the backup.
	ddlAlterOldRenamed = 7

	ddlFlagAlterRename    = 1 << 0 // ALTER TABLE ... RENAME
	ddlFlagAlterPartition = 1 << 4 // the table was partitioned before and after, same engine
)

// alterFailure is the detail of a ddlFailure for a copying ALTER TABLE of a partitioned table
// that the server's DDL recovery completes with the wrong handler.
type alterFailure struct {
	tmp   string                // db/#sql-alter-... (the new table)
	parts []discovery.DictTable // the new table's partitions, where the copied rows are
}

// partitionAlter reports whether e is the ALTER TABLE action of a partitioned table (no RENAME)
// whose new table has a #sql- name and whose names are their own file names (plainName).
func partitionAlter(e discovery.DDLLogEntry) bool {
	return e.Action == ddlAlterTable && e.Flags&ddlFlagAlterPartition != 0 && e.Flags&ddlFlagAlterRename == 0 &&
		plainName.MatchString(e.DB) && plainName.MatchString(e.FromDB) && plainName.MatchString(e.FromName) &&
		strings.HasPrefix(e.Name, "#sql-") && !strings.ContainsAny(e.Name, `/\`)
}

// alterPartitionFailure: the crash cut a copying ALTER TABLE of a partitioned table after the
// rows were copied and before the new table (#sql-alter-...) took the original name (the DDL log
// entry is alter table, flag "partition", phase copied or old renamed). The server's DDL recovery
// first drops the original table through the partition engine (phase copied: its partitions and
// its .par and .frm files) and then renames the new table to the original name through the
// handler the entry names, which for a partitioned table is the underlying engine's (InnoDB),
// not the partition engine's. InnoDB has no table named db/#sql-alter-... (only its partitions
// #P#...), so that rename does nothing, and only the .frm file is renamed afterwards: the table
// is left with the new .frm, no .par file and no partitions under its name (CHECK TABLE: "Failed
// to read from the .par file", Corrupt; crash-sweep seed 2206). At phase old renamed the recovery
// then drops the backup (#sql-backup-..., the original rows) through the partition engine. It
// happens while the new table's .par and .frm files still have the #sql-alter name (the
// statement renames the partitions, then the .par, then the .frm; once the .par is renamed, the
// table is whole and the recovery only renames the .frm).
func alterPartitionFailure(in Input, e discovery.DDLLogEntry, dict map[string]discovery.DictTable, fileExists func(string) bool) (ddlFailure, bool) {
	if !partitionAlter(e) || (e.Phase != ddlAlterCopied && e.Phase != ddlAlterOldRenamed) {
		return ddlFailure{}, false
	}
	tmp, from := e.DB+"/"+e.Name, e.FromDB+"/"+e.FromName
	if !fileExists(absPath(in.Datadir, tmp+".par")) || !fileExists(absPath(in.Datadir, tmp+".frm")) {
		return ddlFailure{}, false
	}
	var parts []discovery.DictTable
	for n, t := range dict {
		// at phase old renamed, partitions under the original name are new ones the statement
		// had renamed already (the original partitions have the backup name)
		if frmName(n) == tmp && n != tmp || e.Phase == ddlAlterOldRenamed && frmName(n) == from && n != from {
			parts = append(parts, t)
		}
	}
	if len(parts) == 0 {
		return ddlFailure{}, false
	}
	sort.Slice(parts, func(i, j int) bool {
		a, b := parts[i].Name, parts[j].Name
		return len(a) < len(b) || len(a) == len(b) && a < b
	})
	return ddlFailure{entry: e, from: tmp, to: from, src: partFile(in, parts[0]), spaceID: parts[0].SpaceID,
		alter: &alterFailure{tmp: tmp, parts: parts}}, true
}

// partFile is the file that holds partition t in the crashed directory: the one its .isl or its
// name points to, or when there is none (a rename of the file that the crash cut, which InnoDB's
// rollback undoes), the file the log names for its space.
func partFile(in Input, t discovery.DictTable) string {
	p := tableFile(in.Datadir, t)
	if !onDisk(p) && in.Analysis != nil {
		if s := in.Analysis.Map.Spaces[t.SpaceID]; s != nil && !s.Deleted && onDisk(absPath(in.Datadir, s.Name)) {
			return absPath(in.Datadir, s.Name)
		}
	}
	return p
}

// onDisk reports whether p exists (a link counts).
func onDisk(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// alterFinding is DDL_RECOVERY_FAILS (error) for an alterPartitionFailure f.
func (f ddlFailure) alterFinding(in Input, logPath string) finding.Finding {
	sqlName := discovery.SQLTableName
	var where []string
	for _, p := range f.alter.parts {
		where = append(where, fmt.Sprintf("%s (space %d, %s)", p.Name, p.SpaceID, partFile(in, p)))
	}
	par := absPath(in.Datadir, f.to+".par")
	first := fmt.Sprintf("the original table was renamed to %s already; the server renames", sqlName(f.entry.FromDB+"/"+f.entry.ExtraName))
	then := fmt.Sprintf(", then drops %s (the original rows) through the partition engine", sqlName(f.entry.FromDB+"/"+f.entry.ExtraName))
	if f.entry.Phase == ddlAlterCopied {
		first = fmt.Sprintf("the server drops the original table %s through the partition engine (its partitions, %s and %s.frm go), then renames", sqlName(f.to), par, absPath(in.Datadir, f.to))
		then = ""
	}
	return finding.Finding{Severity: finding.Error, Code: "DDL_RECOVERY_FAILS", SpaceID: u32(f.spaceID), File: f.src,
		Message: fmt.Sprintf("the server's DDL recovery cannot complete ALTER TABLE %s (entry %d of %s, %s, phase %d: the rows were copied into %s): %s %s to %s through InnoDB's handler instead of the partition engine; InnoDB has no table %s (only its partitions), so nothing is renamed but %s.frm, which becomes %s.frm%s. %s is left with the new definition and no %s (CHECK TABLE %s fails: \"Failed to read from the .par file\", \"Corrupt\"); the copied rows stay in %s, which %s.par lists",
			sqlName(f.to), f.entry.Pos, logPath, f.entry.ActionName(), f.entry.Phase, sqlName(f.alter.tmp), first, sqlName(f.alter.tmp), sqlName(f.to),
			f.alter.tmp, absPath(in.Datadir, f.alter.tmp), absPath(in.Datadir, f.to), then, sqlName(f.to), par, sqlName(f.to),
			strings.Join(where, ", "), filepath.Join(discovery.ResolvePath(in.Datadir), filepath.FromSlash(f.alter.tmp)))}
}
