package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/report"
)

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "one self-contained HTML file for the incident ticket: verdict, findings, LSN timeline, pages to recover, page-LSN heat map",
		Description: "Runs the diagnosis (as diagnose does) and writes --out: inline CSS and SVG, no script and no\n" +
			"external URL, so it opens offline. Exit status as diagnose's.",
		ArgsUsage: "DIR --out FILE.html",
		Flags: dirFlags(
			&cli.StringFlag{Name: "out", Usage: "the HTML file to write (a new file or one to overwrite; never inside DIR)"},
			&cli.StringFlag{Name: "policy", Value: "mariadb", Usage: "location rules: mariadb (warn) or mysql8 (WL#13065)"},
			&cli.BoolFlag{Name: "skip-pages", Usage: "read only page 0 of each datafile (no page-level findings; no heat map)"}),
		Action: reportAction,
	}
}

func reportAction(c *cli.Context) error {
	if c.NArg() != 1 && !c.IsSet("datadir") && !c.IsSet("defaults-file") {
		return fmt.Errorf("expected one DIR argument")
	}
	outPath := absFlag(c, "out")
	if outPath == "" {
		return fmt.Errorf("--out FILE.html is required")
	}
	if s, err := loadSettings(c, c.Args().First()); err == nil &&
		insideDir(discovery.ResolvePath(outPath), discovery.ResolvePath(s.Datadir)) {
		return fmt.Errorf("--out %s is inside the data directory %s, which is only read", outPath, s.Datadir)
	}
	d, err := runDiagnosis(c)
	if err != nil {
		return err
	}
	p := reportPage(d, !c.Bool("skip-pages"))
	f, err := os.Create(outPath)
	if err != nil {
		return err
	}
	if err := report.WriteHTML(f, p); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", outPath, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	out := report.New(c.App.Writer, c.Bool("json"))
	defer out.Flush()
	if out.JSON {
		return writeJSON(c, out, map[string]any{"out": outPath, "verdict": p.Verdict, "findings": orEmpty(d.Findings)}, d.Findings)
	}
	out.Verdict(p.Verdict)
	fmt.Fprintf(out.Writer(), "report written to %s\n", outPath)
	return finish(c, d.Findings)
}

// insideDir tells whether path is dir or below it.
func insideDir(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return dir != "" && err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// reportPage gathers what the HTML report shows from a diagnosis: the findings and verdict, the
// log's file operations, the pages recovery applies records to per tablespace and, when heat
// is set, every datafile's page LSNs.
func reportPage(d *analysis.Diagnosis, heat bool) *report.Page {
	p := &report.Page{Title: d.Layout.Datadir, Version: Version, Findings: d.Findings, Summary: d.Summary,
		Verdict:  report.MakeVerdict(d.Findings, diagnoseOutcome(d)),
		Timeline: report.Timeline{Checkpoint: d.CheckpointLSN, End: d.Analysis.Map.EndLSN, NoLog: d.Input.Analysis == nil}}
	toRecover := map[uint32]int{}
	for id := range d.Analysis.Pages {
		toRecover[id.Space]++
	}
	names := map[uint32]string{}
	for _, s := range d.Analysis.Map.Sorted() {
		names[s.ID] = s.Name
		for _, e := range s.Events {
			n := e.Name
			if e.NewName != "" {
				n += " -> " + e.NewName
			}
			p.Timeline.Events = append(p.Timeline.Events, report.TimelineEvent{LSN: e.LSN, Kind: string(e.Kind), Space: s.ID, Name: n})
		}
	}
	sort.SliceStable(p.Timeline.Events, func(i, j int) bool { return p.Timeline.Events[i].LSN < p.Timeline.Events[j].LSN })
	seen := map[uint32]bool{}
	for _, t := range d.Input.Spaces {
		if t.FoundBy == discovery.FoundTemporary {
			continue
		}
		sh := report.SpaceHeat{ID: t.SpaceID, Name: t.Path, Pages: t.Pages, Note: t.Note}
		if t.Note == discovery.NotePage0Zero || t.Error != "" {
			sh.ID, sh.Unknown = 0, true
			if id, ok := logIDOfPath(d, t.Path); ok {
				sh.ID, sh.Unknown = id, false
			}
		}
		if t.Error != "" {
			sh.Note = t.Error
		} else if heat && t.Note != discovery.NotePage0Zero {
			sh.Cells, sh.PagesPerCell = pageHeat(t.Path)
			sh.Recover = make([]bool, len(sh.Cells))
			for id := range d.Analysis.Pages {
				if c := int64(id.Page) / max(sh.PagesPerCell, 1); id.Space == sh.ID && c < int64(len(sh.Recover)) {
					sh.Recover[c] = true
				}
			}
		}
		if !seen[sh.ID] {
			sh.PagesToRecover = toRecover[sh.ID]
			seen[sh.ID] = true
		}
		p.Spaces = append(p.Spaces, sh)
	}
	for id, n := range toRecover {
		if !seen[id] {
			note := "no file found"
			if s := d.Analysis.Map.Spaces[id]; s != nil && s.Deleted {
				note = "the log deletes it: recovery does not apply its records"
			}
			p.Spaces = append(p.Spaces, report.SpaceHeat{ID: id, Name: names[id], PagesToRecover: n, Note: note})
		}
	}
	return p
}

// logIDOfPath is the id the log gives the file at path (its last name for a tablespace).
func logIDOfPath(d *analysis.Diagnosis, path string) (uint32, bool) {
	for _, s := range d.Analysis.Map.Sorted() {
		if !s.Deleted && discovery.ResolvePath(analysis.SourcePath(d.Layout.Datadir)(s.Name)) == discovery.ResolvePath(path) {
			return s.ID, true
		}
	}
	return 0, false
}

// pageHeat reads every page's LSN of a datafile, reduced to heat map cells (none if it cannot
// be read: the diagnosis has its finding).
func pageHeat(path string) ([]uint64, int64) {
	f, err := discovery.OpenFile(path)
	if err != nil {
		return nil, 0
	}
	defer f.Close()
	var lsns []uint64
	if _, err := discovery.Inspect(f, discovery.InspectOptions{To: -1, Each: func(pi discovery.PageInfo) { lsns = append(lsns, pi.LSN) }}); err != nil {
		return nil, 0
	}
	return report.HeatOf(lsns)
}
