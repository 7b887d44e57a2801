package replay

import (
	"fmt"
	"runtime/debug"
	"time"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/logformat/redo"
)

// Source is a data directory opened read-only and analysed for recovery: its log, the
// pre-pass over it from the checkpoint, and the .isl files the copy must point elsewhere.
type Source struct {
	Layout        discovery.Layout
	Log           *redo.Log
	CheckpointLSN uint64
	Analysis      *analysis.Analysis
	// Redirects are the .isl files whose copy names the file the log gives their table.
	Redirects []analysis.ISLRedirect
	// Salvage is what OpenSalvage decided to repair or declare lost (nil after Open).
	Salvage *SalvagePlan
	scan    redo.ScanOptions
	spaces  []discovery.Tablespace // the datafiles found in the source (planDeferred)
	kept    *pageStore             // the pages the pre-flight read kept for the replay
	// decoded are the mini-transactions the pre-pass decoded, for the replay (nil: the replay
	// decodes the log again).
	decoded *redo.Decoded
	// standIn is the new log a salvage gives a copy whose source has none (nil: the source's
	// log is replayed); Close removes it.
	standIn *newLog
}

// Open opens the log of the data directory laid out as s and runs the pre-pass. It refuses,
// before anything is copied, what the server would refuse to recover: an error finding of the
// log, a missing system tablespace, an encrypted tablespace the log changes, a page 0 the server
// cannot recover past.
func Open(s discovery.Layout, scan redo.ScanOptions) (*Source, error) {
	return open(s, scan, salvageOptions{})
}

// open is Open, or OpenSalvage when so.salvage is set.
func open(s discovery.Layout, scan redo.ScanOptions, so salvageOptions) (*Source, error) {
	if err := s.CheckDatadir(); err != nil {
		return nil, err
	}
	l, err := analysis.OpenLog(s, so.logArg())
	if redo.Encrypted(err) { // the server reads it with its key management plugin
		return nil, Unsupported{err}
	} else if err != nil {
		return nil, noLogHint(s, err, so.salvageWord())
	}
	if err := l.Replayable(); err != nil { // a format innoscope does not replay: its limit, not the server's
		l.Close()
		return nil, Unsupported{err}
	}
	a, dec, cpLSN, fs, err := analysis.Prepass(l, scan, keepLimit(l, scan))
	if err != nil {
		l.Close()
		return nil, err
	}
	p, err := prepare(s, l, a, cpLSN, fs, scan, so, nil)
	if p != nil {
		p.decoded = dec
	}
	return p, err
}

// decodedLimit bounds the memory of the mini-transactions the pre-pass keeps for the replay
// (redo.Decoded: about 3.3 times the log's bytes); a longer log is decoded again by the replay.
var decodedLimit int64 = 512 << 20 // a variable for the tests

// decodedPerLogByte is about how many bytes of memory the pre-pass's decoding of one byte of
// log takes (redo.Decoded).
const decodedPerLogByte = 3

// keepLimit is the memory the pre-pass may keep its decoding in for the replay: decodedLimit, or
// 0 when the log after the checkpoint is too long for that to hold it, found by framing it
// (without decoding) up to decodedLimit/decodedPerLogByte bytes first: a store built and then
// dropped costs the pre-pass time for nothing (on issue 35's dense crash, 650 MB of log, 1.5 s).
func keepLimit(l *redo.Log, scan redo.ScanOptions) int64 {
	if decodedLimit <= 0 || l.V108() == nil {
		return decodedLimit
	}
	sc, _, err := l.Scanner(scan)
	if err != nil {
		return decodedLimit // the pre-pass says why
	}
	max := int(decodedLimit / decodedPerLogByte)
	if sc.FramedBytes(max) >= max {
		return 0
	}
	return decodedLimit
}

// OpenDiagnosed is Open for the source the diagnosis d read: recovery follows d's reading of
// the log instead of reading it again.
func OpenDiagnosed(d *analysis.Diagnosis, scan redo.ScanOptions) (*Source, error) {
	return openDiagnosed(d, scan, salvageOptions{})
}

// openDiagnosed is OpenDiagnosed with so (verify's: how its refusals name the salvage).
func openDiagnosed(d *analysis.Diagnosis, scan redo.ScanOptions, so salvageOptions) (*Source, error) {
	if d.Input.Analysis == nil {
		return open(d.Layout, scan, so) // the log was unusable: Open says why
	}
	l, err := analysis.OpenLog(d.Layout, "")
	if err != nil {
		return nil, err
	}
	if err := l.Replayable(); err != nil { // a format innoscope does not replay: its limit, not the server's
		l.Close()
		return nil, Unsupported{err}
	}
	if err := l.RecoveryStart(); err != nil {
		l.Close()
		return nil, err
	}
	return prepare(d.Layout, l, d.Analysis, d.CheckpointLSN, d.LogFindings, scan, so, &d.Input)
}

// prepare refuses what the server would refuse to recover (see Open) and finds the .isl
// redirects; it closes l when it refuses. read, when not nil, is a diagnosis's reading of the same
// directory: its tablespaces are used instead of scanning the directory again. SYS_TABLES is read
// once, for the .isl redirects and the salvage.
func prepare(s discovery.Layout, l *redo.Log, a *analysis.Analysis, cpLSN uint64, fs []finding.Finding, scan redo.ScanOptions, so salvageOptions, read *analysis.Input) (*Source, error) {
	var err error
	for _, f := range fs {
		if f.Severity == finding.Error && !(so.salvage && salvageable(f.Code)) && f.Code != "CRASH_UPGRADE_REFUSED" { // the refusal recovery into a copy is the way out of
			err = fmt.Errorf("%s: %s: %s%s", f.File, f.Code, f.Message, salvageHint(s, f.Code, so.salvageWord()))
			break
		}
	}
	if err == nil { // the server cannot start without its system tablespace: name it before copying
		err = analysis.SystemFileRefusal(s)
	}
	if err == nil {
		_, err = discovery.SystemPageSize(s.SystemFile())
	}
	var ts []discovery.Tablespace
	var dict []discovery.DictTable
	var dictErr error
	if err == nil && read != nil {
		ts = read.Spaces
	} else if err == nil {
		ts, err = discovery.Scan(s)
	}
	if err == nil {
		dict, dictErr = readDict(s)
	}
	if err == nil {
		err = refuseEncrypted(ts, a)
	}
	if err == nil && !so.salvage { // a torn page 0 the server cannot recover past: say so before copying (the salvage quarantines it)
		err = page0Hint(s, analysis.Page0Refusal(analysis.Input{Datadir: s.Datadir, Analysis: a, Spaces: ts}, l.PageSize), so.salvageWord())
	}
	var plan *SalvagePlan
	// The pages the pre-flight read keeps for the replay (none for a salvage: it moves files
	// of the copy, and the replay reads every page again).
	so.keep = newPageStore(0, nil, 0)
	if !so.salvage && err == nil {
		so.keep = newPageStore(512<<20, a, l.PageSize)
	}
	if err == nil { // every other refusal, before copying: the salvage's plan
		plan, err = planSalvage(s, l, a, fs, scan, so, salvageDict(s, l, a, ts, scan, so, dict, read))
	}
	if err != nil {
		l.Close()
		return nil, err
	}
	return &Source{Layout: s, Log: l, CheckpointLSN: cpLSN, Analysis: a, Redirects: islRedirects(s, a, ts, dict, dictErr), Salvage: plan, scan: scan, spaces: ts, kept: so.keep}, nil
}

// Close closes the source's log (and removes a salvage's stand-in for a missing one).
func (p *Source) Close() error {
	p.standIn.remove()
	return p.Log.Close()
}

// salvageDict is SYS_TABLES for the salvage's relocations: as crash recovery leaves it (the
// diagnosis's reading, else RecoveredUndo over the log from the checkpoint), or dict (on disk)
// when that cannot be read; nil without a salvage.
func salvageDict(s discovery.Layout, l *redo.Log, a *analysis.Analysis, ts []discovery.Tablespace, scan redo.ScanOptions, so salvageOptions, dict []discovery.DictTable, read *analysis.Input) []discovery.DictTable {
	if !so.salvage {
		return nil
	}
	if read != nil && read.Undo != nil && len(read.Undo.Tables) > 0 {
		return read.Undo.Tables
	}
	if so.newLog != nil {
		return dict // no log to replay
	}
	if sc, _, err := l.Scanner(scan); err == nil {
		if u, err := RecoveredUndo(sc, s, l.PageSize, a, ts); err == nil && len(u.Tables) > 0 {
			return u.Tables
		}
	}
	return dict
}

// islRedirects returns the .isl files the copy points at the file the log names
// (analysis.ISLRedirects, from SYS_TABLES: the tables the .isl files belong to); none if SYS_TABLES
// could not be read (the copy then keeps every link as the source has it).
func islRedirects(s discovery.Layout, a *analysis.Analysis, ts []discovery.Tablespace, dict []discovery.DictTable, dictErr error) []analysis.ISLRedirect {
	if dictErr != nil {
		return nil
	}
	return analysis.ISLRedirects(analysis.Input{Datadir: s.Datadir, Analysis: a, Spaces: ts, Dict: dict})
}

// refuseEncrypted fails when a tablespace the log changes is encrypted (innoscope has no keys),
// before anything is copied.
func refuseEncrypted(ts []discovery.Tablespace, a *analysis.Analysis) error {
	touched := map[uint32]bool{}
	for id := range a.Pages {
		touched[id.Space] = true
	}
	for _, t := range ts {
		// A file whose page 0 cannot be read is reported by recovery, with the page it needs.
		if t.Error == "" && touched[t.SpaceID] && t.Encryption != discovery.CryptUnencrypted {
			return unsupported("%s: tablespace %d is encrypted (scheme %d on page 0) and the log changes it: innoscope cannot decrypt; recover with the server and its key management plugin",
				t.Path, t.SpaceID, t.Encryption)
		}
	}
	return nil
}

// Plan is what a dry run reports: pages with records per space, and the file events.
type Plan struct {
	CheckpointLSN uint64            `json:"checkpoint_lsn"`
	EndLSN        uint64            `json:"end_lsn"`
	PageRecords   int               `json:"page_records"`
	PagesBySpace  map[uint32]int    `json:"pages_by_space"`
	FileEvents    []analysis.Space  `json:"file_events"`
	Trims         map[uint32]uint32 `json:"undo_truncations"`
	// Files are the source files of the spaces in PagesBySpace, where one was found.
	Files map[uint32]string `json:"files,omitempty"`
}

// Plan says what Run would apply.
func (p *Source) Plan() *Plan {
	pl := &Plan{CheckpointLSN: p.CheckpointLSN, EndLSN: p.Analysis.Map.EndLSN, PageRecords: p.Analysis.PageRecords,
		PagesBySpace: map[uint32]int{}, FileEvents: []analysis.Space{}, Trims: map[uint32]uint32{}}
	for id := range p.Analysis.Pages {
		pl.PagesBySpace[id.Space]++
	}
	pl.Files = map[uint32]string{}
	carriers := map[uint32]int{}
	for _, t := range p.spaces {
		if _, ok := pl.PagesBySpace[t.SpaceID]; ok && t.Error == "" && t.Note != discovery.NotePage0Zero {
			carriers[t.SpaceID]++
			pl.Files[t.SpaceID] = t.Path
		}
	}
	for id, n := range carriers {
		if n > 1 {
			delete(pl.Files, id) // which one is bound: the log's name says (SpaceRows)
		}
	}
	for _, s := range p.Analysis.Map.Sorted() {
		pl.FileEvents = append(pl.FileEvents, *s)
	}
	for id, t := range p.Analysis.Trims {
		pl.Trims[id] = t.Pages
	}
	return pl
}

// TargetError is a refusal of the copy's directory (overlap, not empty, in use): a usage
// error, never a finding about the data.
type TargetError struct{ error }

func (e TargetError) Unwrap() error { return e.error }

// RunOptions are where and how Run makes the copy.
type RunOptions struct {
	Target   string // the copy (a new or empty directory)
	External string // where files from outside the data directory go ("": Target+ExternalSuffix)
	Force    bool   // restart an interrupted copy (empty a Target holding IncompleteMarker)
	// Flags are the options that chose Target, named in its refusals (zero: recover's).
	Flags TargetFlags
	// CacheBytes bounds the page images held in memory (0: every page the log changes, up to
	// half the available memory, at least 512 MiB: defaultCacheBytes).
	CacheBytes int64
	// CopyProgress and ApplyProgress, if set, are called with the bytes copied and the records
	// applied, and their totals.
	CopyProgress, ApplyProgress func(done, total int64)
	// copyAll copies every page and has the replay read them all from the copy (the tests'
	// reference for the pages the copy leaves out, deferred.go).
	copyAll bool
}

// Outcome is what Run did.
type Outcome struct {
	Copy   CopyStats
	Result *RecoverResult
	// Seconds is the wall time of each phase: copy, replay (reading, applying and writing
	// pages, file operations), log (one syncfs of the copy, then writing the new redo log).
	Seconds map[string]float64
	// CopyLayout is the copy's layout (DiagnoseCopy).
	CopyLayout discovery.Layout
}

// CheckTarget makes the checks of opt.Target (and its external directory) that Run makes before
// it writes anything, and writes nothing: a dry run refuses what a real run would (a
// TargetError).
func (p *Source) CheckTarget(opt RunOptions) error {
	cp := &Copy{Source: p.Layout, Target: opt.Target, External: opt.External}
	if err := cp.CheckTarget(opt.Force, opt.Flags); err != nil {
		return TargetError{err}
	}
	_, err := cp.planTree()
	return err
}

// Run copies the source into opt.Target, replays the log into the copy and resets the copy's
// log. Until it has finished the copy holds IncompleteMarker and a log the server refuses.
func (p *Source) Run(opt RunOptions) (*Outcome, error) {
	s := p.Layout
	if opt.CacheBytes == 0 {
		opt.CacheBytes = defaultCacheBytes(len(p.Analysis.Pages), p.Log.PageSize)
	}
	// The pages kept and cached are hundreds of MiB that live to the end: with the default
	// goal (twice the live heap) as much garbage of the log's decoding would pile up beside them.
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	o := &Outcome{Seconds: map[string]float64{}}
	cp := &Copy{Source: s, Target: opt.Target, External: opt.External, Redirect: map[string]string{}}
	for _, r := range p.Redirects {
		cp.Redirect[discovery.ResolvePath(r.ISL)] = r.Target
	}
	if p.Salvage == nil && !opt.copyAll { // a salvage moves files of the copy before the replay
		cp.deferred = planDeferred(p.spaces, p.Analysis, p.kept)
	}
	p.kept = nil // the replay takes them (or no one)
	if err := cp.checkOverlaps(opt.Flags.orDefault()); err != nil {
		return nil, TargetError{err} // before the plan: it must never walk into the copy
	}
	pl, err := cp.planTree() // what cannot be copied is refused before anything is written
	if err != nil {
		return nil, err
	}
	lock, err := cp.Lock(opt.Force, opt.Flags)
	if err != nil {
		return nil, TargetError{err}
	}
	defer lock.Unlock()
	total := pl.bytes
	var lastMTRs chan map[[2]uint32]uint64
	if p.decoded != nil { // the pages' last mini-transactions, found on another core during the copy
		d := p.decoded
		lastMTRs = make(chan map[[2]uint32]uint64, 1)
		go func() { lastMTRs <- d.LastMTRs() }()
	}
	t0 := time.Now()
	var copied int64
	o.Copy, err = cp.Make(func(n int64) {
		copied += n
		if opt.CopyProgress != nil {
			opt.CopyProgress(copied, total)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("copying %s to %s: %w", s.Datadir, opt.Target, err)
	}
	if err := p.Salvage.ApplyToCopy(cp.Path); err != nil {
		return nil, err
	}
	t1 := time.Now()
	var last map[[2]uint32]uint64
	if lastMTRs != nil {
		last = <-lastMTRs
	}
	sc := p.decoded.Pass() // the pre-pass's decoding, when it kept all of it
	p.decoded = nil
	if sc == nil {
		s, _, err := p.Log.Scanner(p.scan)
		if err != nil {
			return nil, err
		}
		defer s.Prefetch()() // decoded on another core while the replay applies
		sc = s
	}
	o.Result, err = Recover(sc, RecoverOptions{Copy: cp.Layout(), PageSize: p.Log.PageSize, Analysis: p.Analysis,
		CopyPath: cp.Path, CacheBytes: opt.CacheBytes, Progress: func(done, total int) {
			if opt.ApplyProgress != nil {
				opt.ApplyProgress(int64(done), int64(total))
			}
		}, Skip: p.Salvage.SkipSet(), deferred: cp.deferred, last: last, mkdir: cp.mkdir})
	if err != nil {
		return nil, fmt.Errorf("recovering into %s (left marked incomplete): %w", opt.Target, err)
	}
	t2 := time.Now()
	if err := cp.Sync(); err != nil { // the copy's files, durable before its log (the commit point)
		return nil, err
	}
	if err := ResetLog(cp.LogPath(), p.Log.Size, o.Result.EndLSN); err != nil {
		return nil, err
	}
	if err := cp.Own(); err != nil {
		return nil, err
	}
	if err := cp.Finish(); err != nil {
		return nil, err
	}
	o.CopyLayout = cp.Layout()
	o.Seconds["copy"], o.Seconds["replay"], o.Seconds["log"] =
		t1.Sub(t0).Seconds(), t2.Sub(t1).Seconds(), time.Since(t2).Seconds()
	return o, nil
}
