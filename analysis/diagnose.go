package analysis

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"innoscope/discovery"
	"innoscope/finding"
)

// Input is everything a diagnosis compares.
type Input struct {
	Datadir  string
	Analysis *Analysis // the log from the checkpoint (nil: no usable log)
	EndLSN   uint64
	Spaces   []discovery.Tablespace
	Dict     []discovery.DictTable // SYS_TABLES on disk (nil if unreadable)
	Indexes  []discovery.DictIndex // SYS_INDEXES on disk
	Pages    map[string]*discovery.Report
	Dblwr    map[[2]uint32][]discovery.DoublewriteCopy
	Policy   Policy
	LogName  string // the redo log as findings name it: its file, or MySQL's #innodb_redo directory
	// Undo is the undo logs and dictionary as crash recovery leaves them (RecoveredUndo; nil:
	// not read), for the rollback of the DDL transactions the crash left uncommitted.
	Undo *UndoView
	// Restored are the datafiles whose blank page 0 crash recovery restores from the doublewrite
	// buffer (RestorePage0); their entries in Spaces describe them from that copy.
	Restored []Page0Restore
}

// expectation is a file name some source maps to a space id.
type expectation struct {
	id     uint32
	name   string // as the source spells it
	source string // "dictionary" or "redo log"
	lsn    *uint64
	logged bool // the log changes this space after the checkpoint
	// noLink is the missing .isl of a DATA DIRECTORY table (its file is looked for in the
	// database's folder instead).
	noLink string
}

// expectedElsewhere is the expectation that maps space id to a file (nil: none; with several,
// the log's over the dictionary's).
func expectedElsewhere(exp map[string]expectation, id uint32) *expectation {
	var found *expectation
	for _, e := range exp {
		if e.id == id && (found == nil || e.lsn != nil && found.lsn == nil || (e.lsn != nil) == (found.lsn != nil) && e.name < found.name) {
			e := e
			found = &e
		}
	}
	return found
}

func u32(v uint32) *uint32 { return &v }
func u64(v uint64) *uint64 { return &v }

// absPath resolves a dictionary or log file name (relative to the data directory, as the
// server spells it: ./db/t.ibd) against the data directory, and resolves links, so that it
// compares equal with the path of the found file. Found files' paths are absolute (the
// command makes every location absolute where its settings are read) and are not joined again.
func absPath(datadir, name string) string {
	if !filepath.IsAbs(name) {
		name = filepath.Join(datadir, name)
	}
	return discovery.ResolvePath(name)
}

// shownPath is a dictionary or log file name as a finding names it: joined to the data
// directory as the user spelled it, links not resolved (absPath is for comparing only).
func shownPath(datadir, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(datadir, name)
}

// expectations builds the path → space map recovery will work with: the dictionary as recovery
// leaves it (redoneDict), superseded by the file records of the log. A tablespace the log names
// is expected at its last name only; a name it had before is free (another tablespace may have
// taken it: RENAME swaps, EXCHANGE PARTITION, the #sql-alter name of two copying ALTERs). A name
// two tablespaces end at belongs to the one whose record is later.
func expectations(in Input) map[string]expectation {
	exp := map[string]expectation{}
	var logged map[uint32]*Space
	if in.Analysis != nil {
		logged = in.Analysis.Map.Spaces
	}
	vacated := map[string]bool{}
	for _, s := range logged {
		for _, n := range s.Names {
			vacated[absPath(in.Datadir, n)] = true
		}
	}
	tables, _ := redoneDict(in)
	for _, t := range tables {
		if t.Deleted || t.SpaceID == 0 || strings.HasPrefix(t.Name, "SYS_") || logged[t.SpaceID] != nil {
			continue // the log's events for a space supersede the dictionary
		}
		name, noLink := "./"+t.Name+".ibd", ""
		if t.DataDir() {
			isl := filepath.Join(in.Datadir, t.Name+".isl")
			if target, err := discovery.ReadISL(isl); err == nil {
				name = target
			} else if errors.Is(err, fs.ErrNotExist) {
				noLink = isl
			}
		}
		if p := absPath(in.Datadir, name); !vacated[p] {
			exp[p] = expectation{id: t.SpaceID, name: name, source: "dictionary", noLink: noLink}
		}
	}
	if in.Analysis == nil {
		return exp
	}
	claim := map[string]int{} // path → the record that gave it its tablespace
	for _, s := range in.Analysis.Map.Sorted() {
		if s.Deleted {
			continue
		}
		last := s.Events[len(s.Events)-1]
		p := absPath(in.Datadir, s.Name)
		if c, ok := claim[p]; ok && c > last.seq {
			continue
		}
		claim[p] = last.seq
		exp[p] = expectation{id: s.ID, name: s.Name, source: "redo log", lsn: u64(last.LSN), logged: true}
	}
	// A tablespace created by a DDL transaction the crash left uncommitted is dropped by its
	// rollback: a file not created yet is not missing (one that exists is the server's to drop).
	for _, r := range pendingRollback(in) {
		for p, e := range exp {
			if _, err := os.Lstat(p); err != nil && r.Action == "delete" && e.id == r.SpaceID {
				delete(exp, p)
			}
		}
	}
	return exp
}

// diagnoseLocations is LocationFindings for a diagnosis: a datafile too short for page 0 is
// judged against the log by duplicateAndOrphanFindings instead, and a missing first system
// file beside a log is the server's refusal (systemFileFinding).
func diagnoseLocations(in Input) []finding.Finding {
	ts := make([]discovery.Tablespace, 0, len(in.Spaces))
	for _, t := range in.Spaces {
		if !shortFile(t) {
			ts = append(ts, t)
		}
	}
	return systemFileFinding(in, LocationFindings(ts, in.Policy))
}

// shortFile reports a datafile too short to hold page 0 (created an instant before the crash:
// the server's fil_ibd_load defers it, as a file whose page 0 is blank, until the log rebuilds
// page 0).
func shortFile(t discovery.Tablespace) bool {
	if t.Error == "" || t.FoundBy != discovery.FoundScan {
		return false
	}
	fi, err := os.Stat(t.Path)
	return err == nil && fi.Mode().IsRegular() && fi.Size() < 1<<16
}

// StaleISL reports an .isl whose target does not exist (the server starts without it).
func StaleISL(t discovery.Tablespace) bool {
	if t.FoundBy != discovery.FoundISL || t.Error == "" {
		return false
	}
	_, err := os.Lstat(t.Path)
	return errors.Is(err, fs.ErrNotExist)
}

// Diagnose compares dictionary, files and log, and says what recovery will meet.
func Diagnose(in Input) []finding.Finding {
	fs := diagnoseLocations(in)
	fs = append(fs, writesOutsideFindings(in)...)
	fs = append(fs, uncommittedDDLFindings(in)...)
	// A table whose link names no file while the log gives its tablespace another: not the stale
	// leftover STALE_ISL describes, so that information gives way to a warning (ISLRedirects).
	mislinked := map[string]bool{}
	for _, r := range ISLRedirects(in) {
		if r.NoLink {
			continue // the server without recovery logs errors, then opens the table's own file
		}
		mislinked[discovery.ResolvePath(r.ISL)] = true
		fs = append(fs, finding.Finding{Severity: finding.Warning, Code: "MISLINKED_TABLE", SpaceID: u32(r.SpaceID), File: r.ISL,
			Message: r.String() + "; a server started without crash recovery (this one too, at its next start after recovery) follows the link and loses the table; innoscope recover writes the corrected link in its copy"})
	}
	fs = slices.DeleteFunc(fs, func(f finding.Finding) bool { return f.Code == "STALE_ISL" && mislinked[discovery.ResolvePath(f.File)] })
	fs = append(fs, frmFindings(in)...)
	for _, d := range Dictionary(in) {
		if !d.Deleted && !d.Frm && !strings.Contains(d.Name, "#sql") {
			fs = append(fs, finding.Finding{Severity: finding.Warning, Code: "MISSING_FRM", SpaceID: u32(d.SpaceID),
				File:    filepath.Join(in.Datadir, d.Name+".frm"),
				Message: fmt.Sprintf("InnoDB's dictionary has table %s (space %d) but its .frm is missing: the server starts, and the table is invisible to SQL until the .frm is restored", discovery.SQLTableName(d.Name), d.SpaceID)})
		}
	}
	files := map[string]discovery.Tablespace{}
	for _, t := range in.Spaces {
		files[absPath(in.Datadir, t.Path)] = t
	}
	exp := expectations(in)
	handled := map[string]bool{} // expected paths explained by a pending rename
	if in.Analysis != nil {
		fs = append(fs, renameFindings(in, exp, files, handled)...)
	}
	paths := make([]string, 0, len(exp))
	for p := range exp {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		e := exp[p]
		if handled[p] {
			continue
		}
		f, ok := files[p]
		where := e.source
		if e.lsn != nil {
			where = fmt.Sprintf("the redo log (LSN %d)", *e.lsn)
		}
		switch {
		case !ok && unreadableDir(in, p) != "":
			// The directory's own UNREADABLE_DATAFILE finding is the fault; its files are unseen.
		case !ok && e.logged && in.Analysis.CreatesFile(e.id):
			// The log creates the file and rebuilds its page 0: recovery creates it (a crash
			// between the FILE_CREATE record and the file's creation; recover does the same).
		case !ok && e.logged && regularFile(p):
			// A file the log names that no scanned directory or link reaches (a DATA DIRECTORY
			// file whose .isl names another path): the server's recovery opens it by this name.
		case !ok:
			msg := fmt.Sprintf("%s maps %s to space %d but there is no such file", where, e.name, e.id)
			if e.logged {
				msg += fmt.Sprintf("; the log changes it after the checkpoint, so the server refuses to start (\"Tablespace %d was not found at %s\") unless innodb_force_recovery discards those changes", e.id, e.name)
			} else {
				msg += "; the server starts but the table is unusable (\"Could not find a valid tablespace file\")"
			}
			var carriers []string
			for _, o := range in.Spaces {
				if o.SpaceID == e.id && o.Error == "" && absPath(in.Datadir, o.Path) != p {
					carriers = append(carriers, o.Path)
				}
			}
			if e.noLink != "" {
				// RENAME TABLE of a DATA DIRECTORY table to another database under the same
				// name keeps the file and writes no link for the new name (crash-sweep seed 12721)
				msg = fmt.Sprintf("%s maps table %s (DATA DIRECTORY) to space %d, but its link %s is missing, so the server looks for %s, which does not exist; the server starts but the table is unusable (\"Could not find a valid tablespace file\")",
					where, discovery.SQLTableName(TableName(e.name)), e.id, e.noLink, e.name)
			}
			switch len(carriers) {
			case 0:
			case 1:
				if e.noLink != "" {
					msg += fmt.Sprintf(". %s carries space %d: writing that path into %s (one line) gives the server its file; `innoscope recover --salvage` into a copy does it there", carriers[0], e.id, e.noLink)
					break
				}
				msg += fmt.Sprintf(". %s carries space %d (renamed or copied by hand?): the server does not look for it there; renaming it back to %s, or `innoscope recover --salvage` into a copy (relocated, nothing lost), gives the server its file", carriers[0], e.id, e.name)
			default:
				msg += fmt.Sprintf(". %d files carry space %d (%s): which one is the table's is not known", len(carriers), e.id, strings.Join(carriers, ", "))
			}
			fs = append(fs, finding.Finding{Severity: finding.Error, Code: "MISSING_FILE", SpaceID: u32(e.id), File: shownPath(in.Datadir, e.name), LSN: e.lsn, Message: msg})
		case f.Error != "":
			// reported by LocationFindings
		case f.Note == discovery.NotePage0Zero:
			// page0Findings
		case f.SpaceID != e.id:
			msg := fmt.Sprintf("page 0 carries space %d, but %s maps %s to space %d", f.SpaceID, where, e.name, e.id)
			for _, o := range in.Spaces {
				if o.SpaceID == e.id && absPath(in.Datadir, o.Path) != p {
					msg += fmt.Sprintf("; space %d is in %s", e.id, o.Path)
				}
			}
			if e.logged {
				msg += fmt.Sprintf("; the log changes space %d after the checkpoint, so the server refuses to start", e.id)
			} else {
				msg += fmt.Sprintf("; the server starts, but the table is unusable (\"Expected tablespace id %d but found %d\")", e.id, f.SpaceID)
			}
			fs = append(fs, finding.Finding{Severity: finding.Error, Code: "SPACE_ID_MISMATCH", SpaceID: u32(e.id), File: shownPath(in.Datadir, e.name), LSN: e.lsn, Message: msg})
		}
	}
	p0, bad := page0Findings(in, exp)
	fs = append(fs, p0...)
	fs = append(fs, restoredFindings(in)...)
	fs = append(fs, duplicateAndOrphanFindings(in, exp, handled)...)
	fs = append(fs, pageFindings(in, exp, bad)...)
	fs = append(fs, cutShortFindings(in, exp)...)
	fs = append(fs, encryptedFindings(in)...)
	return fs
}

// regularFile reports whether p is a regular file (following links).
func regularFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// unreadableDir is the directory of the scan that could not be read and holds p, or "".
func unreadableDir(in Input, p string) string {
	for _, t := range in.Spaces {
		if t.FoundBy == discovery.FoundDirectory && discovery.Within(p, absPath(in.Datadir, t.Path)) {
			return t.Path
		}
	}
	return ""
}

// renameFindings: a FILE_RENAME whose new name is not on disk yet.
func renameFindings(in Input, exp map[string]expectation, files map[string]discovery.Tablespace, handled map[string]bool) []finding.Finding {
	var fs []finding.Finding
	ddl, _ := PendingDDL(in.Datadir) // an unreadable DDL log is reported by ddlLogFindings
	for _, s := range in.Analysis.Map.Sorted() {
		if s.Deleted {
			continue
		}
		var last *Event
		for i := range s.Events {
			if s.Events[i].Kind == Rename {
				last = &s.Events[i]
			}
		}
		if last == nil || last.NewName != s.Name {
			continue
		}
		to, from := absPath(in.Datadir, last.NewName), absPath(in.Datadir, last.Name)
		if f, ok := files[to]; ok && !StaleISL(f) { // a link to the new name is no file there
			continue
		}
		handled[to] = true
		if f, ok := files[from]; ok && f.Note == discovery.NotePage0Zero {
			fs = append(fs, finding.Finding{Severity: finding.Info, Code: "PENDING_RENAME", SpaceID: u32(s.ID), File: f.Path, LSN: u64(last.LSN),
				Message: fmt.Sprintf("the log renames %s to %s, which is not on disk yet; page 0 of %s is blank, so the server recovers it under that name and does not replay the rename (its DDL recovery settles the name)", last.Name, last.NewName, last.Name)})
			continue
		}
		if f, ok := files[from]; ok && f.SpaceID == s.ID && (ddl[TableName(last.Name)] || ddl[TableName(last.NewName)]) {
			fs = append(fs, finding.Finding{Severity: finding.Info, Code: "PENDING_RENAME", SpaceID: u32(s.ID), File: f.Path, LSN: u64(last.LSN),
				Message: fmt.Sprintf("the log renames %s to %s, which is not on disk yet: the crash cut that RENAME, whose transaction InnoDB rolls back and whose statement the DDL log (ddl_recovery.log) reverts", last.Name, last.NewName)})
			continue
		}
		if f, ok := files[from]; ok && f.SpaceID == s.ID {
			fs = append(fs, finding.Finding{Severity: finding.Warning, Code: "PENDING_RENAME", SpaceID: u32(s.ID), File: f.Path, LSN: u64(last.LSN),
				Message: fmt.Sprintf("the log renames %s to %s, which is not on disk yet; crash recovery will rename it", last.Name, last.NewName)})
			continue
		}
		fs = append(fs, finding.Finding{Severity: finding.Error, Code: "PENDING_RENAME", SpaceID: u32(s.ID), File: shownPath(in.Datadir, last.NewName), LSN: u64(last.LSN),
			Message: fmt.Sprintf("the log renames %s to %s, and neither file exists: the table's data is gone", last.Name, last.NewName)})
	}
	return fs
}

// duplicateAndOrphanFindings: two files with one space id; datafiles nothing refers to (a
// leftover the DDL log removes is information only); the DDL log's pending work.
func duplicateAndOrphanFindings(in Input, exp map[string]expectation, handled map[string]bool) []finding.Finding {
	fs, ddlTables := ddlLogFindings(in)
	byID := map[uint32][]discovery.Tablespace{}
	for _, t := range in.Spaces {
		if t.Error == "" && t.Note == "" && t.FoundBy != discovery.FoundSystem && t.FoundBy != discovery.FoundTemporary {
			byID[t.SpaceID] = append(byID[t.SpaceID], t)
		}
	}
	ids := make([]uint32, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		ts := byID[id]
		if len(ts) < 2 {
			continue
		}
		var names, referenced []string
		for _, t := range ts {
			names = append(names, t.Path)
			if _, ok := exp[absPath(in.Datadir, t.Path)]; ok {
				referenced = append(referenced, t.Path)
			}
		}
		sev, why := finding.Warning, "only one of them is referenced by the dictionary or the log"
		switch {
		case len(referenced) == 0 && len(ts) == 2:
			why = "neither is referenced by the dictionary or the log, so the server opens neither by this id"
		case len(referenced) == 0:
			why = "none of them is referenced by the dictionary or the log, so the server opens none by this id"
		}
		if len(referenced) >= 2 {
			sev, why = finding.Error, "the dictionary or the log refers to more than one of them, so the server cannot open them all"
		}
		fs = append(fs, finding.Finding{Severity: sev, Code: "DUPLICATE_SPACE_ID", SpaceID: u32(id), File: ts[1].Path,
			Message: fmt.Sprintf("%d files carry space id %d (%s); %s", len(ts), id, strings.Join(names, ", "), why)})
	}
	if in.Dict == nil {
		return append(fs, unknownOrphans(in, exp)...)
	}
	for _, t := range in.Spaces {
		if t.FoundBy != discovery.FoundScan && t.FoundBy != discovery.FoundISL {
			continue
		}
		e, ok := exp[absPath(in.Datadir, t.Path)]
		if ok && StaleISL(t) && !handled[absPath(in.Datadir, t.Path)] { // a pending rename's link: PENDING_RENAME
			where := e.source
			if e.lsn != nil {
				where = fmt.Sprintf("the redo log (LSN %d)", *e.lsn)
			}
			fs = append(fs, finding.Finding{Severity: finding.Error, Code: "MISSING_FILE", SpaceID: u32(e.id), File: t.Path, LSN: e.lsn,
				Message: fmt.Sprintf("%s maps %s to space %d, and %s links to it, but there is no such file", where, e.name, e.id, t.ISL)})
		}
		if ok && shortFile(t) {
			if f := deferredFinding(in, e, t); f != nil {
				fs = append(fs, *f)
			}
		}
		if ok || (t.Error != "" && !shortFile(t)) {
			continue
		}
		msg, space := fmt.Sprintf("no dictionary entry or log record refers to this file (space %d)", t.SpaceID), u32(t.SpaceID)
		if BlankPage0(t) { // no space id to name (page 0 reads as space 0)
			msg, space = "no dictionary entry or log record refers to this file, and its page 0 is blank (all zero): it names no tablespace", nil
		}
		if other := expectedElsewhere(exp, t.SpaceID); other != nil && space != nil {
			where := other.source
			if other.lsn != nil {
				where = fmt.Sprintf("the redo log (LSN %d)", *other.lsn)
			}
			msg = fmt.Sprintf("%s names space %d %s, not this file: the server does not open it", where, t.SpaceID, other.name)
			if !regularFile(absPath(in.Datadir, other.name)) {
				msg += fmt.Sprintf(" (%s is missing: this may be that table's file, renamed or copied by hand)", other.name)
			}
		}
		sev := finding.Warning
		if ddlTables[TableName(t.Path)] {
			sev, msg = finding.Info, msg+"; the server's DDL recovery (ddl_recovery.log) removes or renames it after crash recovery"
		} else if strings.HasPrefix(filepath.Base(t.Path), "#sql") {
			msg += "; a leftover of an interrupted ALTER TABLE"
		}
		fs = append(fs, finding.Finding{Severity: sev, Code: "ORPHAN_FILE", SpaceID: space, File: t.Path, Message: msg})
	}
	return fs
}

// LogIDOfPath is the id the log gives the file at path (its last name for a tablespace).
func (d *Diagnosis) LogIDOfPath(path string) (uint32, bool) {
	for _, s := range d.Analysis.Map.Sorted() {
		if !s.Deleted && discovery.ResolvePath(SourcePath(d.Layout.Datadir)(s.Name)) == discovery.ResolvePath(path) {
			return s.ID, true
		}
	}
	return 0, false
}
