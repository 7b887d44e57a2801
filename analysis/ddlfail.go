package analysis

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"innoscope/discovery"
	"innoscope/report"
)

// DDL log actions whose steps go through InnoDB (the handler's drop_table and rename_table) and
// are simulated by ddlRecoveryFailures (sql/ddl_log.cc, ddl_log_execute_action).
const (
	ddlPartDelete  = 1 // drop the partition name
	ddlPartRename  = 2 // rename from_name to name
	ddlPartReplace = 3 // phase 0: drop name, then (phase 1) rename from_name to name
)

// ddlFailure is a pending DDL log action the server's DDL recovery cannot complete.
type ddlFailure struct {
	entry    discovery.DDLLogEntry
	from, to string // db/table names of the rename that fails
	src      string // from's file (absolute)
	target   string // the file in the rename's way (absolute)
	spaceID  uint32 // the tablespace of from, which keeps its name
	dropped  bool   // the action dropped to first, and the dictionary had no such table
}

// recoveredDict is the dictionary as InnoDB's crash recovery leaves it when the server's DDL
// recovery runs: the replayed SYS_TABLES (in.Undo) when there is one, else the one on disk with
// the log's file deletes and renames; the DDL transactions the crash cut rolled back. Live
// tables only, by name.
func recoveredDict(in Input) map[string]discovery.DictTable {
	base := in
	if in.Undo != nil && len(in.Undo.Tables) > 0 {
		base.Dict, base.Indexes = in.Undo.Tables, in.Undo.Indexes
	}
	out := map[string]discovery.DictTable{}
	for _, e := range Dictionary(base) {
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
	exists := map[string]bool{} // files the simulated actions removed (false) or made (true)
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
				to = filepath.Join(filepath.Dir(filepath.Dir(cur)), filepath.FromSlash(r.Table)+".ibd")
			}
			exists[to] = true
		}
	}
	for _, chain := range l.Pending() {
		for _, e := range chain {
			if !strings.EqualFold(e.Handler, "InnoDB") {
				continue
			}
			name := strings.TrimPrefix(e.Name, "./")
			from := strings.TrimPrefix(e.FromName, "./")
			dropped := false
			switch {
			case (e.Action == ddlPartReplace || e.Action == ddlPartDelete) && e.Phase == 0:
				if t, ok := dict[name]; ok {
					exists[tableFile(in.Datadir, t)] = false
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
			src := tableFile(in.Datadir, t)
			dst := filepath.Join(filepath.Dir(src), filepath.Base(name)+".ibd")
			if !fileExists(dst) {
				exists[src], exists[dst] = false, true
				delete(dict, from)
				t.Name = name
				dict[name] = t
				continue
			}
			out = append(out, ddlFailure{entry: e, from: from, to: name, src: src, target: dst, spaceID: t.SpaceID, dropped: dropped})
		}
	}
	return out
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
func (f ddlFailure) finding(in Input, logPath string) report.Finding {
	act := fmt.Sprintf("entry %d of %s, %s %s (from %s), phase %d", f.entry.Pos, logPath, f.entry.ActionName(), f.to, f.from, f.entry.Phase)
	why := fmt.Sprintf("the server renames %s to %s", f.from, f.to)
	if f.dropped {
		why = fmt.Sprintf("the server first drops %s, but the dictionary as crash recovery leaves it has no such table (the interrupted statement had dropped it), so InnoDB drops nothing and %s stays; then it renames %s to %s",
			f.to, f.target, f.from, f.to)
	}
	return report.Finding{Severity: report.Error, Code: "DDL_RECOVERY_FAILS", SpaceID: u32(f.spaceID), File: f.target,
		Message: fmt.Sprintf("the server's DDL recovery cannot complete %s: %s, which InnoDB refuses because %s exists (\"[ERROR] InnoDB: Cannot rename '%s' to '%s' because the target file exists.\"); the action is then marked done, the table keeps the name %s in the dictionary (its rows stay in %s, space %d) and %s, which the table definition names, is lost (\"[ERROR] Failed to open table %s.\", CHECK TABLE fails)",
			act, why, f.target, serverFileName(in.Datadir, f.src), serverFileName(in.Datadir, f.target), f.from, f.src, f.spaceID, f.to, f.to)}
}
