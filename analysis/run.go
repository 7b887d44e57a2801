package analysis

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/logformat"
	"innoscope/logformat/logcheck"
	"innoscope/logformat/redo"
)

// UndoReader gives the undo logs and the dictionary as crash recovery leaves them, from the
// log scanned by sc (from its checkpoint) applied in memory to the files of s; the diagnosis
// takes it from package replay, which applies records (replay.RecoveredUndo).
type UndoReader func(sc *logformat.Scanner, s discovery.Layout, pageSize int, a *Analysis, ts []discovery.Tablespace) (*UndoView, error)

// Options are the choices of a diagnosis.
type Options struct {
	Policy    Policy
	SkipPages bool             // read only page 0 of each datafile
	Scan      redo.ScanOptions // where the log's scan starts and ends, and where its notes go
	Undo      UndoReader       // nil: the undo logs are not read (no UNCOMMITTED_DDL)
	Progress  func(done, total int64)
}

// Diagnosis is what Run found.
type Diagnosis struct {
	Layout        discovery.Layout
	Input         Input
	Findings      []finding.Finding
	Summary       map[string]int // findings per severity name
	CheckpointLSN uint64
	// Analysis is the log from the checkpoint (an empty one when the log is unusable).
	Analysis *Analysis
	// LogFindings are the log's own findings among Findings (ReadLog's).
	LogFindings []finding.Finding
	// LogOnly: the directory holds only a redo log (discovery.Layout.LogOnly); only the log was
	// read, and Findings end with LOG_ONLY.
	LogOnly bool
}

// Run diagnoses the data directory laid out as s: it compares the redo log, the files, their
// pages and the dictionary (every finding carries an LSN: its record's, or the end of the log).
// A log that cannot be used is one finding; the rest is still diagnosed.
func Run(s discovery.Layout, opt Options) (*Diagnosis, error) {
	if opt.Policy == "" {
		opt.Policy = PolicyMariaDB
	}
	if err := s.CheckDatadir(); err != nil {
		return nil, err // not a data directory, or innoscope may not read it
	}
	a, cpLSN, fs, err := readLayoutLog(s, opt.Scan)
	if u := discovery.PermissionDenied(err); u != nil {
		return nil, u // innoscope's own limit, not the server's (which runs as another user)
	}
	if log, ok := s.LogOnly(); ok {
		if err != nil {
			fs, a = []finding.Finding{logUnreadableFinding(s, err, opt.Policy)}, nil
		}
		d := logOnlyDiagnosis(s, log, a, cpLSN, fs)
		d.Input.Policy = opt.Policy
		return d, nil
	}
	logFs := append([]finding.Finding(nil), fs...)
	logged := a // nil: no usable log; the files, pages and dictionary are still diagnosed
	if err != nil {
		fs, a = []finding.Finding{logUnreadableFinding(s, err, opt.Policy)}, &Analysis{Map: &Map{}}
	}
	fs = append(ServerFindings(s), fs...)
	ts, err := discovery.Scan(s)
	if err != nil {
		return nil, err
	}
	in := Input{Datadir: s.Datadir, Analysis: logged, EndLSN: a.Map.EndLSN, Spaces: ts, Policy: opt.Policy,
		Pages: map[string]*discovery.Report{}, LogName: LogName(s)}
	fs = append(fs, readDictionary(s, &in)...)
	if err := deniedExpected(in); err != nil {
		return nil, err // innoscope may not look at a file the log or the dictionary names
	}
	ts = in.Spaces // with the page 0 restores of crash recovery
	if logged != nil && opt.Undo != nil {
		// A file that cannot be opened has its finding from the scan (UNREADABLE_DATAFILE).
		var pathErr *os.PathError
		if in.Undo, err = recoveredUndo(s, opt, logged, ts); err != nil && !errors.As(err, &pathErr) {
			fs = append(fs, finding.Finding{Severity: finding.Info, Code: "UNDO_UNREADABLE", File: s.Datadir,
				Message: "the undo logs as recovery leaves them could not be read, so transactions the crash left uncommitted are not looked at: " + err.Error()})
		}
	}
	if opt.SkipPages {
		ts = nil // only page 0 of each file (read by the scan) is looked at
		fs = append(fs, finding.Finding{Severity: finding.Info, Code: "PAGES_NOT_CHECKED", File: s.Datadir,
			Message: "--skip-pages: datafile pages were not verified, so corrupt pages and pages newer than the log are not reported"})
	}
	if err := inspectPages(ts, in.Restored, a.Map.EndLSN, in.Pages, opt.Progress); err != nil {
		return nil, err
	}
	fs = append(fs, Diagnose(in)...)
	fs = mysqlDictionary(s, &in, fs)
	logEndAhead(fs)
	noSalvageAhead(fs, ts, in.Pages)
	fs = append(fs, rollbackFinding(in, s)...)
	fs = append(fs, instantMetadataFindings(in, s, opt)...)
	fs = append(fs, deletedRowsFindings(in, s.Datadir)...)
	fs = append(fs, droppedPagesFindings(in, s.Datadir)...)
	sum := map[string]int{"error": 0, "warning": 0, "info": 0}
	end := a.Map.EndLSN
	for i := range fs {
		sum[fs[i].Severity.String()]++
		if fs[i].LSN == nil && logged != nil {
			fs[i].LSN = &end // the point of the log at which the finding was evaluated
		}
	}
	return &Diagnosis{Layout: s, Input: in, Findings: fs, Summary: sum, CheckpointLSN: cpLSN, Analysis: a, LogFindings: logFs}, nil
}

// readLayoutLog is ReadLog on the log of s.
func readLayoutLog(s discovery.Layout, opt redo.ScanOptions) (*Analysis, uint64, []finding.Finding, error) {
	l, err := OpenLog(s, "")
	if err != nil {
		return nil, 0, nil, err
	}
	defer l.Close()
	return ReadLog(l, opt)
}

// readDictionary fills in the doublewrite buffer's copies, the page 0 restores they make
// (RestorePage0), and SYS_TABLES and SYS_INDEXES from the system tablespace of s as crash
// recovery reads it; a finding when the dictionary cannot be read.
func readDictionary(s discovery.Layout, in *Input) []finding.Finding {
	p := filepath.Join(s.SystemFile())
	sys, err := discovery.OpenFile(p)
	if err != nil {
		return nil // the scan reports the system tablespace
	}
	in.Dblwr, _ = discovery.DoublewriteCopies(sys)
	sys.Close()
	pageSize, _ := s.InnoDBPageSize()
	RestorePage0(in, pageSize)
	if c := RestoredPage0(in.Restored, p); c != nil {
		sys, err = discovery.OpenFileWithPage0(p, c.Image)
	} else {
		sys, err = discovery.OpenFile(p)
	}
	if err != nil {
		return nil
	}
	defer sys.Close()
	var fs []finding.Finding
	if in.Dict, err = discovery.ReadDictTables(sys); err != nil {
		fs = append(fs, finding.Finding{Severity: finding.Warning, Code: "DICTIONARY_UNREADABLE", File: sys.Path,
			Message: "SYS_TABLES could not be read, so only the redo log says which files should exist: " + err.Error()})
	} else if in.Indexes, err = discovery.ReadDictIndexes(sys); err != nil {
		fs = append(fs, finding.Finding{Severity: finding.Warning, Code: "DICTIONARY_UNREADABLE", File: sys.Path,
			Message: "SYS_INDEXES could not be read: " + err.Error()})
	}
	return fs
}

// recoveredUndo runs opt.Undo over the log of s from its checkpoint; nil for a log whose records
// recovery does not replay (MySQL, MariaDB before 10.5).
func recoveredUndo(s discovery.Layout, opt Options, a *Analysis, ts []discovery.Tablespace) (*UndoView, error) {
	l, err := OpenLog(s, "")
	if err != nil {
		return nil, err
	}
	defer l.Close()
	if l.Replayable() != nil {
		return nil, nil
	}
	sc, _, err := l.Scanner(opt.Scan)
	if err != nil {
		return nil, err
	}
	return opt.Undo(sc, s, l.PageSize, a, ts)
}

// inspectPages verifies every page of the datafiles ts into pages (by path), pages newer than
// endLSN included, each file with page 0 as crash recovery restores it (restored); the
// temporary tablespace and files the scan could not read are skipped.
func inspectPages(ts []discovery.Tablespace, restored []Page0Restore, endLSN uint64, pages map[string]*discovery.Report, progress func(done, total int64)) error {
	for i, t := range ts {
		if progress != nil {
			progress(int64(i), int64(len(ts)))
		}
		if t.Error != "" || t.FoundBy == discovery.FoundTemporary {
			continue // the server deletes and recreates the temporary tablespace at start
		}
		f, err := discovery.OpenFile(t.Path)
		if c := RestoredPage0(restored, t.Path); c != nil {
			if f != nil {
				f.Close()
			}
			f, err = discovery.OpenFileWithPage0(t.Path, c.Image)
		}
		if err != nil {
			continue
		}
		r, err := discovery.Inspect(f, discovery.InspectOptions{Verify: true, To: -1, FutureLSN: endLSN})
		f.Close()
		if err != nil {
			return err
		}
		pages[t.Path] = r
	}
	return nil
}

// ServerFindings is SERVER_RUNNING (error) when a server runs on the data directory of s: what
// innoscope reads then is not what crash recovery would find.
func ServerFindings(s discovery.Layout) []finding.Finding {
	l := discovery.RunningServer(s)
	if l == nil {
		return nil
	}
	return []finding.Finding{{Severity: finding.Error, Code: "SERVER_RUNNING", File: s.Datadir,
		Message: l.String() + ": the server is running on this directory, its files change while they are read; stop it first"}}
}

// logUnreadableFinding is the one finding of a diagnosis whose redo log could not be used
// (absent, unreadable, a format innoscope does not read, no valid checkpoint): the rest of the
// report is made from the files, their pages and the dictionary alone. Under the mysql8 policy
// the next step is reading the tables from their own files: innoscope neither replays nor
// salvages a MySQL log.
func logUnreadableFinding(s discovery.Layout, err error, pol Policy) finding.Finding {
	file := filepath.Join(s.LogFileDir(), "ib_logfile0")
	var fe *logformat.FormatError
	if errors.As(err, &fe) {
		file = fe.File
	}
	msg := "the redo log could not be used, so nothing of it is checked against the files: " + err.Error()
	if pol == PolicyMySQL8 {
		msg += "; mysqld refuses to start without its own redo log, and innoscope makes no copy of a MySQL directory: put the log back if it was moved, else read each table from its own file (`innoscope schema FILE.ibd`, `innoscope rows FILE.ibd --format sql`: the definition from the SDI inside the file)"
		return finding.Finding{Severity: finding.Error, Code: "LOG_UNREADABLE", File: file, Message: msg}
	}
	salvage := "; put the log back if it was moved (it must be this directory's own), or `innoscope recover --salvage " + s.Datadir +
		" --into COPY` makes a copy with a new empty log at the largest page LSN, which the server starts on, declaring lost what the log held after its last checkpoint and naming the files that may be inconsistent"
	if fi, serr := os.Stat(file); errors.Is(serr, fs.ErrNotExist) && !errors.As(err, &fe) {
		msg += "; MariaDB refuses to start without it (\"File ./ib_logfile0 was not found\")" + salvage
	} else if serr == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
		msg += "; MariaDB refuses to start on it (\"ib_logfile0 is empty, and LSN is unknown\")" + salvage
	}
	sev := finding.Error // the server refuses it too
	if redo.Encrypted(err) {
		sev = finding.Warning // the server reads it with its key management plugin
	}
	return finding.Finding{Severity: sev, Code: "LOG_UNREADABLE", File: file, Message: msg}
}

// noSalvageAhead corrects the salvage a LOG_DAMAGED error (damage before the end the checkpoint
// promises) names: when the system or an undo tablespace holds pages written after the damage,
// recovery up to it is not a consistent point and `recover --salvage` refuses (its
// quarantineAhead); the pages read (pages) tell it here already.
func noSalvageAhead(fs []finding.Finding, ts []discovery.Tablespace, pages map[string]*discovery.Report) {
	for i := range fs {
		f := &fs[i]
		if f.Code != "LOG_DAMAGED" || f.Severity != finding.Error || f.LSN == nil {
			continue
		}
		for _, t := range ts {
			r := pages[t.Path]
			if r == nil || r.MaxLSN <= *f.LSN || (t.FoundBy != discovery.FoundSystem && t.FoundBy != discovery.FoundUndo) {
				continue
			}
			f.Message, _ = logcheck.ReplaceSalvage(f.Message, fmt.Sprintf("`recover --salvage` cannot help: %s holds pages written after LSN %d (the largest page LSN is %d), so recovery up to the damage is not a consistent point: restore from a backup",
				t.Path, *f.LSN, r.MaxLSN))
			break
		}
	}
}

// logEndAhead makes a warning that the log ends early (LOG_TRUNCATED, LOG_END_DAMAGED, or
// LOG_DAMAGED: a possible torn last write, or a shortened file) an error when datafiles hold
// pages newer than that end (FILE_AHEAD_OF_LOG): the server flushes a page only once the log
// up to its LSN is written, so the log went on past where recovery stops, and the server's
// recovery loses committed work.
func logEndAhead(fs []finding.Finding) {
	var ahead []string
	for _, f := range fs {
		if f.Code == "FILE_AHEAD_OF_LOG" {
			ahead = append(ahead, f.File)
		}
	}
	if len(ahead) == 0 {
		return
	}
	for i := range fs {
		f := &fs[i]
		switch f.Code {
		case "LOG_TRUNCATED", "LOG_END_DAMAGED", "LOG_DAMAGED":
		default:
			continue
		}
		if f.Severity != finding.Warning {
			continue
		}
		f.Severity = finding.Error
		f.Message += fmt.Sprintf("; and %d datafiles hold pages newer than this end (FILE_AHEAD_OF_LOG: %s): the server writes a page only after the log up to its LSN, "+
			"so the log went on past this point, and the server's recovery loses committed work", len(ahead), strings.Join(ahead, ", "))
	}
}
