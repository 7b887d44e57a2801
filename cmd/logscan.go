package cmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"innoscope/logformat"
	"innoscope/logformat/logcheck"
	"innoscope/report"
)

// sizeOfFileCheckpoint is the length of the FILE_CHECKPOINT mini-transaction: a clean log
// (nothing to recover) ends exactly this far past its checkpoint LSN.
const sizeOfFileCheckpoint = 16

// recordJSON is one line of `log records --json`.
type recordJSON struct {
	MTRLSN        uint64  `json:"mtr_lsn"`
	MTREndLSN     uint64  `json:"mtr_end_lsn"`
	Index         int     `json:"index"`
	Type          string  `json:"type"`
	Space         uint32  `json:"space"`
	Page          uint32  `json:"page"`
	SamePage      bool    `json:"same_page"`
	Len           int     `json:"len"`
	Subtype       string  `json:"subtype,omitempty"`
	Offset        *uint32 `json:"offset,omitempty"`
	Length        *uint32 `json:"length,omitempty"`
	Name          string  `json:"name,omitempty"`
	NewName       string  `json:"new_name,omitempty"`
	CheckpointLSN uint64  `json:"checkpoint_lsn,omitempty"`
	Summary       string  `json:"summary"`
	Malformed     string  `json:"malformed,omitempty"`
}

func toRecordJSON(m *logformat.MTR, i int) recordJSON {
	r := &m.Records[i]
	j := recordJSON{MTRLSN: m.LSN, MTREndLSN: m.EndLSN, Index: i, Type: r.Type.String(), Space: r.Space,
		Page: r.Page, SamePage: r.SamePage, Len: r.Len, Name: r.Name(), NewName: r.NewName(),
		CheckpointLSN: r.CheckpointLSN, Summary: r.Summary(), Malformed: r.Malformed}
	switch r.Type {
	case logformat.Extended:
		j.Subtype = r.ExtSub().String()
	case logformat.Option:
		j.Subtype = fmt.Sprint(r.Sub)
	case logformat.Write, logformat.Memset, logformat.Memmove:
		off, n := r.Offset, r.Length
		j.Offset, j.Length = &off, &n
	}
	return j
}

func logRecords(c *cli.Context) error {
	r, err := openRedo(c)
	if err != nil {
		return err
	}
	defer r.Close()
	if bl := r.Blocks(); bl != nil {
		return blockLogRecords(c, bl)
	}
	l, sc, cpLSN, err := startScan(c, r)
	if err != nil {
		return err
	}
	match, err := typeFilter(c.String("type"), typeNames())
	if err != nil {
		return err
	}
	space, page := c.Int64("space"), c.Int64("page")
	from := c.Uint64("from-lsn")
	rp, err := newRecordPrinter(c, 17)
	if err != nil {
		return err
	}
	defer rp.out.Flush()
	prog := report.NewProgress("scanning redo log", int64(l.Capacity()))
	start := sc.LSN()
	var fcpEnd uint64
	for sc.Next() {
		m := sc.MTR()
		prog.Set(int64(m.EndLSN - start))
		fcpEnd = fileCheckpointEnd(m, cpLSN, fcpEnd)
		if m.LSN < from {
			continue
		}
		if err := rp.mtrRows(m, match, space, page); err != nil {
			return err
		}
	}
	prog.Done()
	if err := sc.Err(); err != nil {
		return err
	}
	reason, detail, off := sc.Stop()
	if err := rp.end(c, fmt.Sprintf("end of log at LSN %d: %s (%s) at file offset %d", sc.LSN(), reason, detail, off)); err != nil {
		return err
	}
	return rp.findings(c, logcheck.Scan(l.Path, nil, sc, sc.LSN(), logcheck.FileCheckpoint(l.Log, l.Path, l.PageSize), cpLSN, 0, 0))
}

// fileCheckpointEnd is the end LSN of m when it holds the FILE_CHECKPOINT for cpLSN and none
// was seen before (found != 0), else found.
func fileCheckpointEnd(m *logformat.MTR, cpLSN, found uint64) uint64 {
	if found != 0 {
		return found
	}
	for i := range m.Records {
		if r := &m.Records[i]; r.Type == logformat.FileCheckpoint && r.CheckpointLSN == cpLSN {
			return m.EndLSN
		}
	}
	return 0
}

// findings closes a listing of records with what the scan says about recovery (a corrupt
// record, a missing FILE_CHECKPOINT: the server refuses such a log): a findings table after the
// records, or one line each on stderr for JSON Lines; then the exit status.
func (rp *recordPrinter) findings(c *cli.Context, fs []report.Finding) error {
	if err := printFindings(c, rp.out, fs); err != nil {
		return err
	}
	return finish(c, fs)
}

// printFindings prints findings after a listing whose --json form has no place for them: a
// table, or one line each on stderr.
func printFindings(c *cli.Context, out *report.Output, fs []report.Finding) error {
	if len(fs) == 0 {
		return nil
	}
	if !out.JSON {
		return out.Findings(fs)
	}
	for _, f := range fs {
		fmt.Fprintf(c.App.ErrWriter, "innoscope: %s %s: %s: %s\n", f.Severity, f.Code, f.File, f.Message)
	}
	return nil
}

// recordPrinter prints `log records`: JSON Lines, or a table streamed row by row.
type recordPrinter struct {
	out   *report.Output
	table *report.Stream
}

func newRecordPrinter(c *cli.Context, typeWidth int) (*recordPrinter, error) {
	rp := &recordPrinter{out: report.New(c.App.Writer, c.Bool("json"))}
	if rp.out.JSON {
		return rp, nil
	}
	var err error
	rp.table, err = rp.out.Stream([]string{"MTR LSN", "#", "TYPE", "SPACE", "PAGE", "LEN", "PAYLOAD"},
		[]int{12, 4, typeWidth, 10, 10, 6, 77 - typeWidth})
	return rp, err
}

// mtrRows prints the records of m that match the type filter and the space and page (-1: any).
func (rp *recordPrinter) mtrRows(m *logformat.MTR, match func(string) bool, space, page int64) error {
	for i := range m.Records {
		r := &m.Records[i]
		if !match(r.Type.String()) || (space >= 0 && int64(r.Space) != space) || (page >= 0 && int64(r.Page) != page) {
			continue
		}
		p := fmt.Sprint(r.Page)
		if r.Type.IsFile() || r.Type == logformat.Padding {
			p = "-"
		}
		if err := rp.row(toRecordJSON(m, i), fmt.Sprint(r.Space), p); err != nil {
			return err
		}
	}
	return nil
}

// row prints one record; space and page are as the table shows them ("-" where none).
func (rp *recordPrinter) row(j recordJSON, space, page string) error {
	if rp.out.JSON {
		return rp.out.WriteJSONLine(j)
	}
	return rp.table.Row(fmt.Sprint(j.MTRLSN), fmt.Sprint(j.Index), j.Type, space, page, fmt.Sprint(j.Len), j.Summary)
}

// end closes the listing with the line that says where and why the scan ended: after the
// table, or on stderr for JSON Lines (which carry records only).
func (rp *recordPrinter) end(c *cli.Context, line string) error {
	if rp.out.JSON {
		fmt.Fprintln(c.App.ErrWriter, "innoscope: "+line)
		return nil
	}
	if err := rp.table.Close(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(rp.out.Writer(), line)
	return err
}

// statsJSON is the --json form of `log stats`.
type statsJSON struct {
	LogFile              string           `json:"log_file"`
	Format               string           `json:"format"`
	PageSize             int              `json:"page_size"`
	PageSizeSource       string           `json:"page_size_source"`
	CheckpointLSN        uint64           `json:"checkpoint_lsn"`
	StartLSN             uint64           `json:"start_lsn"`
	EndLSN               uint64           `json:"end_lsn"`
	StopReason           string           `json:"stop_reason"`
	StopDetail           string           `json:"stop_detail"`
	StopOffset           int64            `json:"stop_offset"`
	Bytes                uint64           `json:"bytes"`
	MTRCount             int              `json:"mtr_count"`
	RecordCount          int              `json:"record_count"`
	RecordsByType        map[string]int   `json:"records_by_type"`
	PageRecords          int              `json:"page_records"`
	PagesTouched         int              `json:"pages_touched"`
	FileCheckpointEndLSN *uint64          `json:"file_checkpoint_end_lsn"`
	MalformedRecords     int              `json:"malformed_records"`
	CrashRecovery        bool             `json:"crash_recovery"`
	Findings             []report.Finding `json:"findings"`
}

// statsFindings is what a whole scan from the checkpoint says about recovery.
func statsFindings(l *openedLog, sc *logformat.Scanner, st *logformat.Stats, cpLSN uint64, pageRecs int) []report.Finding {
	return logcheck.Scan(l.Path, logcheck.Checkpoints(l.Path, l.Checkpoints, l.Selected), sc, st.EndLSN, logcheck.FileCheckpoint(l.Log, l.Path, l.PageSize), cpLSN, pageRecs, st.PagesTouched)
}

func logStats(c *cli.Context) error {
	r, err := openRedo(c)
	if err != nil {
		return err
	}
	defer r.Close()
	if bl := r.Blocks(); bl != nil {
		return blockLogStats(c, bl)
	}
	l, sc, cpLSN, err := startScan(c, r)
	if err != nil {
		return err
	}
	st, err := logformat.Summarize(sc, cpLSN)
	if err != nil {
		return err
	}
	pageRecs := st.PageRecords()
	fs := statsFindings(l, sc, &st, cpLSN, pageRecs)
	fs = append(logServerFindings(c), fs...)
	j := statsJSON{LogFile: l.Path, Format: l.Header.FormatName, PageSize: l.PageSize, PageSizeSource: l.PageSizeSource,
		CheckpointLSN: cpLSN, StartLSN: st.StartLSN, EndLSN: st.EndLSN, StopReason: string(st.Stop),
		StopDetail: st.StopDetail, StopOffset: st.StopOffset, Bytes: st.EndLSN - st.StartLSN, MTRCount: st.MTRs,
		RecordCount: st.Records, RecordsByType: sortedTypeCounts(st.ByType), PageRecords: pageRecs,
		PagesTouched: st.PagesTouched, MalformedRecords: st.Malformed,
		CrashRecovery: st.EndLSN != cpLSN+sizeOfFileCheckpoint, Findings: fs}
	if st.FileCheckpointEnd != 0 {
		j.FileCheckpointEndLSN = &st.FileCheckpointEnd
	}
	j.Findings = orEmpty(j.Findings)
	out := report.New(c.App.Writer, c.Bool("json"))
	defer out.Flush()
	if out.JSON {
		return writeJSON(c, out, j, fs)
	}
	rows := [][]string{
		{"log file", j.LogFile},
		{"checkpoint LSN", fmt.Sprint(j.CheckpointLSN)},
		{"end of log LSN", fmt.Sprint(j.EndLSN)},
		{"scan stopped", fmt.Sprintf("%s: %s (file offset %d)", j.StopReason, j.StopDetail, j.StopOffset)},
		{"bytes scanned", fmt.Sprint(j.Bytes)},
		{"mini-transactions", fmt.Sprint(j.MTRCount)},
		{"records", fmt.Sprint(j.RecordCount)},
		{"pages touched", fmt.Sprint(j.PagesTouched)},
		{"crash recovery needed", fmt.Sprint(j.CrashRecovery)},
		{"page size", fmt.Sprintf("%d (%s)", j.PageSize, j.PageSizeSource)},
	}
	return printStats(c, out, rows, typeNames(), j.RecordsByType, fs)
}

// printStats prints a `log stats` table: the summary rows, the record counts by type in the
// format's type order (names), and the findings; then it sets the exit status.
func printStats(c *cli.Context, out *report.Output, rows [][]string, names []string, byType map[string]int, fs []report.Finding) error {
	if err := out.Table([]string{"FIELD", "VALUE"}, rows); err != nil {
		return err
	}
	var trows [][]string
	for _, name := range names {
		if n := byType[name]; n > 0 {
			trows = append(trows, []string{name, fmt.Sprint(n)})
		}
	}
	if err := out.Table([]string{"RECORD TYPE", "COUNT"}, trows); err != nil {
		return err
	}
	if len(fs) > 0 {
		if err := out.Findings(fs); err != nil {
			return err
		}
	}
	return finish(c, fs)
}
