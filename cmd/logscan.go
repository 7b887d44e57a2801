package cmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"innoscope/logformat/redo"
	"innoscope/report"
)

func logRecords(c *cli.Context) error {
	l, err := openRedo(c)
	if err != nil {
		return err
	}
	defer l.Close()
	rs, err := l.Records(scanOptions(c))
	if err != nil {
		return err
	}
	match, err := l.TypeFilter(c.String("type"))
	if err != nil {
		return fmt.Errorf("--type %w", err)
	}
	rp, err := newRecordPrinter(c, l.TypeWidth())
	if err != nil {
		return err
	}
	defer rp.out.Flush()
	ls, err := rs.Each(redo.Filter{Type: match, Space: c.Int64("space"), Page: c.Int64("page")}, rp.row)
	if err != nil {
		return err
	}
	if err := rp.end(c, ls.End.String()); err != nil {
		return err
	}
	if ls.Quiet {
		if len(ls.Findings) == 0 {
			return nil
		}
		return finish(c, ls.Findings)
	}
	return rp.findings(c, ls.Findings)
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
		[]int{12, 4, typeWidth, 12, 10, 6, 75 - typeWidth})
	return rp, err
}

// row prints one record ("-" for a space or page it does not name).
func (rp *recordPrinter) row(r *redo.Record) error {
	if rp.out.JSON {
		return rp.out.WriteJSONLine(r)
	}
	space, page := fmt.Sprint(r.Space), fmt.Sprint(r.Page)
	if !r.HasSpace {
		space = "-"
	}
	if !r.HasPage {
		page = "-"
	}
	return rp.table.Row(fmt.Sprint(r.MTRLSN), fmt.Sprint(r.Index), r.Type, space, page, fmt.Sprint(r.Len), r.Summary)
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

func logStats(c *cli.Context) error {
	l, err := openRedo(c)
	if err != nil {
		return err
	}
	defer l.Close()
	j, err := l.Stats(scanOptions(c))
	if err != nil {
		return err
	}
	fs := append(logServerFindings(c), j.Findings...)
	j.Findings = orEmpty(fs)
	out := report.New(c.App.Writer, c.Bool("json"))
	defer out.Flush()
	if out.JSON {
		return writeJSON(c, out, j, fs)
	}
	if err := out.Table([]string{"FIELD", "VALUE"}, j.Fields()); err != nil {
		return err
	}
	if err := out.Table([]string{"RECORD TYPE", "COUNT"}, j.TypeRows()); err != nil {
		return err
	}
	if len(fs) > 0 {
		if err := out.Findings(fs); err != nil {
			return err
		}
	}
	return finish(c, fs)
}
