package analysis

import (
	"fmt"

	"innoscope/discovery"
	"innoscope/finding"
)

// LocationFindings reports datafiles outside the known directories or in a unique undo
// directory (for MariaDB, which opens a DATA DIRECTORY file through its .isl, information only;
// MySQL 8's WL#13065 refuses to recover them), files that cannot be read, and stale .isl files
// (the target is absent: the server starts without such a link, logging an [ERROR] line when
// it looks a table up by its name; a table that needs it is reported by
// duplicateAndOrphanFindings as MISSING_FILE). An unreadable temporary tablespace is information
// only: the server recreates it at every start. Which start-ups look the name up is not
// predicted: the lab and the sweeps show it after the log renames the target away, but not
// after every such rename.
func LocationFindings(ts []discovery.Tablespace, policy Policy) []finding.Finding {
	var fs []finding.Finding
	sev, undoSev := finding.Info, finding.Warning
	if policy == PolicyMySQL8 {
		sev, undoSev = finding.Error, finding.Error
	}
	for _, t := range ts {
		switch {
		case StaleISL(t):
			fs = append(fs, finding.Finding{Severity: finding.Info, Code: "STALE_ISL", File: t.ISL,
				Message: fmt.Sprintf("links to %s, which does not exist (a leftover of a RENAME or a rebuild of a DATA DIRECTORY table); the server starts without it; "+
					"if it looks a table up by this link's name (at start-up, for instance recovering a rename of that file), it logs "+
					"\"[ERROR] InnoDB: ISL file ... was found but the linked file ... could not be opened or is not correct\" and goes on", t.Path)})
		case t.Error != "" && t.FoundBy == discovery.FoundTemporary:
			// The server removes ibtmp1 and creates it anew at every start ("Removed temporary
			// tablespace data file"), whatever it holds: nothing depends on it.
			fs = append(fs, finding.Finding{Severity: finding.Info, Code: "UNREADABLE_DATAFILE", File: t.Path,
				Message: t.Error + "; this is the temporary tablespace, which the server deletes and creates anew at every start, so it does not matter"})
		case t.Error != "":
			fs = append(fs, finding.Finding{Severity: finding.Error, Code: "UNREADABLE_DATAFILE", File: t.Path, Message: t.Error})
		case t.Location == discovery.LocUnprotected:
			fs = append(fs, finding.Finding{Severity: sev, Code: "UNPROTECTED_LOCATION", SpaceID: page0ID(t), File: t.Path,
				Message: "is in an unprotected location (reached only through " + t.ISL + "); MySQL 8 cannot recover it after a crash until the directory is added to innodb_directories (MariaDB opens it through the .isl)"})
		case t.Location == discovery.LocUndoDir:
			fs = append(fs, finding.Finding{Severity: undoSev, Code: "UNDO_DIR_DATAFILE", SpaceID: page0ID(t), File: t.Path,
				Message: "a datafile inside the unique innodb_undo_directory, which is not a valid place for datafiles (MySQL WL#13065 FR5)"})
		}
	}
	return fs
}

// page0ID is the space id page 0 of t gives; nil when page 0 is all zero (not yet written: the
// id is unknown there, and 0 would name the system tablespace).
func page0ID(t discovery.Tablespace) *uint32 {
	if BlankPage0(t) {
		return nil
	}
	return u32(t.SpaceID)
}
