package analysis

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"innoscope/discovery"
	"innoscope/finding"
)

// A data directory whose first system tablespace file is absent while a redo log is there is
// one the server refuses to start on: MariaDB 10.11 would create a new system tablespace, but
// not beside an existing log ("redo log file './ib_logfile0' exists. Creating system tablespace
// with existing redo log file is not recommended. Please delete redo log file before creating
// new system tablespace."). Deleting the log as it suggests gets a server with an empty
// dictionary: the tables' files are there, and invisible to it.

// systemFileMissing is the message for the first system file sys missing beside the log at
// logPath (datadir: the data directory, for the names the server prints).
func systemFileMissing(datadir, sys, logPath string) string {
	return fmt.Sprintf("the first file of the system tablespace is missing while a redo log is there: the server refuses to start "+
		"(\"redo log file '%s' exists. Creating system tablespace with existing redo log file is not recommended. Please delete redo log file before creating new system tablespace.\"). "+
		"Do not delete the log as it suggests: the server would make an empty system tablespace, whose dictionary knows none of the tables. "+
		"%s holds the data dictionary, the undo logs and the doublewrite buffer, so neither crash recovery nor `innoscope recover --salvage` can rebuild it: "+
		"put back this directory's own %s if it was moved (a copy from a backup does not match this log and these tables); "+
		"failing that, each table's .ibd can be tried in a new server (CREATE TABLE as it was, ALTER TABLE ... DISCARD TABLESPACE, copy the .ibd in, ALTER TABLE ... IMPORT TABLESPACE), "+
		"without what the log holds after its checkpoint and with any transaction the crash left open",
		serverName(datadir, logPath), filepath.Base(sys), filepath.Base(sys))
}

// missingSystem is the path of the layout's first system tablespace file when it does not
// exist in a data directory that holds more than a log, or "".
func missingSystem(s discovery.Layout) string {
	p := filepath.Join(s.SystemFile())
	if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) && moreThanALog(s.Datadir) {
		return p
	}
	return ""
}

// moreThanALog reports whether datadir holds what an initialised data directory has besides its
// log: the mysql schema directory or a database directory's .ibd file. A directory holding a
// redo log alone (the bundled log-only fixture) is not judged as a data directory that lost its
// system tablespace.
func moreThanALog(datadir string) bool {
	if fi, err := os.Stat(filepath.Join(datadir, "mysql")); err == nil && fi.IsDir() {
		return true
	}
	m, _ := filepath.Glob(filepath.Join(datadir, "*", "*.ibd"))
	return len(m) > 0
}

// SystemFileRefusal is recover's refusal, before anything is copied, of a data directory whose
// first system tablespace file is missing (the log, which recover has read, is there); nil when
// the file exists.
func SystemFileRefusal(s discovery.Layout) error {
	p := missingSystem(s)
	if p == "" {
		return nil
	}
	return fmt.Errorf("%s: MISSING_FILE: %s", p, systemFileMissing(s.Datadir, p, LogName(s)))
}

// systemFileFinding replaces the UNREADABLE_DATAFILE finding of a missing first system file by
// the refusal (MISSING_FILE, error) when the log is there (in.LogName names a file); without a
// log the server creates a new system tablespace and starts, and the finding stays as it is.
func systemFileFinding(in Input, found []finding.Finding) []finding.Finding {
	if in.LogName == "" || !filepath.IsAbs(in.LogName) {
		return found
	}
	for _, t := range in.Spaces {
		if t.FoundBy != discovery.FoundSystem {
			continue
		}
		if _, err := os.Lstat(t.Path); !errors.Is(err, fs.ErrNotExist) || !moreThanALog(in.Datadir) {
			return found // only the first system file starts with page 0 of the system tablespace
		}
		for i := range found {
			if found[i].Code == "UNREADABLE_DATAFILE" && found[i].File == t.Path {
				found[i] = finding.Finding{Severity: finding.Error, Code: "MISSING_FILE", SpaceID: u32(0), File: t.Path,
					Message: systemFileMissing(in.Datadir, t.Path, in.LogName)}
			}
		}
		return found
	}
	return found
}
