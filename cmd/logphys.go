package cmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"innoscope/logformat"
	"innoscope/logformat/logcheck"
	"innoscope/replay"
	"innoscope/report"
)

// physScan decodes a MariaDB 10.5-10.7 log (10.8 records in blocks) from the checkpoint or
// --from-lsn, which must be a mini-transaction start, checked against innodb_page_size (also
// returned, with where it came from).
func physScan(c *cli.Context, l *logformat.BlockLog) (sc *logformat.Scanner, cpLSN uint64, pageSize int, source string, err error) {
	start, cpLSN, err := blockStart(c, l)
	if err != nil {
		return nil, 0, 0, "", err
	}
	walk, before, err := ringWalkStart(c, l, start)
	if err != nil {
		return nil, 0, 0, "", err
	}
	l.SetWalkStart(walk)
	s, err := settingsOf(c)
	if err != nil {
		return nil, 0, 0, "", err
	}
	pageSize, source = pageSizeOf(s)
	from := start
	if before {
		from = 0 // the first mini-transaction of the oldest block
	}
	sc, err = l.PhysScanner(from, pageSize)
	return sc, cpLSN, pageSize, source, err
}

// ringWalkStart is where the walk of a ring log's blocks starts for the start LSN: its block,
// or the oldest block the ring holds when start is before it (--from-lsn 1: the whole log,
// said on stderr), with before set.
func ringWalkStart(c *cli.Context, l *logformat.BlockLog, start uint64) (uint64, bool, error) {
	if !l.IsRing() {
		return start, false, nil
	}
	oldest, err := l.OldestLSN()
	if err != nil || start >= oldest {
		return start, false, err
	}
	fmt.Fprintf(c.App.ErrWriter, "%s: LSN %d is before the oldest block the log holds (LSN %d): reading from its first mini-transaction\n",
		l.Name, start, oldest)
	return oldest, true, nil
}

// physRecords is `log records` for a MariaDB 10.5-10.7 log.
func physRecords(c *cli.Context, l *logformat.BlockLog) error {
	sc, cpLSN, _, _, err := physScan(c, l)
	if err != nil {
		return err
	}
	match, err := typeFilter(c.String("type"), typeNames())
	if err != nil {
		return err
	}
	space, page, to := c.Int64("space"), c.Int64("page"), c.Uint64("to-lsn")
	rp, err := newRecordPrinter(c, 17)
	if err != nil {
		return err
	}
	defer rp.out.Flush()
	start := sc.LSN()
	var fcpEnd uint64
	for sc.Next() && (to == 0 || sc.MTR().LSN < to) {
		fcpEnd = fileCheckpointEnd(sc.MTR(), cpLSN, fcpEnd)
		if err := rp.mtrRows(sc.MTR(), match, space, page); err != nil {
			return err
		}
	}
	reason, detail, _ := sc.Stop()
	if err := rp.end(c, fmt.Sprintf("end of log at LSN %d: %s (%s)", sc.LSN(), reason, detail)); err != nil {
		return err
	}
	return rp.findings(c, logcheck.Clean105(logcheck.Scan(l.Name, nil, sc, sc.LSN(), logcheck.ScanFileCheckpoint(l.Name, start, sc.LSN(), fcpEnd, cpLSN), cpLSN, 0, 0), sc.LSN(), cpLSN))
}

// physStats is `log stats` for a MariaDB 10.5-10.7 log, with the keys of the other formats.
func physStats(c *cli.Context, l *logformat.BlockLog) error {
	sc, cpLSN, pageSize, source, err := physScan(c, l)
	if err != nil {
		return err
	}
	st, err := logformat.Summarize(sc, cpLSN)
	if err != nil {
		return err
	}
	pageRecs := st.PageRecords()
	fs := logcheck.Clean105(logcheck.Scan(l.Name, logcheck.Checkpoints(l.Name, l.Checkpoints, l.Selected), sc, st.EndLSN,
		logcheck.ScanFileCheckpoint(l.Name, st.StartLSN, st.EndLSN, st.FileCheckpointEnd, cpLSN), cpLSN, pageRecs, st.PagesTouched), st.EndLSN, cpLSN)
	fs = append(logServerFindings(c), fs...)
	j := statsJSON{LogFile: l.Name, Format: l.Header.FormatName, PageSize: pageSize, PageSizeSource: source,
		CheckpointLSN: cpLSN, StartLSN: st.StartLSN, EndLSN: st.EndLSN, StopReason: string(st.Stop),
		StopDetail: st.StopDetail, StopOffset: -1, Bytes: st.EndLSN - st.StartLSN, MTRCount: st.MTRs,
		RecordCount: st.Records, RecordsByType: sortedTypeCounts(st.ByType), PageRecords: pageRecs,
		PagesTouched: st.PagesTouched, MalformedRecords: st.Malformed,
		CrashRecovery: st.StartLSN == cpLSN && pageRecs > 0, Findings: orEmpty(fs)}
	if st.FileCheckpointEnd != 0 {
		j.FileCheckpointEndLSN = &st.FileCheckpointEnd
	}
	out := report.New(c.App.Writer, c.Bool("json"))
	defer out.Flush()
	if out.JSON {
		return writeJSON(c, out, j, fs)
	}
	return printStats(c, out, blockStatsRows(&j), typeNames(), j.RecordsByType, fs)
}

// physMap is the space map of a MariaDB 10.5-10.7 log.
func physMap(c *cli.Context, l *logformat.BlockLog) (*replay.Map, []report.Finding, error) {
	sc, cpLSN, _, _, err := physScan(c, l)
	if err != nil {
		return nil, nil, err
	}
	m, fs, err := scannerMap(c, l.Name, sc, cpLSN)
	if m != nil {
		fs = logcheck.Clean105(fs, m.EndLSN, cpLSN)
	}
	return m, fs, err
}
