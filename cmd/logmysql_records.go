package cmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"innoscope/logformat"
	"innoscope/logformat/logcheck"
	"innoscope/report"
)

// blockCheckpoint is the LSN of the checkpoint recovery uses, 0 when no block is valid.
func blockCheckpoint(l *logformat.BlockLog) uint64 {
	if l.Selected < 0 {
		return 0
	}
	return l.Checkpoints[l.Selected].LSN
}

// blockStart is where a command reads a block log from: --from-lsn, else the checkpoint; with
// the checkpoint LSN.
func blockStart(c *cli.Context, l *logformat.BlockLog) (start, cpLSN uint64, err error) {
	cpLSN = blockCheckpoint(l)
	if start = c.Uint64("from-lsn"); start != 0 {
		return start, cpLSN, nil
	}
	if l.Selected < 0 {
		return 0, 0, fmt.Errorf("%s: no valid checkpoint block, so no known place to start; give --from-lsn", l.Name)
	}
	return cpLSN, cpLSN, nil
}

// blockScan decodes an MLOG log's mini-transactions and calls fn for those that start at or
// after the start LSN (the checkpoint, or --from-lsn) and before --to-lsn. A MySQL 8.0.30+ file
// is decoded from its first mini-transaction on, a ring from the first one that starts in the
// start LSN's block, so that any start LSN is reached on a boundary.
func blockScan(c *cli.Context, l *logformat.BlockLog, fn func(*logformat.MLogMTR)) (logformat.MLogScan, uint64, uint64, error) {
	start, cpLSN, err := blockStart(c, l)
	if err != nil {
		return logformat.MLogScan{}, 0, 0, err
	}
	to := c.Uint64("to-lsn")
	walk, _, err := ringWalkStart(c, l, start)
	if err != nil {
		return logformat.MLogScan{}, 0, 0, err
	}
	l.SetWalkStart(walk)
	sc, err := l.ScanRecords(0, func(m *logformat.MLogMTR) error {
		if m.LSN >= start && (to == 0 || m.LSN < to) {
			fn(m)
		}
		return nil
	})
	return sc, cpLSN, start, err
}

// blockLogRecords is `log records` for a MySQL 8.0.30+ file.
func blockLogRecords(c *cli.Context, l *logformat.BlockLog) error {
	if l.Physical() {
		return physRecords(c, l)
	}
	match, err := typeFilter(c.String("type"), mlogNames())
	if err != nil {
		return err
	}
	space, page := c.Int64("space"), c.Int64("page")
	rp, err := newRecordPrinter(c, 26)
	if err != nil {
		return err
	}
	defer rp.out.Flush()
	var werr error
	sc, _, _, err := blockScan(c, l, func(m *logformat.MLogMTR) {
		for i, r := range m.Records {
			if werr != nil || !match(r.Type.String()) || (space >= 0 && int64(r.Space) != space) || (page >= 0 && int64(r.Page) != page) {
				continue
			}
			summary := r.Name
			if r.NewName != "" {
				summary += " -> " + r.NewName
			}
			sp, pg := fmt.Sprint(r.Space), fmt.Sprint(r.Page)
			if !r.Type.HasPage() {
				pg = "-"
				if !r.Type.IsFile() {
					sp = "-"
				}
			}
			werr = rp.row(recordJSON{MTRLSN: m.LSN, MTREndLSN: m.EndLSN, Index: i, Type: r.Type.String(),
				Space: r.Space, Page: r.Page, Len: r.Len, Name: r.Name, NewName: r.NewName, Summary: summary}, sp, pg)
		}
	})
	if werr != nil {
		return werr
	}
	if err := rp.end(c, fmt.Sprintf("end of log at LSN %d: %s (%s)", sc.EndLSN, sc.Stop, sc.StopDetail)); err != nil {
		return err
	}
	if err != nil {
		return finish(c, []report.Finding{logcheck.CorruptMLog(l.Name, sc.EndLSN, err)})
	}
	return nil
}

// blockLogStats is `log stats` for a MySQL 8.0.30+ file, with the keys of the MariaDB form.
func blockLogStats(c *cli.Context, l *logformat.BlockLog) error {
	if l.Physical() {
		return physStats(c, l)
	}
	byType := map[string]int{}
	pages := map[[2]uint32]bool{}
	var mtrs, records, pageRecs int
	var first, last uint64
	mlogCheckpoint, selected := false, blockCheckpoint(l)
	sc, cpLSN, start, err := blockScan(c, l, func(m *logformat.MLogMTR) {
		if mtrs == 0 {
			first = m.LSN
		}
		mtrs++
		last = m.EndLSN
		for _, r := range m.Records {
			records++
			mlogCheckpoint = mlogCheckpoint || r.Type == logformat.MLogCheckpoint && r.CheckpointLSN == selected
			byType[r.Type.String()]++
			if r.Type.HasPage() {
				pageRecs++
				pages[[2]uint32{r.Space, r.Page}] = true
			}
		}
	})
	if mtrs == 0 {
		first, last = start, start
		if sc.EndLSN > start {
			last = sc.EndLSN
		}
	}
	fs := logcheck.MLog(l, start, cpLSN, sc.EndLSN, last, mlogCheckpoint, err, pageRecs, len(pages))
	fs = append(logServerFindings(c), fs...)
	malformed := 0
	if err != nil {
		malformed = 1
	}
	j := statsJSON{LogFile: l.Name, Format: l.Header.FormatName, PageSize: 16384, PageSizeSource: "default",
		CheckpointLSN: cpLSN, StartLSN: first, EndLSN: last, StopReason: string(sc.Stop), StopDetail: sc.StopDetail,
		StopOffset: -1, Bytes: last - first, MTRCount: mtrs, RecordCount: records, RecordsByType: byType,
		PageRecords: pageRecs, PagesTouched: len(pages), MalformedRecords: malformed,
		CrashRecovery: start == cpLSN && sc.EndLSN > cpLSN, Findings: orEmpty(fs)}
	out := report.New(c.App.Writer, c.Bool("json"))
	defer out.Flush()
	if out.JSON {
		return writeJSON(c, out, j, fs)
	}
	return printStats(c, out, blockStatsRows(&j), mlogNames(), byType, fs)
}

// blockStatsRows are the `log stats` table rows of a log of 512-byte blocks.
func blockStatsRows(j *statsJSON) [][]string {
	return [][]string{
		{"log file", j.LogFile}, {"format", j.Format}, {"checkpoint LSN", fmt.Sprint(j.CheckpointLSN)},
		{"decoded", fmt.Sprintf("LSN %d to %d", j.StartLSN, j.EndLSN)},
		{"scan stopped", fmt.Sprintf("%s: %s", j.StopReason, j.StopDetail)},
		{"mini-transactions", fmt.Sprint(j.MTRCount)}, {"records", fmt.Sprint(j.RecordCount)},
		{"pages touched", fmt.Sprint(j.PagesTouched)}, {"crash recovery needed", fmt.Sprint(j.CrashRecovery)},
	}
}

// mlogNames are the names of the MLOG record types.
func mlogNames() []string {
	var names []string
	for _, t := range logformat.MLogTypes {
		names = append(names, t.String())
	}
	return names
}
