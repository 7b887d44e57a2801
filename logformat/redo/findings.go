package redo

import (
	"fmt"
	"strings"

	"innoscope/logformat"
	"innoscope/logformat/logcheck"
	"innoscope/report"
)

// FileCheckpointFinding is a missing FILE_CHECKPOINT, as the log's server looks for it: a
// MariaDB 10.8+ server at the checkpoint's end LSN (logcheck.FileCheckpoint), a 10.5-10.7 one
// in a scan from the checkpoint (start) to end that met it at fcpEnd (0: not met); nil: found.
func (l *Log) FileCheckpointFinding(start, end, fcpEnd, cpLSN uint64) *report.Finding {
	if l.v108 != nil {
		return logcheck.FileCheckpoint(l.v108, l.Path, l.PageSize)
	}
	return logcheck.ScanFileCheckpoint(l.Path, start, end, fcpEnd, cpLSN)
}

// AtEnd is the findings fs of a scan that ended at end as the log's server judges them: a
// MariaDB 10.5-10.7 log that ends at its checkpoint needs no FILE_CHECKPOINT (logcheck.Clean105).
func (l *Log) AtEnd(fs []report.Finding, end, cpLSN uint64) []report.Finding {
	if l.blocks != nil && l.blocks.Physical() {
		return logcheck.Clean105(fs, end, cpLSN)
	}
	return fs
}

// OlderFormat is the note on a log of a format before MariaDB 10.8 (nil for 10.8+): its
// records are read and checked as MariaDB 10.11 checks them; `recover` replays only 10.5-10.7.
func (l *Log) OlderFormat(cpLSN uint64) *report.Finding {
	if l.blocks == nil {
		return nil
	}
	note := report.Finding{Severity: report.Info, Code: "OLDER_LOG_FORMAT", File: l.Path, LSN: &cpLSN,
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
