package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"innoscope/discovery"
	"innoscope/logformat"
	"innoscope/report"
)

// openBlockLog opens the command's log as a log of 512-byte blocks and MLOG records: MySQL
// 8.0.30+ files, or the ib_logfileN ring of MySQL 5.7, 8.0 before 8.0.30 and MariaDB
// 10.2-10.4. For a data directory, all its #innodb_redo/#ib_redoN files are
// opened and chained in LSN order (the spare #ib_redoN_tmp files are not log files).
func openBlockLog(c *cli.Context) (*logformat.BlockLog, error) {
	f, size, _, err := openLogFile(c)
	if err != nil {
		return nil, err
	}
	l, err := logformat.OpenBlockLog(f, size, f.Name())
	if errors.Is(err, logformat.ErrUnsupported) && filepath.Base(f.Name()) == "ib_logfile0" {
		return openRingLog(f, size)
	}
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
		g, size, err := openSized(p)
		if err != nil {
			closeAll(files)
			return nil, err
		}
		m, err := logformat.OpenBlockLog(g, size, p)
		if err != nil {
			g.Close()
			closeAll(files)
			return nil, err
		}
		files = append(files, m)
	}
	return logformat.Chain(files)
}

// closeFiles closes opened files.
func closeFiles(rs []io.ReaderAt) {
	for _, r := range rs {
		r.(io.Closer).Close()
	}
}

// closeAll closes the files of opened logs.
func closeAll(ls []*logformat.BlockLog) {
	for _, l := range ls {
		l.Close()
	}
}

// openRingLog opens ib_logfile0 (f) and the ib_logfile1, ib_logfile2, ... beside it as the
// ring of a MySQL 5.7, MySQL 8.0 before 8.0.30 or MariaDB 10.2-10.4 log.
func openRingLog(f *os.File, size int64) (*logformat.BlockLog, error) {
	rs, sizes, names := []io.ReaderAt{f}, []int64{size}, []string{f.Name()}
	for k := 1; ; k++ {
		p := filepath.Join(filepath.Dir(f.Name()), fmt.Sprintf("ib_logfile%d", k))
		g, gsize, err := openSized(p)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			closeFiles(rs)
			return nil, err
		}
		rs, sizes, names = append(rs, g), append(sizes, gsize), append(names, p)
	}
	l, err := logformat.OpenRingLog(rs, sizes, names)
	if err != nil {
		closeFiles(rs)
	}
	return l, err
}

// openSized opens the regular file at p read-only, with its size (anything else is refused
// without blocking: discovery.OpenRegular).
func openSized(p string) (*os.File, int64, error) {
	f, err := discovery.OpenRegular(p)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// blockLogHeader prints `log header` for a MySQL 8.0.30+ redo file.
func blockLogHeader(c *cli.Context, l *logformat.BlockLog) error {
	sc, err := l.ScanBlocks()
	if err != nil {
		return err
	}
	h := l.Header
	fs := checkpointBlockFindings(l.Name, l.Checkpoints, l.Selected)
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
