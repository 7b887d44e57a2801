package cmd

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"innoscope/logformat"
	"innoscope/report"
)

// openBlockLog opens the command's log as a MySQL 8.0.30+ redo file (header, checkpoints,
// blocks and MLOG records). For a data directory, all its #innodb_redo/#ib_redoN files are
// opened and chained in LSN order (the spare #ib_redoN_tmp files are not log files).
func openBlockLog(c *cli.Context) (*logformat.BlockLog, error) {
	f, size, _, err := openLogFile(c)
	if err != nil {
		return nil, err
	}
	l, err := logformat.OpenBlockLog(f, size, f.Name())
	if err != nil {
		f.Close()
		return nil, err
	}
	if fi, err := os.Stat(c.Args().First()); err == nil && fi.Mode().IsRegular() {
		return l, nil // one file asked for
	}
	files := []*logformat.BlockLog{l}
	dir := filepath.Dir(f.Name())
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if !mysqlRedoName.MatchString(e.Name()) || p == f.Name() {
			continue
		}
		g, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		gi, err := g.Stat()
		if err != nil {
			g.Close()
			return nil, err
		}
		m, err := logformat.OpenBlockLog(g, gi.Size(), p)
		if err != nil {
			g.Close()
			return nil, err
		}
		files = append(files, m)
	}
	return logformat.Chain(files)
}

// blockLogHeader prints `log header` for a MySQL 8.0.30+ redo file.
func blockLogHeader(c *cli.Context, l *logformat.BlockLog) error {
	sc, err := l.ScanBlocks()
	if err != nil {
		return err
	}
	h := l.Header
	fs := checkpointBlockFindings(l.Name, l.Checkpoints, l.Selected)
	j := headerJSON{LogFile: l.Name, Format: h.FormatName, FormatID: h.Format, Vendor: h.Vendor, Creator: h.Creator,
		FirstLSN: h.FirstLSN, FileSize: l.Size, Capacity: uint64(l.Size) - 4*logformat.BlockSize, HeaderCRC: h.CRC,
		HeaderCRCValid: h.CRCValid, Findings: fs,
		Blocks: &blocksJSON{Count: sc.Blocks, EndLSN: sc.EndLSN, StopReason: string(sc.Stop), StopDetail: sc.StopDetail, StopOffset: sc.StopOffset}}
	for i, cp := range l.Checkpoints {
		j.Checkpoints = append(j.Checkpoints, checkpointJSON{cp.Offset, cp.LSN, 0, cp.Valid, cp.Reason, i == l.Selected})
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
	for i, cp := range l.Checkpoints {
		v := "valid"
		if !cp.Valid {
			v = "rejected: " + cp.Reason
		}
		if i == l.Selected {
			v += " (recovery starts here)"
		}
		rows = append(rows, []string{fmt.Sprintf("checkpoint at %d", cp.Offset), fmt.Sprintf("LSN %d, %s", cp.LSN, v)})
	}
	if err := out.Table([]string{"FIELD", "VALUE"}, rows); err != nil {
		return err
	}
	return finish(c, fs)
}
