// Package logcheck says what a redo log tells about recovery, as findings: its checkpoint
// blocks, a corrupt record that ends it, a missing FILE_CHECKPOINT or MLOG_CHECKPOINT (the
// server refuses such a log), and the page records recovery would apply.
package logcheck

import (
	"fmt"

	"innoscope/finding"
	"innoscope/logformat"
)

// Checkpoints are what the checkpoint blocks cps of the log at path alone say, selected being
// the index of the one recovery uses (-1: none is valid).
func Checkpoints(path string, cps []logformat.Checkpoint, selected int) []finding.Finding {
	var fs []finding.Finding
	for _, c := range cps {
		if !c.Valid && !(c.Blank && selected >= 0) { // a never-written block beside a valid one is normal
			fs = append(fs, finding.Finding{Severity: finding.Warning, Code: "CHECKPOINT_REJECTED", File: path,
				Message: fmt.Sprintf("checkpoint block at offset %d is rejected: %s", c.Offset, c.Reason)})
		}
	}
	if selected < 0 {
		fs = append(fs, finding.Finding{Severity: finding.Error, Code: "NO_VALID_CHECKPOINT", File: path,
			Message: "no valid checkpoint block: the server will refuse to start (\"No valid checkpoint was found\")"})
	}
	return fs
}

// CorruptLog is the corrupt record (err) of a MariaDB 10.5+ log that ends it at lsn.
func CorruptLog(path string, lsn uint64, err error) finding.Finding {
	return finding.Finding{Severity: finding.Error, Code: "CORRUPT_LOG", File: path, LSN: &lsn,
		Message: err.Error() + "; the server stops recovery here and refuses to start without innodb_force_recovery"}
}

// CorruptMLog is a corrupt MLOG record that ends the log at lsn.
func CorruptMLog(path string, lsn uint64, err error) finding.Finding {
	return finding.Finding{Severity: finding.Error, Code: "CORRUPT_LOG", File: path, LSN: &lsn,
		Message: err.Error() + "; the server stops recovery here"}
}

// FileCheckpoint is the first step of MariaDB 10.8+ crash recovery (recv_scan_log
// before it stores any record): the server parses from the end LSN of the checkpoint it
// selected, past mini-transactions of file records only, and refuses to start unless one of
// them holds FILE_CHECKPOINT with the checkpoint LSN before the first one with page records or
// the end of the log ("Missing FILE_CHECKPOINT(N) at M", M being where that parse stopped: after
// the mini-transaction with page records, or where no valid one starts). nil: found. (Measured on
// the 10.11 server with the end LSN of a real checkpoint moved to each kind of place.)
func FileCheckpoint(l *logformat.Log, path string, pageSize int) *finding.Finding {
	cp, ok := l.Checkpoint()
	if !ok {
		return nil // NO_VALID_CHECKPOINT says it
	}
	sc := l.Scan(cp.EndLSN, logformat.ScanOptions{PageSize: pageSize})
	what := ""
	for sc.Next() {
		m, pageRecs := sc.MTR(), false
		for i := range m.Records {
			r := &m.Records[i]
			if r.Type == logformat.FileCheckpoint && r.CheckpointLSN == cp.LSN {
				return nil
			}
			pageRecs = pageRecs || !(r.Type.IsFile() || r.Type == logformat.Padding)
		}
		if pageRecs {
			what = fmt.Sprintf("the mini-transaction at LSN %d has page records", m.LSN)
			break
		}
	}
	at := sc.LSN()
	if what == "" {
		what = fmt.Sprintf("no valid mini-transaction starts at LSN %d", at)
	}
	return &finding.Finding{Severity: finding.Error, Code: "MISSING_FILE_CHECKPOINT", File: path, LSN: &at,
		Message: fmt.Sprintf("the checkpoint block at offset %d (checkpoint LSN %d) says its FILE_CHECKPOINT record is at end LSN %d (file offset %d), "+
			"but %s and none before it holds FILE_CHECKPOINT(%d); the server parses from there first and refuses to start (\"Missing FILE_CHECKPOINT(%d) at %d\")",
			cp.Offset, cp.LSN, cp.EndLSN, l.FileOffset(cp.EndLSN), what, cp.LSN, cp.LSN, at)}
}

// ScanFileCheckpoint is the rule of logs before MariaDB 10.8 read as 10.8 records
// (10.5-10.7): a scan that started at the checkpoint must meet FILE_CHECKPOINT for it (fcpEnd:
// the end LSN of the one met, 0 if none). nil: met, or the scan did not start at the checkpoint.
func ScanFileCheckpoint(path string, startLSN, end, fcpEnd, cpLSN uint64) *finding.Finding {
	if startLSN != cpLSN || fcpEnd != 0 {
		return nil
	}
	return &finding.Finding{Severity: finding.Error, Code: "MISSING_FILE_CHECKPOINT", File: path, LSN: &end,
		Message: fmt.Sprintf("no FILE_CHECKPOINT(%d) record between the checkpoint and the end of the log; "+
			"the server refuses to start (\"Missing FILE_CHECKPOINT\")", cpLSN)}
}

// Scan is the checkpoint blocks' findings fs, then a corrupt record, a missing
// FILE_CHECKPOINT (fcp, nil if none), and how much recovery has to apply, from a scan sc of the
// log at path that ended at end.
func Scan(path string, fs []finding.Finding, sc *logformat.Scanner, end uint64, fcp *finding.Finding, cpLSN uint64, pageRecs, pages int) []finding.Finding {
	if err := sc.StopError(); err != nil {
		fs = append(fs, CorruptLog(path, end, err))
	}
	if fcp != nil {
		fs = append(fs, *fcp)
	}
	if f := Unclean(path, cpLSN, end, cpLSN, false, true, pageRecs, pages); f != nil {
		fs = append(fs, *f)
	}
	return fs
}

// Unclean is UNCLEAN_SHUTDOWN for pageRecs page records on pages pages counted by a scan of the
// log at path from start to end (limited: it stopped at an end LSN asked for, not at the end of
// the log), whose checkpoint is at cpLSN; recovery says the server will run crash recovery. nil
// when there is nothing to say: no page records, or a scan of another range of a log that needs
// no recovery. The message says what was counted: the records recovery applies only when the
// scan went from the checkpoint to the end of the log.
func Unclean(path string, start, end, cpLSN uint64, limited, recovery bool, pageRecs, pages int) *finding.Finding {
	whole := start == cpLSN && !limited
	if pageRecs == 0 || !whole && !recovery {
		return nil
	}
	msg := fmt.Sprintf("%d page records for %d pages after checkpoint LSN %d; crash recovery will apply them", pageRecs, pages, cpLSN)
	if !whole {
		to := "the end of the log"
		if limited {
			to = fmt.Sprintf("LSN %d", end)
		}
		msg = fmt.Sprintf("%d page records for %d pages counted from LSN %d to %s, the range scanned; "+
			"crash recovery applies those from checkpoint LSN %d to the end of the log", pageRecs, pages, start, to, cpLSN)
	}
	return &finding.Finding{Severity: finding.Info, Code: "UNCLEAN_SHUTDOWN", File: path, LSN: &end, Message: msg}
}

// Clean105 drops MISSING_FILE_CHECKPOINT from the findings on a MariaDB 10.5-10.7 log that
// ends at its checkpoint LSN (a clean shutdown): 10.5's recv_recovery_from_checkpoint_start
// asks for FILE_CHECKPOINT only when the scanned log goes on past the checkpoint. (In a 10.8+
// log the record follows the checkpoint LSN, and a log ending there lacks it.)
func Clean105(fs []finding.Finding, end, cpLSN uint64) []finding.Finding {
	if end > cpLSN {
		return fs
	}
	out := fs[:0:0]
	for _, f := range fs {
		if f.Code != "MISSING_FILE_CHECKPOINT" {
			out = append(out, f)
		}
	}
	return out
}

// MLog is what a scan of an MLOG log from start to end says about recovery: the
// checkpoint blocks, a corrupt record (scanErr), a missing MLOG_CHECKPOINT where the format has
// one (mlogCheckpoint: the one for cpLSN was seen), and the page records to apply, the last
// ending at last.
func MLog(l *logformat.BlockLog, start, cpLSN, end, last uint64, mlogCheckpoint bool, scanErr error, pageRecs, pages int) []finding.Finding {
	fs := mlogScan(l, end, scanErr)
	if d := l.Dialect; (d == logformat.DialectMySQL57 || d == logformat.DialectMariaDB) && start == cpLSN && end > cpLSN && !mlogCheckpoint && scanErr == nil {
		// log0recv.cc, recv_recovery_from_checkpoint_start: these servers write MLOG_CHECKPOINT
		// after the file names at every checkpoint, and ignore a log that lacks it.
		fs = append(fs, finding.Finding{Severity: finding.Error, Code: "MISSING_MLOG_CHECKPOINT", File: l.Name, LSN: &end,
			Message: fmt.Sprintf("no MLOG_CHECKPOINT(%d) record between the checkpoint and the end of the log at %d; "+
				"the server refuses to start (\"missing MLOG_CHECKPOINT\")", cpLSN, end)})
	}
	if pageRecs > 0 && start == cpLSN {
		fs = append(fs, finding.Finding{Severity: finding.Info, Code: "UNCLEAN_SHUTDOWN", File: l.Name, LSN: &last,
			Message: fmt.Sprintf("%d page records for %d pages after checkpoint LSN %d; crash recovery will apply them", pageRecs, pages, cpLSN)})
	}
	return fs
}

// mlogScan is what any scan of an MLOG log that ended at end says: the checkpoint blocks, a
// missing redo file, and a corrupt record (scanErr) that ended it.
func mlogScan(l *logformat.BlockLog, end uint64, scanErr error) []finding.Finding {
	fs := Checkpoints(l.Name, l.Checkpoints, l.Selected)
	if m := l.MissingFile(); m != "" {
		fs = append(fs, finding.Finding{Severity: finding.Error, Code: "MISSING_REDO_FILE", File: l.Name, LSN: &end, Message: m})
	}
	if scanErr != nil {
		fs = append(fs, CorruptMLog(l.Name, end, scanErr))
	}
	return fs
}

// MLogRange is what a scan of an MLOG log over another range than recovery's (from another LSN,
// or to an end LSN) says: mlogScan's findings for it, and of whole, the findings of the scan
// from the checkpoint to the end (MLog), those that say the server refuses the log: a missing
// MLOG_CHECKPOINT, and a corrupt record the range did not reach. The page records to apply are
// the caller's to word (Unclean), as those of the range.
func MLogRange(l *logformat.BlockLog, end uint64, scanErr error, whole []finding.Finding) []finding.Finding {
	fs := mlogScan(l, end, scanErr)
	for _, f := range whole {
		if f.Code == "MISSING_MLOG_CHECKPOINT" || f.Code == "CORRUPT_LOG" && scanErr == nil {
			fs = append(fs, f)
		}
	}
	return fs
}
