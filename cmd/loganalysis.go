package cmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"innoscope/analysis"
	"innoscope/logformat"
	"innoscope/logformat/logcheck"
	"innoscope/logformat/redo"
	"innoscope/report"
)

// analyzeLog reads the command's redo log from its checkpoint: what recovery would apply and
// the log's own findings. Logs of the formats before MariaDB 10.8 get a note that the checks
// against the files were written after MariaDB 10.11's behaviour.
func analyzeLog(c *cli.Context) (*analysis.Analysis, uint64, []report.Finding, error) {
	r, err := openRedo(c)
	if err != nil {
		return nil, 0, nil, err
	}
	defer r.Close()
	older := r.OlderFormat(r.CheckpointLSN())
	if older != nil && r.Selected < 0 {
		return nil, 0, nil, fmt.Errorf("%s: no valid checkpoint block, so no known place for recovery to start", r.Path)
	}
	if r.Replayable() != nil {
		cpLSN := r.CheckpointLSN()
		a, fs, _ := analyzeMLog(r, cpLSN, 0, cpLSN, true)
		return a, cpLSN, append(fs, *older), nil
	}
	sc, cpLSN, err := r.Scanner(scanOptions(c))
	if err != nil {
		return nil, 0, nil, err
	}
	a, fs, err := analyzeScan(r, sc, cpLSN)
	if err != nil {
		if older != nil {
			cpLSN = 0
		}
		return nil, cpLSN, nil, err
	}
	if older != nil {
		fs = append(fs, *older)
	}
	return a, cpLSN, fs, nil
}

// analyzeScan reads sc (over the log r) to its end: what recovery would apply, and the
// log's findings after the checkpoint blocks'.
func analyzeScan(r *redo.Log, sc *logformat.Scanner, cpLSN uint64) (*analysis.Analysis, []report.Finding, error) {
	cps := logcheck.Checkpoints(r.Path, r.Checkpoints, r.Selected)
	a, err := analysis.Analyze(sc, 0, cpLSN)
	if err != nil {
		return nil, nil, err
	}
	fcp := r.FileCheckpointFinding(a.Map.FromLSN, a.Map.EndLSN, a.FileCheckpointEnd, cpLSN)
	fs := logcheck.Scan(r.Path, cps, sc, a.Map.EndLSN, fcp, cpLSN, a.PageRecords, len(a.Pages))
	return a, r.AtEnd(fs, a.Map.EndLSN, cpLSN), nil
}

// analyzeMLog is the analysis of a log whose records recovery does not replay here (MySQL,
// MariaDB before 10.5) from the LSN from to at (0: the end), with its findings (the page
// records to apply counted when pages) and the corrupt record that ended it.
func analyzeMLog(r *redo.Log, from, at, cpLSN uint64, pages bool) (*analysis.Analysis, []report.Finding, error) {
	a, sc, err := analysis.AnalyzeMLog(r.Blocks(), from, at, cpLSN)
	recs, n := 0, 0
	if pages {
		recs, n = a.PageRecords, len(a.Pages)
	}
	return a, logcheck.MLog(r.Blocks(), from, cpLSN, sc.EndLSN, sc.EndLSN, a.FileCheckpointEnd != 0, err, recs, n), err
}
