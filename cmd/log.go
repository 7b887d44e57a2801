package cmd

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"innoscope/logformat"
	"innoscope/logformat/logcheck"
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

// headerJSON is the --json form of `log header`.
type headerJSON struct {
	LogFile        string           `json:"log_file"`
	Format         string           `json:"format"`
	FormatID       uint32           `json:"format_id"`
	Vendor         string           `json:"vendor"`
	Creator        string           `json:"creator"`
	FirstLSN       uint64           `json:"first_lsn"`
	FileSize       int64            `json:"file_size"`
	Capacity       uint64           `json:"capacity"`
	Encrypted      bool             `json:"encrypted"`
	HeaderCRC      uint32           `json:"header_crc"`
	Checkpoints    []checkpointJSON `json:"checkpoints"`
	CheckpointLSN  *uint64          `json:"checkpoint_lsn"`
	Findings       []report.Finding `json:"findings"`
	HeaderCRCValid bool             `json:"header_crc_valid"`
	// Blocks: for the 512-byte block formats (MySQL, MariaDB before 10.8), the walk of the blocks.
	Blocks *blocksJSON `json:"blocks,omitempty"`
}

type blocksJSON struct {
	Count      int    `json:"count"`
	EndLSN     uint64 `json:"end_lsn"`
	StopReason string `json:"stop_reason"`
	StopDetail string `json:"stop_detail"`
	StopOffset int64  `json:"stop_offset"`
}

type checkpointJSON struct {
	Offset   int64  `json:"offset"`
	LSN      uint64 `json:"lsn"`
	EndLSN   uint64 `json:"end_lsn"`
	Valid    bool   `json:"valid"`
	Reason   string `json:"reason"`
	Selected bool   `json:"selected"`
	No       uint64 `json:"number,omitempty"` // checkpoint number (ib_logfileN rings)
}

func logHeader(c *cli.Context) error {
	r, err := openRedo(c)
	if err != nil {
		return err
	}
	defer r.Close()
	if bl := r.Blocks(); bl != nil {
		return blockLogHeader(c, bl)
	}
	l := asOpened(r)
	h := l.Header
	fs := logcheck.Checkpoints(l.Path, l.Checkpoints, l.Selected)
	fs = append(logServerFindings(c), fs...)
	out := report.New(c.App.Writer, c.Bool("json"))
	defer out.Flush()
	if out.JSON {
		j := headerJSON{LogFile: l.Path, Format: h.FormatName, FormatID: h.Format, Vendor: h.Vendor,
			Creator: h.Creator, FirstLSN: h.FirstLSN, FileSize: l.Size, Capacity: l.Capacity(),
			Encrypted: h.Encrypted, HeaderCRC: h.CRC, HeaderCRCValid: h.CRCValid, Findings: fs}
		for i, cp := range l.Checkpoints {
			j.Checkpoints = append(j.Checkpoints, checkpointJSON{cp.Offset, cp.LSN, cp.EndLSN, cp.Valid, cp.Reason, i == l.Selected, cp.No})
		}
		if cp, ok := l.Checkpoint(); ok {
			j.CheckpointLSN = &cp.LSN
		}
		if j.Findings == nil {
			j.Findings = []report.Finding{}
		}
		if err := out.WriteJSON(j); err != nil {
			return err
		}
		return finish(c, fs)
	}
	err = out.Table([]string{"FIELD", "VALUE"}, [][]string{
		{"log file", l.Path},
		{"format", fmt.Sprintf("%s (0x%08x)", h.FormatName, h.Format)},
		{"creator", h.Creator},
		{"first LSN", fmt.Sprint(h.FirstLSN)},
		{"file size", fmt.Sprintf("%d bytes (ring capacity %d)", l.Size, l.Capacity())},
		{"encrypted", fmt.Sprint(h.Encrypted)},
		{"header CRC-32C", fmt.Sprintf("0x%08x (valid)", h.CRC)},
	})
	if err != nil {
		return err
	}
	var rows [][]string
	for i, cp := range l.Checkpoints {
		valid, used := out.Paint(report.Good, "valid"), ""
		if !cp.Valid {
			valid = out.Paint(report.Bad, "rejected: "+cp.Reason)
		}
		if i == l.Selected {
			used = "recovery starts here"
		}
		rows = append(rows, []string{fmt.Sprint(cp.Offset), fmt.Sprint(cp.LSN), fmt.Sprint(cp.EndLSN), valid, used})
	}
	if err := out.Table([]string{"BLOCK OFFSET", "CHECKPOINT LSN", "END LSN", "VALIDITY", "USED"}, rows); err != nil {
		return err
	}
	if len(fs) > 0 {
		if err := out.Findings(fs); err != nil {
			return err
		}
	}
	return finish(c, fs)
}

// startScan starts a scan of the MariaDB 10.8+ log r at the checkpoint or at --from-lsn.
func startScan(c *cli.Context, r *redo.Log) (*openedLog, *logformat.Scanner, uint64, error) {
	l := asOpened(r)
	cp, ok := l.Checkpoint()
	from := c.Uint64("from-lsn")
	if !ok && from == 0 {
		return nil, nil, 0, fmt.Errorf("%s: no valid checkpoint block, so no known place to start; give --from-lsn", l.Path)
	}
	start := cp.LSN
	if from != 0 && (from < cp.LSN || !ok) {
		start = from
	}
	sc := l.Scan(start, logformat.ScanOptions{PageSize: l.PageSize, ToLSN: c.Uint64("to-lsn")})
	return l, sc, cp.LSN, nil
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

// typeNames are the names of the MariaDB 10.8+ record types.
func typeNames() []string {
	var out []string
	for _, t := range logformat.Types {
		out = append(out, t.String())
	}
	return out
}

// sortedTypeCounts lists counts by type name in record-type order.
func sortedTypeCounts(m map[logformat.Type]int) map[string]int {
	out := make(map[string]int, len(m))
	keys := make([]logformat.Type, 0, len(m))
	for t := range m {
		keys = append(keys, t)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, t := range keys {
		out[t.String()] = m[t]
	}
	return out
}
