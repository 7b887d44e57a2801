package cmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"innoscope/logformat"
	"innoscope/logformat/logcheck"
	"innoscope/report"
)

// blockLogHeader prints `log header` for a MySQL 8.0.30+ redo file.
func blockLogHeader(c *cli.Context, l *logformat.BlockLog) error {
	sc, err := l.ScanBlocks()
	if err != nil {
		return err
	}
	h := l.Header
	fs := logcheck.Checkpoints(l.Name, l.Checkpoints, l.Selected)
	fs = append(logServerFindings(c), fs...)
	j := headerJSON{LogFile: l.Name, Format: h.FormatName, FormatID: h.Format, Vendor: h.Vendor, Creator: h.Creator,
		FirstLSN: h.FirstLSN, FileSize: l.Size, Capacity: l.Capacity(), HeaderCRC: h.CRC,
		HeaderCRCValid: h.CRCValid, Findings: fs,
		Blocks: &blocksJSON{Count: sc.Blocks, EndLSN: sc.EndLSN, StopReason: string(sc.Stop), StopDetail: sc.StopDetail, StopOffset: sc.StopOffset}}
	for i, cp := range l.Checkpoints {
		j.Checkpoints = append(j.Checkpoints, checkpointJSON{cp.Offset, cp.LSN, 0, cp.Valid, cp.Reason, i == l.Selected, cp.No})
	}
	if l.Selected >= 0 {
		j.CheckpointLSN = &l.Checkpoints[l.Selected].LSN
	}
	j.Findings = orEmpty(j.Findings)
	out := report.New(c.App.Writer, c.Bool("json"))
	defer out.Flush()
	if out.JSON {
		return writeJSON(c, out, j, fs)
	}
	rows := [][]string{
		{"log file", l.Name}, {"format", fmt.Sprintf("%s (%d)", h.FormatName, h.Format)}, {"creator", h.Creator},
		{"start LSN", fmt.Sprint(h.FirstLSN)}, {"file size", fmt.Sprint(l.Size)},
		{"blocks", fmt.Sprintf("%d valid; written data ends at LSN %d (%s: %s)", sc.Blocks, sc.EndLSN, sc.Stop, sc.StopDetail)},
		{"records", "MLOG records: see log records / log stats (--from-lsn 1 for the whole file)"},
	}
	if l.IsRing() {
		rows[4] = []string{"files", fmt.Sprintf("%d of %d bytes, %d bytes of log in the ring", len(l.RingFiles()), l.Size, l.Capacity())}
		rows[5][1] = fmt.Sprintf("from the checkpoint's block: %d valid; written data ends at LSN %d (%s: %s)", sc.Blocks, sc.EndLSN, sc.Stop, sc.StopDetail)
		rows[6][1] = "MLOG records: see log records / log stats (--from-lsn LSN to start before the checkpoint)"
	}
	for i, cp := range l.Checkpoints {
		v := "valid"
		if !cp.Valid {
			v = "rejected: " + cp.Reason
		}
		if i == l.Selected {
			v += " (recovery starts here)"
		}
		if l.IsRing() {
			v = fmt.Sprintf("number %d, %s", cp.No, v)
		}
		rows = append(rows, []string{fmt.Sprintf("checkpoint at %d", cp.Offset), fmt.Sprintf("LSN %d, %s", cp.LSN, v)})
	}
	if err := out.Table([]string{"FIELD", "VALUE"}, rows); err != nil {
		return err
	}
	return finish(c, fs)
}
