package analysis

import (
	"fmt"

	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/logformat"
	"innoscope/logformat/logcheck"
	"innoscope/logformat/redo"
)

// OpenLog opens, read-only, the redo log at arg (a data directory or a log file; "": the
// layout's own) of the server laid out as s, with the innodb_page_size its records are checked
// against.
func OpenLog(s discovery.Layout, arg string) (*redo.Log, error) { return openLog(s, arg, false) }

// OpenLogHeader is OpenLog that also opens a MariaDB 10.8+ log whose header block fails its
// CRC-32C (redo.Location.DamagedHeader), for `log header`.
func OpenLogHeader(s discovery.Layout, arg string) (*redo.Log, error) { return openLog(s, arg, true) }

func openLog(s discovery.Layout, arg string, damagedHeader bool) (*redo.Log, error) {
	if arg == "" {
		arg = s.Datadir
	}
	if err := discovery.NotRedoLog(discovery.AbsPath(arg)); err != nil { // a datafile given as the log
		return nil, err
	}
	w := logLocation(s, discovery.AbsPath(arg))
	w.DamagedHeader = damagedHeader
	l, err := redo.Open(w)
	if err != nil {
		return nil, err
	}
	l.PageSize, l.PageSizeSource = s.InnoDBPageSize()
	return l, nil
}

// logLocation is the log at arg (a data directory or a file) under the layout s.
func logLocation(s discovery.Layout, arg string) redo.Location {
	return redo.Location{Arg: arg, Datadir: s.Datadir, LogDir: s.LogDir}
}

// LogName is the redo log of s as findings name it: ib_logfile0's path, or for MySQL 8.0.30+
// the #innodb_redo directory whose #ib_redoN files are read as one log.
func LogName(s discovery.Layout) string {
	return redo.Name(logLocation(s, discovery.AbsPath(s.Datadir)))
}

// ReadLog reads l from its checkpoint (or opt.From) to its end: what recovery would apply and
// the log's own findings, with the checkpoint LSN. Logs of the formats before MariaDB 10.8 get a
// note that the checks against the files follow MariaDB 10.11's behaviour, and an error when
// MariaDB 10.8+ refuses them for holding log after the checkpoint (redo.Log.CrashUpgrade).
func ReadLog(l *redo.Log, opt redo.ScanOptions) (*Analysis, uint64, []finding.Finding, error) {
	older := l.OlderFormat(l.CheckpointLSN())
	if older != nil && l.Selected < 0 {
		return nil, 0, nil, fmt.Errorf("%s: no valid checkpoint block, so no known place for recovery to start", l.Path)
	}
	if l.Replayable() != nil {
		cpLSN := l.CheckpointLSN()
		a, fs, _ := analyzeMLog(l, cpLSN, 0, cpLSN, true)
		if f := l.CrashUpgrade(cpLSN, a.Map.EndLSN); f != nil {
			fs = append(fs, *f)
		}
		return a, cpLSN, append(fs, *older), nil
	}
	sc, cpLSN, err := l.Scanner(opt)
	if err != nil {
		return nil, 0, nil, err
	}
	a, fs, err := analyzeScan(l, sc, cpLSN)
	if err != nil {
		if older != nil {
			cpLSN = 0
		}
		return nil, cpLSN, nil, err
	}
	if older != nil {
		if f := l.CrashUpgrade(cpLSN, a.Map.EndLSN); f != nil {
			fs = append(fs, *f)
		}
		fs = append(fs, *older)
	}
	return a, cpLSN, fs, nil
}

// Prepass is recovery's reading of l from its checkpoint: the analysis, the checkpoint LSN and
// the findings that decide whether the server would recover it; an error when it would not
// recover it at all (or innoscope does not replay its format). The log is decoded on another
// goroutine (another core) while it is analysed; up to keep bytes of what it decodes are kept
// for the replay (redo.Decoded: nil when keep is 0, and for logs before MariaDB 10.8).
func Prepass(l *redo.Log, opt redo.ScanOptions, keep int64) (*Analysis, *redo.Decoded, uint64, []finding.Finding, error) {
	if err := l.Replayable(); err != nil {
		return nil, nil, 0, nil, err // MySQL and MariaDB before 10.5: other records, not replayed
	}
	if err := l.RecoveryStart(); err != nil {
		return nil, nil, 0, nil, err
	}
	sc, cpLSN, err := l.Scanner(opt)
	if err != nil {
		return nil, nil, 0, nil, err
	}
	d := redo.NewDecoded(l, sc, keep)
	defer sc.Prefetch()()
	a, fs, err := analyzeScanEach(l, sc, cpLSN, d.Add)
	d.End(sc)
	if err != nil || !d.Complete() {
		d = nil
	}
	return a, d, cpLSN, fs, err
}

// MapLog rebuilds the space map of l from opt.From (0: the checkpoint) as it stands before
// atLSN (0: the end of the log), with a finding for a corrupt record that ends it (and, for the
// whole log, a missing FILE_CHECKPOINT).
func MapLog(l *redo.Log, opt redo.ScanOptions, atLSN uint64) (*Map, []finding.Finding, error) {
	if l.Replayable() != nil {
		from, cpLSN, err := l.BlockStart(opt.From)
		if err != nil {
			return nil, nil, err
		}
		a, fs, err := analyzeMLog(l, from, atLSN, cpLSN, false)
		if atLSN != 0 { // the map before atLSN: the log after it is not judged
			fs = nil
			if err != nil {
				fs = append(fs, logcheck.CorruptMLog(l.Path, a.Map.EndLSN, err))
			}
		}
		return a.Map, fs, nil
	}
	sc, cpLSN, err := l.Scanner(opt)
	if err != nil {
		return nil, nil, err
	}
	a, err := Analyze(sc, atLSN, cpLSN)
	if err != nil {
		return nil, nil, err
	}
	m := a.Map
	var fs []finding.Finding
	if atLSN == 0 { // the whole log: a corrupt record, a missing FILE_CHECKPOINT
		fcp := l.FileCheckpointFinding(m.FromLSN, m.EndLSN, a.FileCheckpointEnd, cpLSN)
		fs = logcheck.Scan(l.Path, nil, sc, m.EndLSN, fcp, cpLSN, 0, 0)
	} else if err := sc.StopError(); err != nil {
		fs = append(fs, logcheck.CorruptLog(l.Path, sc.LSN(), err))
	}
	return m, l.AtEnd(fs, m.EndLSN, cpLSN), nil
}

// analyzeScan reads sc (over the log l) to its end: what recovery would apply, and the log's
// findings after the checkpoint blocks'.
func analyzeScan(l *redo.Log, sc *logformat.Scanner, cpLSN uint64) (*Analysis, []finding.Finding, error) {
	return analyzeScanEach(l, sc, cpLSN, nil)
}

// analyzeScanEach is analyzeScan, giving each mini-transaction read to each (when not nil).
func analyzeScanEach(l *redo.Log, sc *logformat.Scanner, cpLSN uint64, each func(*logformat.MTR)) (*Analysis, []finding.Finding, error) {
	cps := logcheck.Checkpoints(l.Path, l.Checkpoints, l.Selected)
	a, err := analyze(sc, 0, cpLSN, each)
	if err != nil {
		return nil, nil, err
	}
	fcp := l.FileCheckpointFinding(a.Map.FromLSN, a.Map.EndLSN, a.FileCheckpointEnd, cpLSN)
	fs := logcheck.Scan(l.Path, cps, sc, a.Map.EndLSN, fcp, cpLSN, a.PageRecords, len(a.Pages))
	fs = append(fs, l.DamageFindings(sc)...)
	return a, l.AtEnd(fs, a.Map.EndLSN, cpLSN), nil
}

// analyzeMLog is the analysis of a log whose records recovery does not replay here (MySQL,
// MariaDB before 10.5) from the LSN from to at (0: the end), with its findings (the page
// records to apply counted when pages) and the corrupt record that ended it.
func analyzeMLog(l *redo.Log, from, at, cpLSN uint64, pages bool) (*Analysis, []finding.Finding, error) {
	a, sc, err := AnalyzeMLog(l.Blocks(), from, at, cpLSN)
	recs, n := 0, 0
	if pages {
		recs, n = a.PageRecords, len(a.Pages)
	}
	return a, logcheck.MLog(l.Blocks(), from, cpLSN, sc.EndLSN, sc.EndLSN, a.FileCheckpointEnd != 0, err, recs, n), err
}
