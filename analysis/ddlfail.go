package analysis

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"innoscope/discovery"
	"innoscope/finding"
)

// DDL log actions whose steps go through InnoDB (the handler's drop_table and rename_table) and
// are simulated by ddlRecoveryFailures (sql/ddl_log.cc, ddl_log_execute_action).
const (
	ddlPartDelete  = 1 // drop the partition name
	ddlPartRename  = 2 // rename from_name to name
	ddlPartReplace = 3 // phase 0: drop name, then (phase 1) rename from_name to name
	ddlRenameTable = 5 // revert RENAME TABLE: rename db.name back to from_db.from_name
)

// ddlFailure is a pending DDL log action the server's DDL recovery cannot complete.
type ddlFailure struct {
	entry    discovery.DDLLogEntry
	from, to string // db/table names of the rename that fails
	src      string // from's file (absolute)
	target   string // the file in the rename's way (absolute)
	spaceID  uint32 // the tablespace of from, which keeps its name
	dropped  bool   // the action dropped to first, and the dictionary had no such table
	// lost: the revert of a RENAME TABLE of a partitioned table (from is the table's original
	// db/name, to the new one) renames nothing; these partitions keep their new names.
	lost []discovery.DictTable
	// parMoved: the statement had renamed the .par file too (only the .frm keeps the old name).
	parMoved bool
	// alter: a copying ALTER TABLE of a partitioned table (from is its new table, to the table).
	alter *alterFailure
}

// recoveredDict is the dictionary as InnoDB's crash recovery leaves it when the server's DDL
// recovery runs: the replayed SYS_TABLES (in.Undo) when there is one, else the one on disk with
// the log's file deletes and renames; the DDL transactions the crash cut rolled back. Live
// tables only, by name.
func recoveredDict(in Input) map[string]discovery.DictTable {
	out := map[string]discovery.DictTable{}
	for _, e := range Dictionary(in) {
		if !e.Deleted {
			out[e.Name] = e.DictTable
		}
	}
	return out
}

// ddlRecoveryFailures runs the pending actions of l against the dictionary as crash recovery
// leaves it and the files on disk, the way the server's DDL recovery executes them after InnoDB's
// crash recovery: the drop of a partitioning replace (or delete) asks InnoDB to drop the table by
// its dictionary name, which does nothing (and removes no file) when the dictionary has no such
// table; the rename that follows (and a partitioning rename) asks InnoDB to rename the table,
// which refuses when a file exists at the new name ("Cannot rename ... because the target file
// exists"). The server ignores the failure and marks the action done: the table keeps the old
// (#TMP#) name in the dictionary and the new name, which the table definition names, cannot be
// opened.
func ddlRecoveryFailures(in Input, l *discovery.DDLLog) []ddlFailure {
	var out []ddlFailure
	dict := recoveredDict(in)
	exists := map[string]bool{}  // files the simulated actions removed (false) or made (true)
	moved := map[string]string{} // table → its file, for the tables the simulated actions renamed
	fileOf := func(t discovery.DictTable) string {
		if p, ok := moved[t.Name]; ok {
			return p
		}
		return tableFile(in.Datadir, t)
	}
	fileExists := func(p string) bool {
		if v, ok := exists[p]; ok {
			return v
		}
		_, err := os.Lstat(p)
		return err == nil
	}
	// The rollback of a DDL transaction the crash cut moves or removes files before the DDL
	// recovery runs (a RENAME of #TMP# to the partition's name renamed back: the lab's
	// tmp_partition crash).
	for _, r := range pendingRollback(in) {
		cur := absPath(in.Datadir, in.Analysis.Map.Spaces[r.SpaceID].Name)
		exists[cur] = false
		if r.Action == "rename" {
			to := absPath(in.Datadir, r.Table+".ibd")
			if !discovery.Within(cur, discovery.ResolvePath(in.Datadir)) {
				to = RemoteRenameTarget(cur, r.Table)
			}
			exists[to] = true
		}
	}
	for _, chain := range l.Pending() {
		for _, e := range chain {
			if e.Action == ddlRenameTable && strings.EqualFold(e.Handler, "partition") {
				if f, ok := partitionRevertFailure(in, e, dict, fileExists); ok {
					out = append(out, f)
				}
				continue
			}
			if e.Action == ddlAlterTable {
				if f, ok := alterPartitionFailure(in, e, dict, fileExists); ok {
					out = append(out, f)
				}
				continue
			}
			if !strings.EqualFold(e.Handler, "InnoDB") {
				continue
			}
			name := strings.TrimPrefix(e.Name, "./")
			from := strings.TrimPrefix(e.FromName, "./")
			dropped := false
			switch {
			case (e.Action == ddlPartReplace || e.Action == ddlPartDelete) && e.Phase == 0:
				if t, ok := dict[name]; ok {
					exists[fileOf(t)] = false
					delete(dict, name)
				} else {
					dropped = true
				}
				if e.Action == ddlPartDelete {
					continue
				}
			case e.Action == ddlPartReplace || e.Action == ddlPartRename:
			default:
				continue
			}
			t, ok := dict[from]
			if !ok || from == "" || name == "" {
				continue // InnoDB has no such table to rename: nothing happens
			}
			if _, taken := dict[name]; taken {
				continue
			}
			src := fileOf(t)
			dst := filepath.Join(filepath.Dir(src), filepath.Base(name)+".ibd")
			if !fileExists(dst) {
				exists[src], exists[dst] = false, true
				delete(dict, from)
				t.Name = name
				dict[name], moved[name] = t, dst
				continue
			}
			out = append(out, ddlFailure{entry: e, from: from, to: name, src: src, target: dst, spaceID: t.SpaceID, dropped: dropped})
		}
	}
	return out
}

// RemoteRenameTarget is where the server moves the DATA DIRECTORY file at p of a table renamed
// to table (db/name): the same directory, the new table's name (os_file_make_new_pathname), even
// when the database changes; seen in a crash sweep, whose log renamed DIR/db2/s1t1.ibd to
// DIR/db2/s1t4.ibd for RENAME TABLE db2.s1t1 TO db1.s1t4 (seed 10026).
func RemoteRenameTarget(p, table string) string {
	return filepath.Join(filepath.Dir(p), path.Base(table)+".ibd")
}

// plainName matches the table and database names whose file name is the name itself (the DDL
// log spells RENAME TABLE's names as SQL does; the server encodes other characters in files).
var plainName = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// partitionRevertFailure: the server's DDL recovery reverts a RENAME TABLE of a partitioned table
// that the crash cut (rename table action, handler partition) by asking the partition engine to
// rename e.DB.e.Name back to e.FromDB.e.FromName. The partition engine renames the partitions
// that the table's .par file lists, and when the .par file of e.Name does not exist it renames
// nothing (it reports "no such table", which the DDL recovery ignores). The statement renames
// the partitions one by one, each in its own committed InnoDB transaction, and the .par and .frm
// files after them: a crash in between leaves some partitions under the new name in the
// dictionary and the .par and .frm under the original name, which then names partitions InnoDB
// does not have (crash-sweep seeds 1312, 1480).
func partitionRevertFailure(in Input, e discovery.DDLLogEntry, dict map[string]discovery.DictTable, fileExists func(string) bool) (ddlFailure, bool) {
	for _, n := range []string{e.DB, e.Name, e.FromDB, e.FromName} {
		if !plainName.MatchString(n) {
			return ddlFailure{}, false
		}
	}
	to, from := e.DB+"/"+e.Name, e.FromDB+"/"+e.FromName
	// The .frm is renamed last: still under the original name, the revert renames nothing,
	// whether the .par is there too (seeds 1312, 1480) or was renamed with the partitions
	// (crash-sweep --ddl-kill seeds 7109, 7208, 7209: "Failed to read from the .par file", Corrupt).
	parMoved := fileExists(absPath(in.Datadir, to+".par"))
	if !fileExists(absPath(in.Datadir, from+".frm")) || fileExists(absPath(in.Datadir, to+".frm")) ||
		!parMoved && !fileExists(absPath(in.Datadir, from+".par")) {
		return ddlFailure{}, false
	}
	var lost []discovery.DictTable
	for n, t := range dict {
		if n != to && frmName(n) == to {
			lost = append(lost, t)
		}
	}
	if len(lost) == 0 {
		return ddlFailure{}, false
	}
	sort.Slice(lost, func(i, j int) bool {
		a, b := lost[i].Name, lost[j].Name
		return len(a) < len(b) || len(a) == len(b) && a < b
	})
	return ddlFailure{entry: e, from: from, to: to, src: tableFile(in.Datadir, lost[0]), spaceID: lost[0].SpaceID, lost: lost, parMoved: parMoved}, true
}

// tableFile is the absolute path of table t's file: db/t.ibd in datadir, or for a DATA
// DIRECTORY table the file its .isl names.
func tableFile(datadir string, t discovery.DictTable) string {
	if t.DataDir() {
		if p, err := discovery.ReadISL(filepath.Join(datadir, t.Name+".isl")); err == nil {
			return discovery.ResolvePath(p)
		}
	}
	return absPath(datadir, t.Name+".ibd")
}

// serverFileName is a table's file as the server's messages spell it: ./db/t.ibd in the data
// directory, else its absolute path.
func serverFileName(datadir, p string) string {
	if rel, err := filepath.Rel(discovery.ResolvePath(datadir), p); err == nil && !strings.HasPrefix(rel, "..") {
		return "./" + filepath.ToSlash(rel)
	}
	return p
}

// finding is DDL_RECOVERY_FAILS (error) for f.
func (f ddlFailure) finding(in Input, logPath string) finding.Finding {
	if f.alter != nil {
		return f.alterFinding(in, logPath)
	}
	if f.lost != nil {
		var kept, names []string
		for _, t := range f.lost {
			kept = append(kept, t.Name)
			names = append(names, f.from+strings.TrimPrefix(t.Name, f.to))
		}
		if f.parMoved {
			return finding.Finding{Severity: finding.Error, Code: "DDL_RECOVERY_FAILS", SpaceID: u32(f.spaceID), File: f.src,
				Message: fmt.Sprintf("the server's DDL recovery does not revert RENAME TABLE %s TO %s (entry %d of %s, %s, phase %d): the crash came after the statement renamed %d partition(s) and the .par file (%s) and before it renamed the .frm, and the recovery renames nothing back; InnoDB's dictionary keeps %s and the .par keeps its new name while %s.frm names %s, which the table loses (CHECK TABLE: \"Failed to read from the .par file\", \"Corrupt\"); the rows stay in %s",
					discovery.SQLTableName(f.from), discovery.SQLTableName(f.to), f.entry.Pos, logPath, f.entry.ActionName(), f.entry.Phase,
					len(f.lost), absPath(in.Datadir, f.to+".par"), strings.Join(kept, ", "), f.from, strings.Join(names, ", "), f.src)}
		}
		return finding.Finding{Severity: finding.Error, Code: "DDL_RECOVERY_FAILS", SpaceID: u32(f.spaceID), File: f.src,
			Message: fmt.Sprintf("the server's DDL recovery cannot revert RENAME TABLE %s TO %s (entry %d of %s, %s, phase %d): the partition engine renames the table back by its .par file, %s, which does not exist (the crash came after the statement renamed %d partition(s) and before it renamed the .par and .frm files), so nothing is renamed; InnoDB's dictionary keeps %s while %s.frm and %s.par name %s, which the table loses (\"[ERROR] Failed to open table %s.\", CHECK TABLE fails); the rows stay in %s",
				discovery.SQLTableName(f.from), discovery.SQLTableName(f.to), f.entry.Pos, logPath, f.entry.ActionName(), f.entry.Phase,
				absPath(in.Datadir, f.to+".par"), len(f.lost), strings.Join(kept, ", "), f.from, f.from, strings.Join(names, ", "), names[0], f.src)}
	}
	act := fmt.Sprintf("entry %d of %s, %s %s (from %s), phase %d", f.entry.Pos, logPath, f.entry.ActionName(), f.to, f.from, f.entry.Phase)
	why := fmt.Sprintf("the server renames %s to %s", f.from, f.to)
	if f.dropped {
		why = fmt.Sprintf("the server first drops %s, but the dictionary as crash recovery leaves it has no such table (the interrupted statement had dropped it), so InnoDB drops nothing and %s stays; then it renames %s to %s",
			f.to, f.target, f.from, f.to)
	}
	return finding.Finding{Severity: finding.Error, Code: "DDL_RECOVERY_FAILS", SpaceID: u32(f.spaceID), File: f.target,
		Message: fmt.Sprintf("the server's DDL recovery cannot complete %s: %s, which InnoDB refuses because %s exists (\"[ERROR] InnoDB: Cannot rename '%s' to '%s' because the target file exists.\"); the action is then marked done, the table keeps the name %s in the dictionary (its rows stay in %s, space %d) and %s, which the table definition names, is lost (\"[ERROR] Failed to open table %s.\", CHECK TABLE fails)",
			act, why, f.target, serverFileName(in.Datadir, f.src), serverFileName(in.Datadir, f.target), f.from, f.src, f.spaceID, f.to, f.to)}
}
