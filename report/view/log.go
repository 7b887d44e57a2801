package view

import (
	"fmt"
	"io"

	"innoscope/finding"
	"innoscope/logformat/redo"
	"innoscope/report"
)

// LogHeader prints `log header`: the header's fields, the checkpoints of a log that has
// checkpoint blocks, then the findings.
func LogHeader(out *report.Output, d *redo.Description, fs []finding.Finding) error {
	d.Findings = orEmpty(fs)
	if out.JSON {
		return out.WriteJSON(d)
	}
	if err := out.Table([]string{"FIELD", "VALUE"}, d.Fields()); err != nil {
		return err
	}
	paint := func(good bool, v string) string {
		if good {
			return out.Paint(report.Good, v)
		}
		return out.Paint(report.Bad, v)
	}
	if rows := d.CheckpointRows(paint); rows != nil {
		if err := out.Table(redo.CheckpointHeader, rows); err != nil {
			return err
		}
	}
	return findings(out, fs)
}

// LogStats prints `log stats`: the scan's fields, the record types and the findings.
func LogStats(out *report.Output, j *redo.Stats, fs []finding.Finding) error {
	j.Findings = orEmpty(fs)
	if out.JSON {
		return out.WriteJSON(j)
	}
	if err := out.Table([]string{"FIELD", "VALUE"}, j.Fields()); err != nil {
		return err
	}
	if err := out.Table([]string{"RECORD TYPE", "COUNT"}, j.TypeRows()); err != nil {
		return err
	}
	return findings(out, fs)
}

// Records prints `log records`: JSON Lines, or a table streamed row by row. Row prints each
// record; End closes the listing.
type Records struct {
	out       *report.Output
	stderr    io.Writer
	table     *report.Stream
	typeWidth int
}

// NewRecords starts a listing of records whose type names are at most typeWidth wide; for JSON
// Lines, what is not a record goes to stderr.
func NewRecords(out *report.Output, stderr io.Writer, typeWidth int) (*Records, error) {
	return &Records{out: out, stderr: stderr, typeWidth: typeWidth}, nil
}

// start prints the table's head, at the first record or the end: a scan that cannot start
// prints only its error.
func (rp *Records) start() error {
	if rp.table != nil {
		return nil
	}
	var err error
	rp.table, err = rp.out.Stream([]string{"MTR LSN", "#", "TYPE", "SPACE", "PAGE", "LEN", "PAYLOAD"},
		[]int{12, 4, rp.typeWidth, 12, 10, 6, 75 - rp.typeWidth})
	return err
}

// Row prints one record ("-" for a space or page it does not name).
func (rp *Records) Row(r *redo.Record) error {
	if rp.out.JSON {
		return rp.out.WriteJSONLine(r)
	}
	if err := rp.start(); err != nil {
		return err
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

// End closes the listing with the line that says where and why the scan ended, then what the
// scan says about recovery (a corrupt record, a missing FILE_CHECKPOINT): after the table, or on
// stderr for JSON Lines (which carry records only).
func (rp *Records) End(ls *redo.Listing) error {
	line := ls.End.String()
	if rp.out.JSON {
		fmt.Fprintln(rp.stderr, "innoscope: "+line)
	} else {
		if err := rp.start(); err != nil {
			return err
		}
		if err := rp.table.Close(); err != nil {
			return err
		}
		if _, err := fmt.Fprintln(rp.out.Writer(), line); err != nil {
			return err
		}
	}
	if ls.Quiet {
		return nil
	}
	return Trailing(rp.out, rp.stderr, ls.Findings)
}

// Trailing prints findings after a listing whose JSON form has no place for them: a table, or
// one line each on stderr.
func Trailing(out *report.Output, stderr io.Writer, fs []finding.Finding) error {
	if !out.JSON {
		return findings(out, fs)
	}
	for _, f := range fs {
		fmt.Fprintf(stderr, "innoscope: %s %s: %s: %s\n", f.Severity, f.Code, f.File, f.Message)
	}
	return nil
}

// findings prints a findings table, or nothing when there are none.
func findings(out *report.Output, fs []finding.Finding) error {
	if len(fs) == 0 {
		return nil
	}
	return out.Findings(fs)
}

// orEmpty makes a nil findings list print as [] rather than null.
func orEmpty(fs []finding.Finding) []finding.Finding {
	if fs == nil {
		return []finding.Finding{}
	}
	return fs
}
