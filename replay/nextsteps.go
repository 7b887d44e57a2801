package replay

import (
	"fmt"
	"strings"

	"innoscope/analysis"
	"innoscope/finding"
	"innoscope/logformat/redo"
)

// NextStep is one command the report advises, with why.
type NextStep struct {
	Command string
	Why     string
}

// NextSteps are the innoscope commands that apply to the directory d diagnosed, for the
// report's "what to do next": which of recover and recover --salvage would run on it is found
// by their own pre-flight (Open's refusals, the salvage's plan; read-only, nothing is copied),
// not guessed from the findings. where are the location flags the commands need besides DIR
// (as given to the report).
func NextSteps(d *analysis.Diagnosis, scan redo.ScanOptions, where []string) []NextStep {
	dir := d.Layout.Datadir
	cmd := func(args ...string) string {
		return strings.Join(append(append([]string{"innoscope"}, args...), where...), " ")
	}
	copyNote := " (COPY: a new or empty directory with room for a copy of DIR; DIR is only read)"
	for _, f := range d.Findings {
		switch f.Code {
		case "LOG_ONLY":
			return []NextStep{
				{Command: cmd("log", "stats", dir), Why: "Read what the log holds: its records by type, the pages and tablespaces they change, where and why it ends."},
				{Command: "innoscope report DATADIR --out report.html", Why: "Report on the data directory this log came from (its system tablespace, datafiles and this log together): only there can innoscope say what mariadbd will do."},
			}
		case "SERVER_RUNNING":
			return []NextStep{{Command: cmd("report", dir, "--out", "report.html"), Why: "A server is running on this directory (SERVER_RUNNING), so what was read is not consistent: stop that server, then report again."}}
		}
	}
	var steps []NextStep
	p, err := OpenDiagnosed(d, scan)
	if err == nil {
		p.Close()
		o := d.Outcome()
		switch {
		case d.Input.Analysis != nil && (o.Pages > 0 || o.Logged || o.RollBack > 0):
			steps = append(steps, NextStep{Command: cmd("verify", dir), Why: "Check that recovery will work: replays it into a temporary copy and verifies every page of the result."},
				NextStep{Command: cmd("recover", dir, "--into", "COPY"), Why: "Recover into a copy, as the server's crash recovery would" + copyNote + "; it ends with the command that starts mariadbd on the copy and says what the server will meet there" + failing(d, o) + "."})
		default:
			steps = append(steps, NextStep{Command: cmd("verify", dir), Why: "Nothing is left to recover; verify reads every page of every datafile, which the server does only when it uses them."})
		}
		return steps
	}
	refusal, _, _ := strings.Cut(err.Error(), "\n")
	sp, serr := OpenSalvage(d.Layout, scan, "COPY")
	if serr != nil {
		return append(steps, NextStep{Command: cmd("recover", dir, "--into", "COPY", "--dry-run"),
			Why: fmt.Sprintf("recover refuses this directory (%s), and so does recover --salvage (%s): the dry run prints the refusal with the file, page and LSN to act on.", refusal, strings.SplitN(serr.Error(), "\n", 2)[0])})
	}
	defer sp.Close()
	loss := "It loses nothing here (relocations only)."
	if sp.Salvage.Lost() {
		n := 0
		for _, a := range sp.Salvage.Actions {
			if a.Lost() {
				n++
			}
		}
		loss = fmt.Sprintf("It declares losses here (%d): each is a row of its salvage table, with the file and what the copy gets.", n)
	}
	return append(steps,
		NextStep{Command: cmd("recover", dir, "--into", "COPY", "--salvage", "--dry-run"),
			Why: fmt.Sprintf("recover refuses this directory as the server does (%s); the salvage repairs in a copy what the server refuses. See its plan first (it writes nothing). %s", refusal, loss)},
		NextStep{Command: cmd("recover", dir, "--into", "COPY", "--salvage"),
			Why: "Then salvage into a copy" + copyNote + "; it ends with the command that starts mariadbd on the copy."})
}

// failing is what recover's step adds when the verdict says tables will fail.
func failing(d *analysis.Diagnosis, o finding.Outcome) string {
	if finding.MakeVerdict(d.Findings, o).Severity != finding.Error {
		return ""
	}
	return " (the tables the error findings name will fail there too: CHECK TABLE them, and restore those from a backup)"
}
