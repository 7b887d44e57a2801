package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/urfave/cli/v2"

	"innoscope/discovery"
	"innoscope/replay"
	"innoscope/report"
)

func recoverCommand() *cli.Command {
	return &cli.Command{
		Name:  "recover",
		Usage: "replay crash recovery into a working copy (the source is never written)",
		Description: "Copies DIR into --into, sparsely. DATA DIRECTORY files go to --external-dir (default\n" +
			"COPY" + replay.ExternalSuffix + ") and the copy's .isl files are rewritten to point there. Then every\n" +
			"mini-transaction from the checkpoint to the end of the log is applied as the server's crash\n" +
			"recovery does, and the copy gets a redo log with nothing to recover. Start the server on it with\n" +
			"--datadir=COPY: system, undo and log files kept outside DIR are in the copy's root (drop those\n" +
			"directory options; keep innodb_data_file_path and innodb_undo_tablespaces), those inside DIR stay\n" +
			"where they were. Until it has finished, the copy holds " + replay.IncompleteMarker + "\n" +
			"and a redo log the server refuses; --force empties such a copy (only a marked one) and starts\n" +
			"again. A directory a server is running on is refused unless --allow-live.",
		ArgsUsage: "DIR",
		Flags: dirFlags(
			&cli.StringFlag{Name: "into", Usage: "the working copy to create (a new or empty directory)"},
			&cli.StringFlag{Name: "external-dir", Usage: "where files from outside the data directory go (default COPY" + replay.ExternalSuffix + ")"},
			&cli.BoolFlag{Name: "force", Usage: "use an existing empty --into, or restart an interrupted one"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print what would be applied (pages per space, file operations); write nothing"},
			&cli.Int64Flag{Name: "cache-mib", Value: 512, Usage: "page images held in memory before a batch is written"},
			allowLiveFlag),
		Action: recoverAction,
	}
}

// recoverJSON is the --json form of `recover`.
type recoverJSON struct {
	Source string                `json:"source"`
	Into   string                `json:"into,omitempty"`
	DryRun bool                  `json:"dry_run"`
	Copy   *replay.CopyStats     `json:"copy,omitempty"`
	Result *replay.RecoverResult `json:"result,omitempty"`
	Plan   *recoverPlan          `json:"plan,omitempty"`
	// Seconds is the wall time of each phase: copy, replay (reading, applying and writing
	// pages, file operations), log (one syncfs of the copy, then writing the new redo log).
	Seconds map[string]float64 `json:"seconds,omitempty"`
	// Relinked are .isl files of the copy that name another file than the source's (see
	// replay.ISLRedirect).
	Relinked []replay.ISLRedirect `json:"isl_redirects,omitempty"`
}

// recoverPlan is what a dry run reports: pages with records per space, and the file events.
type recoverPlan struct {
	CheckpointLSN uint64            `json:"checkpoint_lsn"`
	EndLSN        uint64            `json:"end_lsn"`
	PageRecords   int               `json:"page_records"`
	PagesBySpace  map[uint32]int    `json:"pages_by_space"`
	FileEvents    []replay.Space    `json:"file_events"`
	Trims         map[uint32]uint32 `json:"undo_truncations"`
}

func recoverAction(c *cli.Context) error {
	if c.NArg() != 1 && !c.IsSet("datadir") && !c.IsSet("defaults-file") {
		return fmt.Errorf("expected one DIR argument")
	}
	into := absFlag(c, "into")
	if into == "" && !c.Bool("dry-run") {
		return fmt.Errorf("--into COPY is required (or --dry-run)")
	}
	out := report.New(c.App.Writer, c.Bool("json"))
	defer out.Flush()
	p, err := prepareRecovery(c)
	if err != nil {
		return err
	}
	defer p.log.Close()
	j := recoverJSON{Source: p.settings.Datadir, Into: into, DryRun: c.Bool("dry-run")}
	if j.DryRun {
		j.Plan = p.plan()
		if out.JSON {
			return out.WriteJSON(j)
		}
		return printPlan(out, j.Plan)
	}
	o, err := p.run(into, absFlag(c, "external-dir"), c.Bool("force"), c.Int64("cache-mib")<<20)
	if err != nil {
		return err
	}
	j.Copy, j.Result, j.Seconds, j.Relinked = &o.copy, o.result, o.seconds, p.redirects
	if out.JSON {
		return out.WriteJSON(j)
	}
	for _, r := range p.redirects {
		fmt.Fprintf(c.App.ErrWriter, "innoscope: note: %s\n", r)
	}
	for _, r := range o.result.RolledBackDDL {
		fmt.Fprintf(c.App.ErrWriter, "innoscope: note: %s\n", r)
	}
	for _, l := range o.result.Links {
		fmt.Fprintf(c.App.ErrWriter, "innoscope: note: %s\n", l)
	}
	return printRecovery(out, into, &o.copy, o.result, o.seconds)
}

// preparedRecovery is a source opened and analysed for replay.
type preparedRecovery struct {
	log      *recoverLog
	settings discovery.Layout
	cpLSN    uint64
	an       *replay.Analysis
	// redirects are the .isl files whose copy names the file the log gives their table.
	redirects []replay.ISLRedirect
}

// prepareRecovery opens the source's log read-only and runs the pre-pass; it refuses logs the
// server would refuse to recover.
func prepareRecovery(c *cli.Context) (*preparedRecovery, error) {
	s, err := loadSettings(c, c.Args().First())
	if err != nil {
		return nil, err
	}
	if err := refuseLive(c, s); err != nil {
		return nil, err
	}
	l, a, cpLSN, fs, err := openRecoverLog(c)
	if err != nil {
		return nil, err
	}
	if err == nil {
		for _, f := range fs {
			if f.Severity == report.Error {
				err = fmt.Errorf("%s: %s: %s", f.File, f.Code, f.Message)
				break
			}
		}
	}
	if err == nil { // the server cannot start without its system tablespace: name it before copying
		_, err = discovery.SystemPageSize(s.SystemFile())
	}
	var ts []discovery.Tablespace
	if err == nil {
		ts, err = discovery.Scan(s)
	}
	if err == nil {
		err = refuseEncrypted(ts, a)
	}
	if err == nil { // a torn page 0 the server cannot recover past: say so before copying
		err = replay.Page0Refusal(replay.Input{Datadir: s.Datadir, Analysis: a, Spaces: ts})
	}
	if err != nil {
		l.Close()
		return nil, err
	}
	return &preparedRecovery{log: l, settings: s, cpLSN: cpLSN, an: a, redirects: islRedirects(s, a, ts)}, nil
}

// islRedirects reads SYS_TABLES (the tables the .isl files belong to) and returns the .isl files
// the copy points at the file the log names (replay.ISLRedirects); none if SYS_TABLES cannot be
// read (the copy then keeps every link as the source has it).
func islRedirects(s discovery.Layout, a *replay.Analysis, ts []discovery.Tablespace) []replay.ISLRedirect {
	sys, err := discovery.OpenFile(filepath.Join(s.SystemFile()))
	if err != nil {
		return nil
	}
	defer sys.Close()
	dict, err := discovery.ReadDictTables(sys)
	if err != nil {
		return nil
	}
	return replay.ISLRedirects(replay.Input{Datadir: s.Datadir, Analysis: a, Spaces: ts, Dict: dict})
}

// refuseEncrypted fails when a tablespace the log changes is encrypted (innoscope has no keys),
// before anything is copied.
func refuseEncrypted(ts []discovery.Tablespace, a *replay.Analysis) error {
	touched := map[uint32]bool{}
	for id := range a.Pages {
		touched[id.Space] = true
	}
	for _, t := range ts {
		// A file whose page 0 cannot be read is reported by recovery, with the page it needs.
		if t.Error == "" && touched[t.SpaceID] && t.Encryption != discovery.CryptUnencrypted {
			return fmt.Errorf("%s: tablespace %d is encrypted (scheme %d on page 0) and the log changes it: innoscope cannot decrypt; recover with the server and its key management plugin",
				t.Path, t.SpaceID, t.Encryption)
		}
	}
	return nil
}

func (p *preparedRecovery) plan() *recoverPlan {
	pl := &recoverPlan{CheckpointLSN: p.cpLSN, EndLSN: p.an.Map.EndLSN, PageRecords: p.an.PageRecords,
		PagesBySpace: map[uint32]int{}, FileEvents: []replay.Space{}, Trims: map[uint32]uint32{}}
	for id := range p.an.Pages {
		pl.PagesBySpace[id.Space]++
	}
	for _, s := range p.an.Map.Sorted() {
		pl.FileEvents = append(pl.FileEvents, *s)
	}
	for id, t := range p.an.Trims {
		pl.Trims[id] = t.Pages
	}
	return pl
}

// targetError is a refusal of the copy's directory (overlap, not empty, in use): a usage error,
// never a finding about the data.
type targetError struct{ error }

func (e targetError) Unwrap() error { return e.error }

// recoverOutcome is what run did.
type recoverOutcome struct {
	copy    replay.CopyStats
	result  *replay.RecoverResult
	seconds map[string]float64
}

// run copies the source into target, replays the log into the copy and resets the copy's log.
func (p *preparedRecovery) run(target, external string, force bool, cache int64) (*recoverOutcome, error) {
	s := p.settings
	o := &recoverOutcome{seconds: map[string]float64{}}
	cp := &replay.Copy{Source: s, Target: target, External: external,
		Redirect: map[string]string{}}
	for _, r := range p.redirects {
		cp.Redirect[discovery.ResolvePath(r.ISL)] = r.Target
	}
	lock, err := cp.Lock(force)
	if err != nil {
		return nil, targetError{err}
	}
	defer lock.Unlock()
	defer onInterrupt(func() string {
		if _, err := os.Stat(filepath.Join(target, replay.IncompleteMarker)); err != nil {
			return ""
		}
		return fmt.Sprintf("the copy %s is left incomplete (%s kept): it is not usable; run again with --force to start over",
			target, replay.IncompleteMarker)
	})()
	var total int64
	filepath.Walk(s.Datadir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			total += fi.Size()
		}
		return nil
	})
	t0 := time.Now()
	prog := report.NewProgress("copying", total)
	var copied int64
	o.copy, err = cp.Make(func(n int64) { copied += n; prog.Set(copied) })
	prog.Done()
	if err != nil {
		return nil, fmt.Errorf("copying %s to %s: %w", s.Datadir, target, err)
	}
	t1 := time.Now()
	prog = report.NewProgress("applying", int64(p.an.PageRecords))
	sc, err := p.log.Scan(p.cpLSN)
	if err != nil {
		return nil, err
	}
	defer sc.Prefetch()() // decoded on another core while the replay applies
	o.result, err = replay.Recover(sc, replay.RecoverOptions{Copy: cp.Layout(), PageSize: p.log.PageSize, Analysis: p.an,
		CopyPath: cp.Path, CacheBytes: cache, Progress: func(done, total int) { prog.Set(int64(done)) }})
	prog.Done()
	if err != nil {
		return nil, fmt.Errorf("recovering into %s (left marked incomplete): %w", target, err)
	}
	t2 := time.Now()
	if err := cp.Sync(); err != nil { // the copy's files, durable before its log (the commit point)
		return nil, err
	}
	if err := replay.ResetLog(cp.LogPath(), p.log.Size, o.result.EndLSN); err != nil {
		return nil, err
	}
	if err := cp.Finish(); err != nil {
		return nil, err
	}
	o.seconds["copy"], o.seconds["replay"], o.seconds["log"] =
		t1.Sub(t0).Seconds(), t2.Sub(t1).Seconds(), time.Since(t2).Seconds()
	return o, nil
}

func printPlan(out *report.Output, pl *recoverPlan) error {
	fmt.Fprintf(out.Writer(), "dry run: checkpoint LSN %d, end of log %d, %d page records\n", pl.CheckpointLSN, pl.EndLSN, pl.PageRecords)
	ids := make([]uint32, 0, len(pl.PagesBySpace))
	for id := range pl.PagesBySpace {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	var rows [][]string
	for _, id := range ids {
		name := ""
		for _, s := range pl.FileEvents {
			if s.ID == id {
				name = s.Name
			}
		}
		rows = append(rows, []string{fmt.Sprint(id), name, fmt.Sprint(pl.PagesBySpace[id])})
	}
	if err := out.Table([]string{"SPACE", "FILE", "PAGES"}, rows); err != nil {
		return err
	}
	rows = nil
	for _, s := range pl.FileEvents {
		for _, e := range s.Events {
			name := e.Name
			if e.NewName != "" {
				name += " -> " + e.NewName
			}
			rows = append(rows, []string{fmt.Sprint(e.LSN), string(e.Kind), fmt.Sprint(s.ID), name})
		}
	}
	for id, n := range pl.Trims {
		rows = append(rows, []string{"", "truncate", fmt.Sprint(id), fmt.Sprintf("undo tablespace to %d pages", n)})
	}
	return out.Table([]string{"LSN", "FILE OPERATION", "SPACE", "NAME"}, rows)
}

func printRecovery(out *report.Output, into string, st *replay.CopyStats, r *replay.RecoverResult, sec map[string]float64) error {
	rows := [][]string{
		{"copy", into},
		{"files copied", fmt.Sprintf("%d (%d bytes, %d bytes left as holes, %d external, %d .isl relinked)",
			st.Files, st.Bytes, st.Holes, st.External, st.Relinked)},
		{"checkpoint LSN", fmt.Sprint(r.CheckpointLSN)},
		{"end of log LSN", fmt.Sprint(r.EndLSN)},
		{"mini-transactions", fmt.Sprint(r.MTRs)},
		{"records applied", fmt.Sprint(r.RecordsApplied)},
		{"records skipped", fmt.Sprintf("%d (already in the page, before an INIT_PAGE, or of dropped/truncated spaces)", r.RecordsSkipped)},
		{"pages read / applied", fmt.Sprintf("%d / %d (%d from the doublewrite buffer, %d freed)", r.PagesRead, r.PagesApplied, r.PagesFromDblwr, r.PagesFreed)},
		{"batches", fmt.Sprint(r.Batches)},
		{"seconds", fmt.Sprintf("copy %.2f, replay %.2f, log %.2f", sec["copy"], sec["replay"], sec["log"])},
	}
	if err := out.Table([]string{"FIELD", "VALUE"}, rows); err != nil {
		return err
	}
	rows = nil
	for _, s := range r.Spaces {
		var ops []string
		if s.Created {
			ops = append(ops, "created")
		}
		if s.RenamedFrom != "" {
			ops = append(ops, "renamed from "+s.RenamedFrom)
		}
		if s.TrimmedTo > 0 {
			ops = append(ops, fmt.Sprintf("truncated to %d pages", s.TrimmedTo))
		}
		if s.ExtendedTo > 0 {
			ops = append(ops, fmt.Sprintf("extended to %d pages", s.ExtendedTo))
		}
		rows = append(rows, []string{fmt.Sprint(s.ID), s.Path, fmt.Sprint(s.PagesWritten), fmt.Sprint(ops)})
	}
	if err := out.Table([]string{"SPACE", "FILE", "PAGES WRITTEN", "FILE OPERATIONS"}, rows); err != nil {
		return err
	}
	fmt.Fprintf(out.Writer(), "recovered: the copy has nothing left to recover (log reset at LSN %d)\n", r.EndLSN)
	return nil
}
