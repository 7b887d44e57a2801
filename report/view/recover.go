package view

import (
	"fmt"
	"io"
	"strings"

	"innoscope/analysis"
	"innoscope/changes"
	"innoscope/finding"
	"innoscope/replay"
	"innoscope/report"
)

// Recovery is the --json form of `recover`, and what its table form prints.
type Recovery struct {
	Source string                `json:"source"`
	Into   string                `json:"into,omitempty"`
	DryRun bool                  `json:"dry_run"`
	Copy   *replay.CopyStats     `json:"copy,omitempty"`
	Result *replay.RecoverResult `json:"result,omitempty"`
	Plan   *replay.Plan          `json:"plan,omitempty"`
	// Seconds is the wall time of each phase (replay.Outcome).
	Seconds map[string]float64 `json:"seconds,omitempty"`
	// Relinked are .isl files of the copy that name another file than the source's (see
	// analysis.ISLRedirect).
	Relinked []analysis.ISLRedirect `json:"isl_redirects,omitempty"`
	// Salvage is what --salvage repaired or declared lost; Findings one per action.
	Salvage  []replay.SalvageAction `json:"salvage,omitempty"`
	Findings []finding.Finding      `json:"findings,omitempty"`
	// Ledger is what the salvage's cut of the log loses, in rows (absent: it cuts no log).
	Ledger *changes.Ledger `json:"ledger,omitempty"`

	// Verdict is the dry run's: the diagnosis's verdict, as diagnose prints it (nil: without a
	// diagnosis, a salvage's dry run, which says the pages with records). The diagnosis's
	// findings are then Findings.
	Verdict *finding.Verdict `json:"verdict,omitempty"`
	// OnCopy is a finished copy's diagnosis: what the server will meet when started on it
	// (nil: not diagnosed).
	OnCopy *replay.CopyDiagnosis `json:"copy_diagnosis,omitempty"`
	// StartCommand starts mariadbd on the finished copy, as the table output's last line says
	// (absent for a dry run).
	StartCommand string `json:"start_command,omitempty"`

	salvage   *replay.SalvagePlan
	outcome   *replay.Outcome
	diagnosed bool // Findings are the dry run's diagnosis's
}

// Diagnosed gives the dry run the diagnosis's verdict and findings.
func (j *Recovery) Diagnosed(v finding.Verdict, fs []finding.Finding) {
	j.Verdict, j.Findings, j.diagnosed = &v, fs, true
}

// AllFindings are the findings the exit status is judged by (--fail-on): the salvage's or the
// dry run's diagnosis's, and those of the copy's diagnosis.
func (j *Recovery) AllFindings() []finding.Finding {
	fs := append([]finding.Finding(nil), j.Findings...)
	if j.OnCopy != nil {
		fs = append(fs, j.OnCopy.Findings...)
	}
	return fs
}

// NewRecovery is what `recover` of p into into reports before it runs: the salvage's actions
// (its notes are said at once on stderr), and for a dry run the plan.
func NewRecovery(p *replay.Source, into string, dryRun bool, stderr io.Writer) *Recovery {
	j := &Recovery{Source: p.Layout.Datadir, Into: into, DryRun: dryRun, salvage: p.Salvage}
	if p.Salvage != nil {
		j.Salvage, j.Findings = p.Salvage.Actions, p.Salvage.Findings()
		for _, n := range p.Salvage.Notes {
			fmt.Fprintf(stderr, "innoscope: note: %s\n", n)
		}
	}
	if dryRun {
		j.Plan = p.Plan()
	}
	return j
}

// Ran adds what the recovery did, and the server command line that starts on the copy.
func (j *Recovery) Ran(p *replay.Source, o *replay.Outcome) {
	j.Copy, j.Result, j.Seconds, j.Relinked, j.outcome = &o.Copy, o.Result, o.Seconds, p.Redirects, o
	j.StartCommand = replay.ServerCommand(j.Into, p.Layout, p.Log.PageSize)
}

// Print prints the plan (a dry run) or the recovery; notes go to stderr as "innoscope: note:"
// lines.
func (j *Recovery) Print(out *report.Output, stderr io.Writer) error {
	if out.JSON {
		return out.WriteJSON(j)
	}
	if j.DryRun {
		if err := printPlan(out, j.Plan, j.Verdict); err != nil {
			return err
		}
		if j.diagnosed {
			if err := findings(out, j.Findings); err != nil {
				return err
			}
		}
		return j.printSalvage(out)
	}
	for _, r := range j.Relinked {
		fmt.Fprintf(stderr, "innoscope: note: %s\n", r)
	}
	for _, r := range j.Result.RolledBackDDL {
		fmt.Fprintf(stderr, "innoscope: note: %s\n", r)
	}
	for _, l := range j.Result.Links {
		fmt.Fprintf(stderr, "innoscope: note: %s\n", l)
	}
	if err := out.Table([]string{"FIELD", "VALUE"}, j.outcome.Fields(j.Into)); err != nil {
		return err
	}
	if err := out.Table([]string{"SPACE", "FILE", "PAGES WRITTEN", "FILE OPERATIONS"}, j.Result.SpaceRows()); err != nil {
		return err
	}
	if err := j.printSalvage(out); err != nil { // what was lost, before the copy is called usable
		return err
	}
	fmt.Fprintf(out.Writer(), "recovered: the copy has nothing left to recover (log reset at LSN %d)\n", j.Result.EndLSN)
	if err := j.printOnCopy(out); err != nil {
		return err
	}
	// The replay checks the pages it reads; the rest are copied byte for byte, as the server's
	// own recovery leaves them: the copy's diagnosis checks them, unless --skip-pages.
	switch {
	case j.salvage.NewLog():
		fmt.Fprintln(out.Writer(), "checked: every page of the copy (the diagnosis of the copy above); nothing was replayed")
	case j.OnCopy != nil && j.OnCopy.AllPages:
		fmt.Fprintln(out.Writer(), "checked: every page of the copy (the diagnosis of the copy above)")
	default:
		fmt.Fprintf(out.Writer(), "not checked: pages the log does not change, copied as they are (`innoscope verify %s` checks every page)\n", j.Source)
	}
	fmt.Fprintln(out.Writer(), "start the server on the copy:")
	out.Unwrapped("  " + j.StartCommand)
	return nil
}

// printPlan is `recover --dry-run`: the verdict (v, else one of the pages with records), the
// pages per space and the file operations.
func printPlan(out *report.Output, pl *replay.Plan, v *finding.Verdict) error {
	pages := 0
	for _, n := range pl.PagesBySpace {
		pages += n
	}
	if v != nil {
		out.Verdict(*v)
	} else {
		out.Verdict(finding.MakeVerdict(nil, finding.Outcome{Pages: pages}))
	}
	// Pages with records, not the verdict's count (the server's "To recover", which leaves out
	// pages whose records a later FREE_PAGE or deleted file drops, and those it reads at start).
	fmt.Fprintf(out.Writer(), "dry run: checkpoint LSN %d, end of log %d, %d page records on %d pages with records\n", pl.CheckpointLSN, pl.EndLSN, pl.PageRecords, pages)
	if err := out.Table([]string{"SPACE", "FILE", "PAGES WITH RECORDS"}, pl.SpaceRows()); err != nil {
		return err
	}
	return out.Table([]string{"LSN", "FILE OPERATION", "SPACE", "NAME"}, pl.EventRows())
}

// printOnCopy prints the copy's diagnosis: its verdict, its findings and the tables the server
// will not open.
func (j *Recovery) printOnCopy(out *report.Output) error {
	if j.OnCopy == nil {
		return nil
	}
	v := j.OnCopy.Verdict
	v.Sentence = "on the copy, " + v.Sentence
	out.Verdict(v)
	if err := findings(out, j.OnCopy.Findings); err != nil {
		return err
	}
	if len(j.OnCopy.FailingTables) == 0 {
		return nil
	}
	var names []string
	for _, t := range j.OnCopy.FailingTables {
		n := t.Table
		if t.Partition != "" {
			n += " partition " + t.Partition
		}
		names = append(names, n+" ("+t.Code+")")
	}
	_, err := fmt.Fprintf(out.Writer(), "tables that will fail on the copy: %s\n", strings.Join(names, ", "))
	return err
}

// printSalvage prints the salvage's actions as a table.
func (j *Recovery) printSalvage(out *report.Output) error {
	if j.salvage == nil || len(j.salvage.Actions) == 0 {
		return nil
	}
	fmt.Fprintln(out.Writer(), "salvage:")
	if err := out.Table([]string{"ACTION", "SPACE", "FILE", "MOVED TO", "LSN", "PAGES", "RECORDS", "DETAIL"}, j.salvage.Rows()); err != nil {
		return err
	}
	printLedger(out, j.Ledger)
	return nil
}
