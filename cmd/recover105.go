package cmd

import (
	"github.com/urfave/cli/v2"

	"innoscope/logformat"
	"innoscope/logformat/logcheck"
	"innoscope/logformat/redo"
	"innoscope/replay"
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

// Scan decodes the log from the checkpoint LSN cpLSN.
func (r *recoverLog) Scan(cpLSN uint64) (*logformat.Scanner, error) {
	if bl := r.src.Blocks(); bl != nil {
		sc, _, _, _, err := physScan(r.c, bl)
		return sc, err
	}
	return r.src.V108().Scan(cpLSN, logformat.ScanOptions{PageSize: r.PageSize}), nil
}

// openRecoverLog opens the source's log for `recover` and runs the pre-pass over it: the
// analysis, the checkpoint LSN and the findings that decide whether the server would recover it.
func openRecoverLog(c *cli.Context) (*recoverLog, *replay.Analysis, uint64, []report.Finding, error) {
	src, err := openRedo(c)
	if err != nil {
		return nil, nil, 0, nil, err
	}
	if err := src.Replayable(); err != nil {
		src.Close()
		return nil, nil, 0, nil, err // MySQL and MariaDB before 10.5: other records, not replayed
	}
	bl := src.Blocks()
	if bl == nil {
		l, sc, cpLSN, err := startScan(c, src)
		if err != nil {
			src.Close()
			return nil, nil, 0, nil, err
		}
		a, fs, err := analyzeScan(l.Path, logcheck.Checkpoints(l.Path, l.Checkpoints, l.Selected), sc, cpLSN, l)
		if err != nil {
			src.Close()
			return nil, nil, 0, nil, err
		}
		return &recoverLog{Path: l.Path, Size: l.Size, PageSize: l.PageSize, src: src, c: c}, a, cpLSN, fs, nil
	}
	if bl.Selected < 0 {
		src.Close()
		return nil, nil, 0, nil, &logformat.FormatError{File: bl.Name, Offset: 512, Msg: "no valid checkpoint block: the server refuses to start (\"No valid checkpoint was found\")"}
	}
	r := &recoverLog{Path: bl.Name, Size: bl.Size, src: src, c: c}
	sc, cpLSN, pageSize, _, err := physScan(c, bl)
	if err != nil {
		src.Close()
		return nil, nil, 0, nil, err
	}
	r.PageSize = pageSize
	a, fs, err := analyzeScan(bl.Name, logcheck.Checkpoints(bl.Name, bl.Checkpoints, bl.Selected), sc, cpLSN, nil)
	if err != nil {
		src.Close()
		return nil, nil, 0, nil, err
	}
	return r, a, cpLSN, logcheck.Clean105(fs, a.Map.EndLSN, cpLSN), nil
}
