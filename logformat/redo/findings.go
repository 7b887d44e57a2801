package redo

import (
	"fmt"
	"strings"

	"innoscope/finding"
	"innoscope/logformat"
	"innoscope/logformat/logcheck"
)

// FileCheckpointFinding is a missing FILE_CHECKPOINT, as the log's server looks for it: a
// MariaDB 10.8+ server at the checkpoint's end LSN (logcheck.FileCheckpoint), a 10.5-10.7 one
// in a scan from the checkpoint (start) to end that met it at fcpEnd (0: not met); nil: found.
// A scan that stopped short of the log's end (--to-lsn) proves nothing missing: the log from the
// checkpoint to its end is scanned for the record then, as the server scans it.
func (l *Log) FileCheckpointFinding(start, end, fcpEnd, cpLSN uint64) *finding.Finding {
	if l.v108 != nil {
		return logcheck.FileCheckpoint(l.v108, l.Path, l.PageSize)
	}
	if start == cpLSN && fcpEnd == 0 {
		if sc, from, err := l.Scanner(ScanOptions{}); err == nil && from == cpLSN {
			for sc.Next() && fcpEnd == 0 {
				fcpEnd = fileCheckpointEnd(sc.MTR(), cpLSN, 0)
			}
			end = max(end, sc.LSN())
		}
	}
	return logcheck.ScanFileCheckpoint(l.Path, start, end, fcpEnd, cpLSN)
}

// AtEnd is the findings fs of a scan that ended at end as the log's server judges them: a
// MariaDB 10.5-10.7 log that ends at its checkpoint needs no FILE_CHECKPOINT (logcheck.Clean105).
func (l *Log) AtEnd(fs []finding.Finding, end, cpLSN uint64) []finding.Finding {
	if l.blocks != nil && l.blocks.Physical() {
		return logcheck.Clean105(fs, end, cpLSN)
	}
	return fs
}

// OlderFormat is the note on a log of a format before MariaDB 10.8 (nil for 10.8+): its
// records are read and checked as MariaDB 10.11 checks them; `recover` replays only 10.5-10.7.
func (l *Log) OlderFormat(cpLSN uint64) *finding.Finding {
	if l.blocks == nil {
		return nil
	}
	note := finding.Finding{Severity: finding.Info, Code: "OLDER_LOG_FORMAT", File: l.Path, LSN: &cpLSN,
		Message: fmt.Sprintf("%s redo log (created by %q): its records are read, and the checks against the files and the dictionary are those MariaDB 10.11 makes; pages are not replayed for this format",
			l.Header.FormatName, l.Header.Creator)}
	if l.blocks.Physical() {
		note.Message = strings.Replace(note.Message, "pages are not replayed for this format",
			"`recover` replays it and writes the copy's log in the 10.8 format (a crash-upgrade)", 1)
	}
	return &note
}

// RecoveryStart is nil when recovery has a checkpoint to start from or the MariaDB 10.8+ scan
// says why not (Scanner); for a log of blocks with no valid checkpoint block, the error the
// server stops with.
func (l *Log) RecoveryStart() error {
	if l.blocks == nil || l.Selected >= 0 {
		return nil
	}
	return &logformat.FormatError{File: l.Path, Offset: 512, Msg: "no valid checkpoint block: the server refuses to start (\"No valid checkpoint was found\")"}
}

// CrashUpgrade is the refusal of MariaDB 10.8 and later to start on a log of an older format
// that has anything written after its checkpoint (end > cpLSN), nil otherwise. Those servers
// upgrade a log of MySQL 5.6-5.7 or MariaDB 10.0-10.7 only when the block at the checkpoint
// ends at the checkpoint (a clean shutdown), and stop with "Upgrade after a crash is not
// supported" when it does not; the ways out are the older server's own recovery followed by a
// clean shutdown, or (10.5-10.7) `recover` into a copy. The MySQL 8.0 formats are refused
// whatever they hold ("Unsupported redo log format"), which this does not report.
func (l *Log) CrashUpgrade(cpLSN, end uint64) *finding.Finding {
	if l.blocks == nil || end <= cpLSN {
		return nil
	}
	quote := "Upgrade after a crash is not supported. The redo log was created with " + l.Header.Creator + "."
	switch l.Header.Format &^ logformat.FormatEncrypted {
	case logformat.FormatMariaDB105, logformat.FormatMariaDB104, logformat.FormatMariaDB103, logformat.FormatMySQL57:
	case 0:
		quote = "Upgrade after a crash is not supported. This redo log was created before MariaDB 10.2.2"
	default:
		return nil
	}
	older := fmt.Sprintf("start a %s server (the log's version; it was written by %q) on the directory, let it recover and shut it down cleanly, then upgrade", l.Header.FormatName, l.Header.Creator)
	ways := "the way out: " + older
	if l.blocks.Physical() {
		ways = "two ways out: " + older + "; or run `innoscope recover DIR --into COPY` and start MariaDB 10.8+ on the copy (its log is written in the 10.8 format, as a clean shutdown leaves it)"
	}
	return &finding.Finding{Severity: finding.Error, Code: "CRASH_UPGRADE_REFUSED", File: l.Path, LSN: &end,
		Message: fmt.Sprintf("MariaDB 10.8 and later refuse to start on this directory: its %s redo log has %d bytes of log after checkpoint LSN %d (up to LSN %d), and they recover no older log format (%q); %s",
			l.Header.FormatName, end-cpLSN, cpLSN, end, quote, ways)}
}
