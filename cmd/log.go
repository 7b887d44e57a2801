package cmd

import (
	"fmt"
	"path"
	"strings"

	"github.com/urfave/cli/v2"

	"innoscope/logformat/redo"
	"innoscope/report"
)

func logCommand() *cli.Command {
	flags := dirFlags()
	scanFlags := append(append([]cli.Flag{}, flags...),
		&cli.Uint64Flag{Name: "from-lsn", Usage: "start here instead of the checkpoint (below the checkpoint it must be a mini-transaction start, e.g. the first LSN of a fresh log)"},
		&cli.Uint64Flag{Name: "to-lsn", Usage: "stop before the first mini-transaction starting at or after this LSN"})
	return &cli.Command{
		Name:  "log",
		Usage: "read the redo log (ib_logfile0..N, or MySQL 8.0.30+'s #innodb_redo/#ib_redoN)",
		Description: "Reads MariaDB 10.8+ logs, and the older formats of MariaDB 10.0-10.7 and MySQL 5.6-8.x:\n" +
			"the header, the checkpoints, the 512-byte blocks of the older formats and every record.",
		Subcommands: []*cli.Command{
			{Name: "header", Usage: "format, creator, first LSN, both checkpoints and the one recovery uses",
				ArgsUsage: "DIR|FILE", Flags: flags, Action: logHeader},
			{Name: "records", Usage: "every record from the checkpoint to the end of the log",
				ArgsUsage: "DIR|FILE", Action: logRecords,
				Flags: append(append([]cli.Flag{}, scanFlags...),
					&cli.Int64Flag{Name: "space", Value: -1, Usage: "only records for this tablespace id"},
					&cli.Int64Flag{Name: "page", Value: -1, Usage: "only records for this page number"},
					&cli.StringFlag{Name: "type", Usage: "only these record types, comma-separated; globs such as FILE_* work"})},
			{Name: "stats", Usage: "records by type, pages touched, end of log and why the scan stopped",
				ArgsUsage: "DIR|FILE", Flags: scanFlags, Action: logStats},
		},
	}
}

func logHeader(c *cli.Context) error {
	l, err := openRedo(c)
	if err != nil {
		return err
	}
	defer l.Close()
	d, err := l.Describe()
	if err != nil {
		return err
	}
	fs := append(logServerFindings(c), d.Findings...)
	d.Findings = orEmpty(fs)
	out := report.New(c.App.Writer, c.Bool("json"))
	defer out.Flush()
	if out.JSON {
		return writeJSON(c, out, d, fs)
	}
	if d.Blocks != nil {
		err = blockHeaderTable(out, d)
	} else {
		err = headerTable(out, d, fs)
	}
	if err != nil {
		return err
	}
	return finish(c, fs)
}

// headerTable prints `log header` for a log of 4 KiB-aligned checkpoint blocks and a CRC-32C
// header, with the findings fs.
func headerTable(out *report.Output, d *redo.Description, fs []report.Finding) error {
	err := out.Table([]string{"FIELD", "VALUE"}, [][]string{
		{"log file", d.LogFile},
		{"format", fmt.Sprintf("%s (0x%08x)", d.Format, d.FormatID)},
		{"creator", d.Creator},
		{"first LSN", fmt.Sprint(d.FirstLSN)},
		{"file size", fmt.Sprintf("%d bytes (ring capacity %d)", d.FileSize, d.Capacity)},
		{"encrypted", fmt.Sprint(d.Encrypted)},
		{"header CRC-32C", fmt.Sprintf("0x%08x (valid)", d.HeaderCRC)},
	})
	if err != nil {
		return err
	}
	var rows [][]string
	for _, cp := range d.Checkpoints {
		valid, used := out.Paint(report.Good, "valid"), ""
		if !cp.Valid {
			valid = out.Paint(report.Bad, "rejected: "+cp.Reason)
		}
		if cp.Selected {
			used = "recovery starts here"
		}
		rows = append(rows, []string{fmt.Sprint(cp.Offset), fmt.Sprint(cp.LSN), fmt.Sprint(cp.EndLSN), valid, used})
	}
	if err := out.Table([]string{"BLOCK OFFSET", "CHECKPOINT LSN", "END LSN", "VALIDITY", "USED"}, rows); err != nil {
		return err
	}
	if len(fs) > 0 {
		return out.Findings(fs)
	}
	return nil
}

// blockHeaderTable prints `log header` for a log of 512-byte blocks.
func blockHeaderTable(out *report.Output, d *redo.Description) error {
	b := d.Blocks
	rows := [][]string{
		{"log file", d.LogFile}, {"format", fmt.Sprintf("%s (%d)", d.Format, d.FormatID)}, {"creator", d.Creator},
		{"start LSN", fmt.Sprint(d.FirstLSN)}, {"file size", fmt.Sprint(d.FileSize)},
		{"blocks", fmt.Sprintf("%d valid; written data ends at LSN %d (%s: %s)", b.Count, b.EndLSN, b.StopReason, b.StopDetail)},
		{"records", "MLOG records: see log records / log stats (--from-lsn 1 for the whole file)"},
	}
	if d.RingFiles > 0 {
		rows[4] = []string{"files", fmt.Sprintf("%d of %d bytes, %d bytes of log in the ring", d.RingFiles, d.FileSize, d.Capacity)}
		rows[5][1] = fmt.Sprintf("from the checkpoint's block: %d valid; written data ends at LSN %d (%s: %s)", b.Count, b.EndLSN, b.StopReason, b.StopDetail)
		rows[6][1] = "MLOG records: see log records / log stats (--from-lsn LSN to start before the checkpoint)"
	}
	for _, cp := range d.Checkpoints {
		v := "valid"
		if !cp.Valid {
			v = "rejected: " + cp.Reason
		}
		if cp.Selected {
			v += " (recovery starts here)"
		}
		if d.RingFiles > 0 {
			v = fmt.Sprintf("number %d, %s", cp.No, v)
		}
		rows = append(rows, []string{fmt.Sprintf("checkpoint at %d", cp.Offset), fmt.Sprintf("LSN %d, %s", cp.LSN, v)})
	}
	return out.Table([]string{"FIELD", "VALUE"}, rows)
}

// scanOptions are where the command's --from-lsn and --to-lsn start and end a scan.
func scanOptions(c *cli.Context) redo.ScanOptions {
	return redo.ScanOptions{From: c.Uint64("from-lsn"), To: c.Uint64("to-lsn"), Notes: c.App.ErrWriter}
}

// typeFilter matches record type names against comma-separated names or globs; known are the
// names of the log format's record types.
func typeFilter(spec string, known []string) (func(name string) bool, error) {
	if spec == "" {
		return func(string) bool { return true }, nil
	}
	want := map[string]bool{}
	for _, pat := range strings.Split(spec, ",") {
		pat = strings.ToUpper(strings.TrimSpace(pat))
		n := 0
		for _, name := range known {
			if ok, err := path.Match(pat, name); err != nil {
				return nil, fmt.Errorf("--type %q: %v", pat, err)
			} else if ok {
				want[name] = true
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("--type %q matches no record type", pat)
		}
	}
	return func(name string) bool { return want[name] }, nil
}

// The --json shapes of the log commands (names the tests decode them into).
type (
	headerJSON     = redo.Description
	checkpointJSON = redo.CheckpointInfo
	blocksJSON     = redo.BlockWalk
	statsJSON      = redo.Stats
	recordJSON     = redo.Record
)
