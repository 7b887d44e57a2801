package cmd

import (
	"github.com/urfave/cli/v2"

	"innoscope/analysis"
	"innoscope/logformat"
	"innoscope/logformat/redo"
	"innoscope/report"
)

// recoverLog is the source's redo log as `recover` replays it: a MariaDB 10.8+ log, or a
// MariaDB 10.5-10.7 one (10.8 records in 512-byte blocks). Replaying the latter and writing the
// copy's log in the 10.8 format at its end LSN is a crash-upgrade: MariaDB 10.8+ refuses to
// recover the older log itself ("Upgrade after a crash is not supported").
type recoverLog struct {
	Path     string
	Size     int64
	PageSize int
	src      *redo.Log
	c        *cli.Context
}

// Close closes the log's files.
func (r *recoverLog) Close() error { return r.src.Close() }

// Scan decodes the log from the checkpoint LSN cpLSN (where the pre-pass started).
func (r *recoverLog) Scan(cpLSN uint64) (*logformat.Scanner, error) {
	sc, _, err := r.src.Scanner(scanOptions(r.c))
	return sc, err
}

// openRecoverLog opens the source's log for `recover` and runs the pre-pass over it: the
// analysis, the checkpoint LSN and the findings that decide whether the server would recover it.
// A log of MariaDB 10.5-10.7 is a crash-upgrade.
func openRecoverLog(c *cli.Context) (*recoverLog, *analysis.Analysis, uint64, []report.Finding, error) {
	src, err := openRedo(c)
	if err != nil {
		return nil, nil, 0, nil, err
	}
	a, cpLSN, fs, err := recoverPrepass(c, src)
	if err != nil {
		src.Close()
		return nil, nil, 0, nil, err
	}
	return &recoverLog{Path: src.Path, Size: src.Size, PageSize: src.PageSize, src: src, c: c}, a, cpLSN, fs, nil
}

// recoverPrepass is the analysis of src from its checkpoint; an error when the server
// would not recover it at all.
func recoverPrepass(c *cli.Context, src *redo.Log) (*analysis.Analysis, uint64, []report.Finding, error) {
	if err := src.Replayable(); err != nil {
		return nil, 0, nil, err // MySQL and MariaDB before 10.5: other records, not replayed
	}
	if err := src.RecoveryStart(); err != nil {
		return nil, 0, nil, err
	}
	sc, cpLSN, err := src.Scanner(scanOptions(c))
	if err != nil {
		return nil, 0, nil, err
	}
	a, fs, err := analyzeScan(src, sc, cpLSN)
	return a, cpLSN, fs, err
}
