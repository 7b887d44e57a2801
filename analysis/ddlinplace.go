package analysis

import (
	"fmt"
	"sort"
	"strings"

	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/schema"
)

// DDL log ALTER TABLE phases of an in-place ALTER (sql/ddl_log.h).
const (
	ddlAlterInplaceCopied = 2 // the engine committed: the new .frm is installed
	ddlAlterInplace       = 3 // the engine may or may not have committed: the recovery asks it
)

// inplacePartitionFindings: the crash cut an in-place ALTER TABLE (an instant ADD COLUMN, for
// one) of a partitioned table while the new definition was still in db/#sql-alter-....frm (DDL
// log entry alter table, flag "partition", phase inplace). The server's DDL recovery installs
// the new .frm over the table's when the engine says its table has the new version; it asks the
// partition engine, which has no version check, so it installs it whatever InnoDB committed
// (sql/ddl_log.cc, DDL_ALTER_TABLE_PHASE_INPLACE). When InnoDB's partitions, after crash recovery
// and the rollback of the uncommitted ALTER, have another number of columns than the new .frm,
// the server starts but marks the table corrupted ("contains 3 user defined columns in InnoDB,
// but 4 columns in MariaDB", CHECK TABLE: Corrupt): crash-sweep seed 10121, cut in ALTER TABLE
// db2.s2t8 ADD COLUMN c1 ... ALGORITHM=INSTANT. Its partitions count as rolled back to the
// original .frm's columns when the transaction that wrote their dictionary record is one crash
// recovery rolls back (active). l is ddl_recovery.log as the crash left it.
func inplacePartitionFindings(in Input, l *discovery.DDLLog, live map[string]discovery.DictTable, active map[uint64]bool) []finding.Finding {
	var fs []finding.Finding
	for _, chain := range l.Pending() {
		for _, e := range chain {
			if !partitionAlter(e) || (e.Phase != ddlAlterInplace && e.Phase != ddlAlterInplaceCopied) {
				continue
			}
			if f, ok := inplacePartitionFinding(in, e, live, active); ok {
				fs = append(fs, f)
			}
		}
	}
	return fs
}

func inplacePartitionFinding(in Input, e discovery.DDLLogEntry, live map[string]discovery.DictTable, active map[uint64]bool) (finding.Finding, bool) {
	newFrm := absPath(in.Datadir, e.DB+"/"+e.Name+".frm")
	oldFrm := absPath(in.Datadir, e.FromDB+"/"+e.FromName+".frm")
	_, newCols, err := schema.FrmColumns(newFrm)
	if err != nil {
		return finding.Finding{}, false
	}
	_, oldCols, oldErr := schema.FrmColumns(oldFrm)
	table := e.FromDB + "/" + e.FromName
	var parts []string
	innodbCols := -1
	for n, d := range live {
		if !partitionOf(n, table) {
			continue
		}
		cols := int(d.NCols&0xffff + d.NCols>>16)
		if active[d.TrxID] {
			if oldErr != nil {
				return finding.Finding{}, false // what the rollback leaves is not known
			}
			cols = oldCols
		}
		if cols != newCols {
			parts = append(parts, n)
			innodbCols = cols
		}
	}
	if len(parts) == 0 {
		return inplacePartitionIndexes(in, e, live, active, newFrm, oldFrm)
	}
	sort.Strings(parts)
	sqlName := discovery.SQLTableName
	return finding.Finding{Severity: finding.Error, Code: "FRM_COLUMNS_MISMATCH", SpaceID: u32(live[parts[0]].SpaceID), File: oldFrm,
		Message: fmt.Sprintf("the server's DDL recovery completes the in-place ALTER TABLE %s that the crash cut (entry %d of ddl_recovery.log, %s, phase %d, a partitioned table): it installs %s (%d columns) as %s, asking the partition engine, which does not check what InnoDB committed; InnoDB's dictionary after crash recovery has %d columns for %s: the server starts, but marks the table corrupted (\"Table %s is corrupted. Please drop the table and recreate\", CHECK TABLE: Corrupt): restore the table from a backup, or read its rows first (`innoscope rows`)",
			sqlName(table), e.Pos, e.ActionName(), e.Phase, newFrm, newCols, oldFrm, innodbCols, strings.Join(parts, ", "), sqlName(parts[0]))}, true
}

// inplacePartitionIndexes is inplacePartitionFinding for the indexes: the cut ALTER added or
// dropped an index (ADD INDEX, in place), the DDL recovery installs the new .frm, and InnoDB's
// partitions, after crash recovery, hold another number of indexes than it defines. InnoDB
// counts a partition's indexes as the server opens it (innobase_build_index_translation): its
// committed ones, without GEN_CLUST_INDEX and without an FTS_DOC_ID_INDEX the .frm does not
// define; an index whose name begins with 0xff (made by an ALTER that did not commit) is dropped
// at start-up, and one a transaction that crash recovery rolls back inserted is gone. The server
// starts, and the table fails ("contains 2 indexes inside InnoDB, which is different from the
// number of indexes 3 defined in the .frm file"): crash-sweep seed 13704, cut in ALTER TABLE
// db1.s2t1 ADD INDEX iv (v(20)).
func inplacePartitionIndexes(in Input, e discovery.DDLLogEntry, live map[string]discovery.DictTable, active map[uint64]bool, newFrm, oldFrm string) (finding.Finding, bool) {
	if in.Undo == nil || len(in.Undo.Indexes) == 0 {
		return finding.Finding{}, false
	}
	keys, err := schema.ReadFrmKeys(newFrm)
	if err != nil {
		return finding.Finding{}, false
	}
	ftsDocID := false
	for _, k := range keys {
		ftsDocID = ftsDocID || strings.EqualFold(k.Name, "FTS_DOC_ID_INDEX")
	}
	table := e.FromDB + "/" + e.FromName
	var parts []string
	innodb := 0
	for n, d := range live {
		if !partitionOf(n, table) || active[d.TrxID] {
			continue
		}
		count := 0
		for _, ix := range in.Undo.Indexes {
			if ix.TableID != d.ID || ix.Deleted || active[ix.TrxID] || strings.HasPrefix(ix.Name, "\xff") ||
				ix.Name == "GEN_CLUST_INDEX" || ix.Name == "FTS_DOC_ID_INDEX" && !ftsDocID {
				continue
			}
			count++
		}
		if count != len(keys) {
			parts = append(parts, n)
			innodb = count
		}
	}
	if len(parts) == 0 {
		return finding.Finding{}, false
	}
	sort.Strings(parts)
	sqlName := discovery.SQLTableName
	return finding.Finding{Severity: finding.Error, Code: "FRM_INDEXES_MISMATCH", SpaceID: u32(live[parts[0]].SpaceID), File: oldFrm,
		Message: fmt.Sprintf("the server's DDL recovery completes the in-place ALTER TABLE %s that the crash cut (entry %d of ddl_recovery.log, %s, phase %d, a partitioned table): it installs %s (%d indexes) as %s, asking the partition engine, which does not check what InnoDB committed; InnoDB's dictionary after crash recovery has %d indexes for %s: the server starts, but the table fails (\"Table %s contains %d indexes inside InnoDB, which is different from the number of indexes %d defined in the .frm file\", CHECK TABLE fails): ALTER TABLE %s FORCE rebuilds it to its .frm, or restore the table from a backup",
			sqlName(table), e.Pos, e.ActionName(), e.Phase, newFrm, len(keys), oldFrm, innodb, strings.Join(parts, ", "), parts[0], innodb, len(keys), sqlName(table))}, true
}

// partitionOf reports whether the dictionary name n ("db/t#P#p0") is a partition of table
// ("db/t").
func partitionOf(n, table string) bool {
	return strings.HasPrefix(n, table+"#P#") || strings.HasPrefix(n, table+"#p#")
}
