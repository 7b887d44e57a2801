package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/logformat"
	"innoscope/logformat/logcheck"
	"innoscope/logformat/redo"
)

// OpenSalvage is Open for a salvage: what Open refuses and the salvage repairs or cuts losses in
// is planned (Source.Salvage) instead; into is the copy the plan names.
func OpenSalvage(s discovery.Layout, scan redo.ScanOptions, into string) (*Source, error) {
	so := salvageOptions{salvage: true, into: into}
	nl, err := standInLog(s)
	if err != nil {
		return nil, err
	}
	if nl != nil { // no log to replay: the copy gets a new one (nolog.go)
		so.newLog = nl
		p, err := open(s, scan, so)
		if err != nil {
			nl.remove()
			return nil, err
		}
		p.standIn = nl
		return p, nil
	}
	if scan.From == 0 && scan.To == 0 {
		if d := damagedCheckpointRecord(s); d != nil {
			scan.From, scan.Exact, so.skipped = d.Resume, true, d
		}
	}
	return open(s, scan, so)
}

// salvageOptions: whether open plans a salvage (salvage) instead of refusing what it repairs,
// and the copy the plan names (into).
type salvageOptions struct {
	salvage bool
	into    string
	// advice is how a refusal names the salvage ("": "--salvage", recover's flag; verify, which
	// has none, names the recover command).
	advice string
	keep   *pageStore // the pages the pre-flight read keeps for the replay (nil: none)
	// skipped is the damaged FILE_CHECKPOINT mini-transaction the scan starts after (nil: none).
	skipped *logcheck.Damage
	// newLog is the stand-in for a missing log, read instead of it (nil: the log is there).
	newLog *newLog
}

// logArg is the log open reads: the stand-in for a missing one, or the layout's ("").
func (so salvageOptions) logArg() string {
	if so.newLog != nil {
		return so.newLog.path()
	}
	return ""
}

// damagedCheckpointRecord finds, in a MariaDB 10.8+ log whose checkpoint LSN is where its
// FILE_CHECKPOINT record was written (the checkpoint block's end LSN), a first mini-transaction
// that fails its checksum and is followed, exactly FileCheckpointMTRSize bytes on, by a whole
// one: the damaged bytes are the FILE_CHECKPOINT mini-transaction the server wrote there, and
// nothing else. The server refuses such a log ("Missing FILE_CHECKPOINT"); the rest of it can
// be replayed as it is. nil: not this case.
func damagedCheckpointRecord(s discovery.Layout) *logcheck.Damage {
	l, err := analysis.OpenLog(s, "")
	if err != nil {
		return nil // open says why
	}
	defer l.Close()
	v := l.V108()
	cp, ok := l.Checkpoint()
	if v == nil || !ok || cp.EndLSN != cp.LSN { // not that case: no scan
		return nil
	}
	reason, _, bad := v.Scan(cp.LSN, logformat.ScanOptions{PageSize: l.PageSize}).FirstFault()
	if !bad {
		return nil
	}
	d, err := logcheck.Damaged(v, reason, cp.LSN, l.PageSize)
	if err != nil || !d.CheckpointRecordOnly(reason, cp) {
		return nil
	}
	return d
}

// planSalvage plans the salvage of the source (PlanSalvage, with the records each lost
// tablespace had). Without salvage, a plan with a refusal is an error naming the salvage that
// would apply, and the plan is dropped.
func planSalvage(s discovery.Layout, l *redo.Log, a *analysis.Analysis, fs []finding.Finding, scan redo.ScanOptions, so salvageOptions, sysTables []discovery.DictTable) (*SalvagePlan, error) {
	into, salvage := so.into, so.salvage
	var dict []discovery.DictTable
	if salvage { // only the salvage relocates what the dictionary alone names (the server starts)
		dict = sysTables
	}
	pl, err := PlanSalvage(SalvageInput{Source: s, PageSize: l.PageSize, Analysis: a, Into: into, Dict: dict, keep: so.keep, log: l.V108()})
	if err != nil {
		return nil, err
	}
	if so.newLog != nil {
		pl.Actions = append(pl.Actions, so.newLog.action())
	}
	if d := so.skipped; d != nil {
		pl.Actions = append(pl.Actions, SalvageAction{Action: SalvageCheckpointSkipped, File: l.Path, LSN: d.At, EndLSN: d.Resume, refused: true,
			Detail: fmt.Sprintf("the mini-transaction at LSN %d-%d, where recovery starts and the checkpoint block says its FILE_CHECKPOINT record is, fails its checksum; "+
				"it is %d bytes, the size of that record's mini-transaction alone, and whole ones follow: the replay starts after it at LSN %d, nothing is lost",
				d.At, d.Resume, d.Resume-d.At, d.Resume)})
	}
	for _, f := range fs {
		if f.Code == "MISSING_FILE_CHECKPOINT" {
			pl.Notes = append(pl.Notes, fmt.Sprintf("%s: %s; salvage replays the log from the checkpoint LSN: a tablespace without a file record after it is the one file on disk carrying its id (two such files are refused)", f.File, f.Message))
		}
		if f.Code != "LOG_DAMAGED" || f.LSN == nil {
			continue
		}
		if !salvage && f.Severity != finding.Error {
			continue // past the end the checkpoint promises: recovery stops at the damage, as the server's does
		}
		if *f.LSN <= a.Map.FromLSN {
			return nil, fmt.Errorf("%s: %s; the damage is where recovery starts (LSN %d): nothing can be recovered before it, no salvage", f.File, f.Message, a.Map.FromLSN)
		}
		d, err := logcheck.DamagedAt(l.V108(), *f.LSN, l.PageSize)
		if err != nil || d == nil {
			return nil, fmt.Errorf("%s: the damage at LSN %d: %v", l.Path, *f.LSN, err)
		}
		pl.Actions = append(pl.Actions, SalvageAction{Action: SalvageLogTruncated, File: l.Path, LSN: d.At, EndLSN: d.End,
			Pages: d.Pages, Records: d.Records, refused: f.Severity == finding.Error,
			Detail: fmt.Sprintf("recovery stops at LSN %d, the end of the last whole mini-transaction before the damage; LSN %d-%d (%d bytes, %d whole mini-transactions after the damaged one, %d records on %d pages) are lost",
				d.At, d.At, d.End, d.Bytes(), d.MTRs, d.Records, d.Pages)})
		if err := pl.quarantineAhead(s, d.At, into); err != nil {
			return nil, err
		}
	}
	if pl.Lost() {
		sc, _, err := l.Scanner(scan)
		if err != nil {
			return nil, err
		}
		n, err := CountRecords(sc)
		if err != nil {
			return nil, err
		}
		pl.SetRecords(n)
	}
	if !salvage {
		return nil, pl.Refusal(so.salvageWord())
	}
	for _, a := range pl.Actions {
		if a.from == "" || a.relocates() || into == "" {
			continue
		}
		if _, err := os.Lstat(a.MovedTo); err == nil {
			return nil, fmt.Errorf("%s exists (left by an earlier salvage?): the salvage would move %s there; remove it first", a.MovedTo, a.File)
		}
	}
	return pl, nil
}

// CountRecords reads sc to its end and counts the page records of each tablespace (what a
// salvage that skips a tablespace declares lost).
func CountRecords(sc *logformat.Scanner) (map[uint32]int, error) {
	n := map[uint32]int{}
	for sc.Next() {
		for _, r := range sc.MTR().Records {
			if r.Type < logformat.FileCreate && r.Type != logformat.Padding {
				n[r.Space]++
			}
		}
	}
	return n, sc.Err()
}

// ApplyToCopy does the plan's file moves in a copy that has just been made: files relocated to
// the name the log gives their tablespace, quarantined and duplicate files moved (unchanged)
// out of the copy. copyPath maps a source file or a log name to its path in the copy.
func (p *SalvagePlan) ApplyToCopy(copyPath func(string) string) error {
	if p == nil {
		return nil
	}
	type move struct{ from, tmp, to string }
	var moves []move
	for i, a := range p.Actions {
		if a.from == "" {
			continue
		}
		from := copyPath(a.from)
		to := a.MovedTo
		if a.relocates() {
			to = copyPath(a.to)
		}
		// Every file leaves its place before any arrives (two files swapped).
		tmp := fmt.Sprintf("%s.innoscope-salvage-%d", from, i)
		if err := os.Rename(from, tmp); err != nil {
			return fmt.Errorf("salvage: %w", err)
		}
		moves = append(moves, move{from, tmp, to})
	}
	for _, m := range moves {
		if err := os.MkdirAll(filepath.Dir(m.to), 0o750); err != nil {
			return fmt.Errorf("salvage: %w", err)
		}
		if _, err := os.Lstat(m.to); err == nil {
			return fmt.Errorf("salvage: cannot move %s to %s: the target exists", m.from, m.to)
		}
		if err := os.Rename(m.tmp, m.to); err != nil {
			return fmt.Errorf("salvage: moving %s to %s: %w", m.from, m.to, err)
		}
	}
	return nil
}

// SetRecords fills in the records each lost tablespace had in the log (CountRecords).
func (p *SalvagePlan) SetRecords(n map[uint32]int) {
	for i := range p.Actions {
		if a := &p.Actions[i]; a.SpaceID != nil && (a.Action == SalvageSkippedRecords || a.Action == SalvageQuarantined) {
			a.Records = n[*a.SpaceID]
		}
	}
}

// SkipSet is RecoverOptions.Skip for the plan (nil for no plan).
func (p *SalvagePlan) SkipSet() map[uint32]bool {
	if p == nil {
		return nil
	}
	return p.Skip
}

// salvageable reports a finding that refuses recovery and that a salvage repairs or cuts the
// losses of: a damaged log (log_truncated), a missing FILE_CHECKPOINT (the files on disk).
func salvageable(code string) bool {
	return code == "LOG_DAMAGED" || code == "MISSING_FILE_CHECKPOINT"
}

// salvageWord is how a refusal names the salvage: recover's flag, or so.advice.
func (so salvageOptions) salvageWord() string {
	if so.advice == "" {
		return "--salvage"
	}
	return so.advice
}

// SalvageAdvice is how verify's REPLAY_FAILED names the salvage of datadir: verify has no
// --salvage, recover has.
func SalvageAdvice(datadir string) string {
	return "`innoscope recover --salvage " + datadir + " --into COPY`"
}

// salvageHint is what a refusal for the finding code of s says the salvage (named by) would do.
func salvageHint(s discovery.Layout, code, by string) string {
	if code != "MISSING_FILE_CHECKPOINT" {
		return ""
	}
	if d := damagedCheckpointRecord(s); d != nil {
		return fmt.Sprintf("; the damaged bytes are that record's mini-transaction alone: %s would replay the %d whole mini-transactions after it, from LSN %d, and lose nothing", by, d.MTRs, d.Resume)
	}
	return "; " + by + " would replay the log from the checkpoint LSN, binding a tablespace that has no file record after it to the one file on disk carrying its id"
}

// quarantineAhead makes recovery up to lsn a consistent point: a file holding pages written
// after lsn (their changes are in the part of the log that is lost) is quarantined, or, for the
// system and undo tablespaces, the salvage is refused.
func (p *SalvagePlan) quarantineAhead(s discovery.Layout, lsn uint64, into string) error {
	ts, err := discovery.Scan(s)
	if err != nil {
		return err
	}
	moved := map[string]bool{}
	for _, a := range p.Actions {
		moved[a.from] = true
	}
	if into == "" {
		into = "COPY"
	}
	for _, t := range ts {
		if t.Error != "" || t.FoundBy == discovery.FoundTemporary {
			continue
		}
		f, err := discovery.OpenFile(t.Path)
		if err != nil {
			return err
		}
		r, err := discovery.Inspect(f, discovery.InspectOptions{Verify: true, To: -1, FutureLSN: lsn})
		f.Close()
		if err != nil {
			return err
		}
		if len(r.Future) == 0 {
			continue
		}
		why := fmt.Sprintf("%s: %d pages carry LSNs after LSN %d, where recovery of the damaged log stops (page %d; largest LSN %d): they hold changes of the part of the log that is lost",
			t.Path, len(r.Future), lsn, r.Future[0], r.MaxLSN)
		if t.FoundBy == discovery.FoundSystem || t.FoundBy == discovery.FoundUndo {
			return fmt.Errorf("%s; no salvage for the system or an undo tablespace (recovery up to the damage is not a consistent point)", why)
		}
		path := discovery.ResolvePath(t.Path)
		if moved[path] || p.Skip[t.SpaceID] {
			continue
		}
		p.Skip[t.SpaceID] = true
		p.Actions = append(p.Actions, SalvageAction{Action: SalvageQuarantined, SpaceID: ptr32(t.SpaceID), File: path,
			MovedTo: quarantinePath(into+QuarantineSuffix, s.Datadir, path), Pages: len(r.Future), refused: true, from: path,
			Detail: why})
	}
	return nil
}

// readDict is SYS_TABLES of s, nil when it cannot be read.
func readDict(s discovery.Layout) ([]discovery.DictTable, error) {
	sys, err := discovery.OpenFile(filepath.Join(s.SystemFile()))
	if err != nil {
		return nil, err
	}
	defer sys.Close()
	return discovery.ReadDictTables(sys)
}

// page0Hint names the salvage (by) in a refusal for a torn page 0 (analysis.Page0Refusal) of a
// tablespace other than the system one: the salvage quarantines it.
func page0Hint(s discovery.Layout, err error, by string) error {
	if err == nil || strings.HasPrefix(err.Error(), filepath.Join(s.SystemFile())+":") {
		return err
	}
	return fmt.Errorf("%w; %s would quarantine the file (moved unchanged to COPY%s/) and skip its records", err, by, QuarantineSuffix)
}
