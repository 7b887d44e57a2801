package analysis

import (
	"fmt"
	"path/filepath"
	"sort"

	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/mysqldd"
)

// mysqlDictionary reads the data dictionary of a MySQL 8 directory (mysql.ibd) and judges the
// files against it (mysqldd.Check): the tablespaces of in.Spaces get their tables and the
// dictionary's file names, the files the dictionary places outside the scanned directories
// join in.Spaces, and a space the redo log changes that no known directory holds stops MySQL's
// recovery. The findings fs already holds get the tables of their space in their message; the
// scan's location findings for a space the dictionary knows give way to the dictionary's.
func mysqlDictionary(s discovery.Layout, in *Input, fs []finding.Finding) []finding.Finding {
	d, err := mysqldd.Load(s)
	if err != nil {
		return append(fs, finding.Finding{Severity: finding.Warning, Code: "DICTIONARY_UNREADABLE", File: filepath.Join(s.Datadir, mysqldd.File),
			Message: "the MySQL data dictionary in mysql.ibd could not be read, so tables are not named and its file paths are not checked: " + err.Error()})
	}
	if d == nil {
		mysqldd.AnnotateFromSDI(in.Spaces) // MySQL 8 files without their mysql.ibd
		return fs
	}
	logged := map[uint32]bool{}
	names := map[uint32]string{}
	if in.Analysis != nil {
		for id, sp := range in.Analysis.Map.Spaces {
			if !sp.Deleted {
				logged[id], names[id] = true, sp.Name
			}
		}
		for p := range in.Analysis.Pages {
			logged[p.Space] = true
		}
	}
	d.Annotate(in.Spaces)
	placed, dfs := d.Check(s, in.Spaces, logged, in.Policy == PolicyMySQL8)
	in.Spaces = append(in.Spaces, placed...)
	held := map[uint32]string{} // space id -> the file of the scanned directories that holds it
	for _, t := range in.Spaces {
		if t.Error == "" && t.FoundBy != discovery.FoundDictionary && t.Note != discovery.NotePage0Zero {
			held[t.SpaceID] = t.Path
		}
	}
	var out []finding.Finding
	for _, f := range fs {
		if f.SpaceID != nil && (f.Code == "UNPROTECTED_LOCATION" || f.Code == "UNDO_DIR_DATAFILE") && d.BySpace(*f.SpaceID) != nil {
			continue // the dictionary's finding below says it with the dictionary's path
		}
		switch {
		case f.Code == "DICTIONARY_UNREADABLE" && f.File == filepath.Join(s.SystemFile()):
			continue // MySQL 8 keeps no SYS_TABLES: its dictionary is mysql.ibd's, read here
		case f.Code == "ORPHANS_NOT_CHECKED":
			continue // checked below against mysql.ibd's dictionary
		case (f.Code == "MISSING_FILE" || f.Code == "PENDING_RENAME") && f.SpaceID != nil && held[*f.SpaceID] != "":
			// MySQL finds a tablespace by its space id in the known directories (the scan at
			// start-up, Tablespace_dirs), wherever the log or the dictionary names it.
			f = finding.Finding{Severity: finding.Info, Code: "MOVED_DATAFILE", SpaceID: f.SpaceID, File: held[*f.SpaceID],
				Message: fmt.Sprintf("space id %d is at %s, which a known directory holds: MySQL opens it there by its space id (and records the new name in its dictionary); ", *f.SpaceID, held[*f.SpaceID]) + f.Message}
		case f.Code == "UNDO_DIR_DATAFILE" && in.Policy == PolicyMySQL8:
			f.Severity = finding.Warning
			f.Message += "; MySQL 9.7.4 opens a datafile there at start-up without a word (it refuses only to create one there)"
		}
		if f.SpaceID != nil {
			if dt := d.BySpace(*f.SpaceID); dt != nil && len(dt.Tables) > 0 {
				f.Message += " [table " + mysqldd.Shown(dt.Tables) + "]"
			}
		}
		out = append(out, f)
	}
	out = append(out, dfs...)
	for _, t := range in.Spaces {
		if t.FoundBy == discovery.FoundScan && t.Error == "" && d.BySpace(t.SpaceID) == nil && !logged[t.SpaceID] {
			out = append(out, finding.Finding{Severity: finding.Info, Code: "ORPHAN_FILE", SpaceID: u32(t.SpaceID), File: t.Path,
				Message: fmt.Sprintf("no tablespace of the MySQL data dictionary has space id %d and the redo log does not name it: MySQL does not open this file", t.SpaceID)})
		}
	}
	if in.Policy != PolicyMySQL8 {
		return out
	}
	var ids []uint32
	for id := range logged {
		if held[id] == "" && d.BySpace(id) == nil && id != 0 && id < 0xFFFF0000 {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		name := names[id]
		if name == "" {
			name = "a file it does not name"
		}
		out = append(out, finding.Finding{Severity: finding.Error, Code: "MISSING_FILE", SpaceID: u32(id), File: mysqldd.Resolve(s.Datadir, names[id]),
			Message: fmt.Sprintf("the redo log changes space id %d (%s) after the checkpoint, and no file of the data directory, the undo directory or an innodb_directories entry holds it: "+
				"MySQL's crash recovery stops, so the server refuses to start (\"Could not find any file associated with the tablespace ID: %d\"; \"Use --innodb-directories to find the tablespace files\")", id, name, id)})
	}
	return out
}
