package view

import (
	"fmt"
	"strings"

	"innoscope/analysis"
	"innoscope/changes"
	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/replay"
	"innoscope/report"
)

// DiagnosisJSON is the --json form of `diagnose` (schemas/diagnose.schema.json).
type DiagnosisJSON struct {
	Datadir string `json:"datadir"`
	// Verdict is the sentence the table output starts with, its severity and the most severe
	// finding's code.
	Verdict       finding.Verdict `json:"verdict"`
	CheckpointLSN uint64          `json:"checkpoint_lsn"`
	EndLSN        uint64          `json:"end_lsn"`
	// ToRecoverPages is the count the verdict states: what the server prints as "InnoDB: To
	// recover: N pages" (analysis.Diagnosis.ToRecover); PagesWithRecords is every distinct page
	// a record after the checkpoint names, those the server drops before applying included.
	ToRecoverPages   int               `json:"to_recover_pages"`
	PagesWithRecords int               `json:"pages_with_records"`
	Findings         []finding.Finding `json:"findings"`
	Summary          map[string]int    `json:"summary"`
	// Dictionary: SYS_TABLES as on disk (changes still in the log are not in it).
	Dictionary []analysis.DictEntry `json:"dictionary"`
	// Rollback is what crash recovery will roll back (absent when the undo logs were not read).
	Rollback *discovery.RollbackForecast `json:"rollback,omitempty"`
	// Servers: which MariaDB versions recover the directory's log (analysis.Diagnosis.Servers).
	Servers []analysis.ServerSupport `json:"servers,omitempty"`
	// Ledger is what the cut of the log a finding names loses, in rows (absent: no such finding).
	Ledger *changes.Ledger `json:"ledger,omitempty"`
}

// Diagnosis prints `diagnose`: the verdict, the findings by severity, the loss ledger when a
// finding cuts the log (nil: none) and a closing count.
func Diagnosis(out *report.Output, d *analysis.Diagnosis, ledger *changes.Ledger) error {
	fs, sum := d.Findings, d.Summary
	if out.JSON {
		dict := analysis.Dictionary(d.Input)
		if dict == nil {
			dict = []analysis.DictEntry{}
		}
		return out.WriteJSON(DiagnosisJSON{Datadir: d.Layout.Datadir, Verdict: finding.MakeVerdict(fs, d.Outcome()), CheckpointLSN: d.CheckpointLSN, EndLSN: d.Analysis.Map.EndLSN,
			Findings: orEmpty(fs), Summary: sum, Dictionary: dict, Rollback: d.RollbackForecast(),
			ToRecoverPages: d.ToRecover(), PagesWithRecords: len(d.Analysis.Pages), Servers: d.Servers(), Ledger: ledger})
	}
	out.Verdict(finding.MakeVerdict(fs, d.Outcome()))
	if err := findings(out, fs); err != nil {
		return err
	}
	printLedger(out, ledger)
	where := fmt.Sprintf("checkpoint LSN %d, end of log %d", d.CheckpointLSN, d.Analysis.Map.EndLSN)
	if d.Input.Analysis == nil {
		where = "no usable redo log"
	}
	if _, err := fmt.Fprintf(out.Writer(), "%s: %s, %s, %d info (%s)\n", d.Layout.Datadir,
		count(sum["error"], "error", "errors"), count(sum["warning"], "warning", "warnings"), sum["info"], where); err != nil {
		return err
	}
	if ss := d.Servers(); ss != nil {
		_, err := fmt.Fprintln(out.Writer(), analysis.ServersLine(ss))
		return err
	}
	return nil
}

// Verification prints `verify`: the verdict, the findings and one line saying OK or FAILED
// with what was replayed and checked.
func Verification(out *report.Output, j *replay.Verification) error {
	if out.JSON {
		j.Findings = orEmpty(j.Findings)
		return out.WriteJSON(j)
	}
	o := j.Outcome
	o.After = "the replayed copy verified (" + finding.Thousands(j.PagesVerified) + " pages)"
	out.Verdict(finding.MakeVerdict(j.Findings, o))
	if err := findings(out, j.Findings); err != nil {
		return err
	}
	verdict := out.Paint(report.Good, "OK")
	if !j.OK {
		verdict = out.Paint(report.Bad, "FAILED")
	}
	if j.FailOn != "" && j.FailOn != "error" { // judged by another threshold than the default
		verdict += " (--fail-on " + j.FailOn + ")"
	}
	if j.Replay != "done" { // nothing was replayed, or not all of it: no range, no counts
		_, err := fmt.Fprintf(out.Writer(), "%s: %s: the replay %s: %s\n", j.Datadir, verdict, map[string]string{
			"refused": "was refused (nothing was copied)", "failed": "failed"}[j.Replay], firstLine(j.ReplayError))
		return err
	}
	_, err := fmt.Fprintf(out.Writer(), "%s: %s: replayed %d..%d, %d pages changed by the replay, %d pages of the copy verified\n",
		j.Datadir, verdict, j.CheckpointLSN, j.EndLSN, j.PagesApplied, j.PagesVerified)
	if err == nil && j.StartCommand != "" {
		fmt.Fprintln(out.Writer(), "start the server on the kept copy:")
		out.Unwrapped("  " + j.StartCommand)
	}
	return err
}

// firstLine is the first line of a message (a refusal lists its causes one a line; the
// REPLAY_FAILED finding has them all).
func firstLine(s string) string {
	first, _, more := strings.Cut(s, "\n")
	if more && !strings.HasPrefix(s[len(first)+1:], "(") {
		first += " (and more: see REPLAY_FAILED)"
	}
	return first
}

// ReportWritten prints `report`: the verdict and where the HTML file went.
func ReportWritten(out *report.Output, path string, p *report.Page, fs []finding.Finding) error {
	if out.JSON {
		return out.WriteJSON(map[string]any{"out": path, "verdict": p.Verdict, "findings": orEmpty(fs)})
	}
	out.Verdict(p.Verdict)
	_, err := fmt.Fprintf(out.Writer(), "report written to %s\n", path)
	return err
}

// count is n with the noun in the number it takes ("1 error", "2 errors").
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
