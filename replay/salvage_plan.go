package replay

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/internal/regular"
	"innoscope/logformat"
)

// Salvage actions: what `recover --salvage` does instead of refusing.
const (
	// SalvageRelocated: a file carrying the space id the log names was elsewhere; it is placed,
	// in the copy, at the name the log gives the tablespace. Nothing is lost.
	SalvageRelocated = "relocated"
	// SalvageSkippedRecords: the tablespace's file is nowhere; its records are not applied (as
	// innodb_force_recovery=1 does) and its dictionary entry is kept.
	SalvageSkippedRecords = "skipped_records"
	// SalvageQuarantined: a page recovery needs is corrupt with no valid doublewrite copy; the
	// whole file is moved unchanged out of the copy and its records are not applied.
	SalvageQuarantined = "quarantined"
	// SalvageLogTruncated: the log is damaged and recovery stops at the last complete
	// mini-transaction before the damage; what follows is lost.
	SalvageLogTruncated = "log_truncated"
	// SalvageIgnoredDuplicate: a second file carries a space id whose file the log or the
	// dictionary names elsewhere; it is moved out of the copy.
	SalvageIgnoredDuplicate = "ignored_duplicate"
	// SalvageCheckpointSkipped: the mini-transaction recovery starts with, which holds the
	// checkpoint's FILE_CHECKPOINT record alone, is damaged; the replay starts after it. Nothing
	// is lost (the server refuses the log: "Missing FILE_CHECKPOINT").
	SalvageCheckpointSkipped = "checkpoint_record_skipped"
)

// SalvageAction is one repair or declared loss of a salvage.
type SalvageAction struct {
	Action  string  `json:"action"`
	SpaceID *uint32 `json:"space_id"`
	// File is the source file (or the name the log gives a missing one).
	File string `json:"file"`
	// MovedTo is where the file is in the copy (relocated) or beside it (quarantined,
	// ignored_duplicate).
	MovedTo string `json:"moved_to,omitempty"`
	LSN     uint64 `json:"lsn,omitempty"`
	EndLSN  uint64 `json:"end_lsn,omitempty"`
	Pages   int    `json:"pages"`
	Records int    `json:"records"`
	Detail  string `json:"detail"`
	// refused: without --salvage, recover (and the server) refuse for this cause.
	refused bool
	// from is the source file moved (relocated, quarantined, ignored_duplicate); to is the log
	// or dictionary name it is moved to (relocated).
	from, to string
}

// Lost reports an action that loses data (everything but a relocation and a skipped
// FILE_CHECKPOINT mini-transaction).
func (a SalvageAction) Lost() bool {
	return a.Action != SalvageRelocated && a.Action != SalvageCheckpointSkipped
}

// SalvagePlan is what a salvage does, decided before anything is copied.
type SalvagePlan struct {
	Actions []SalvageAction
	// Skip are the tablespaces whose records are not applied (skipped_records, quarantined).
	Skip map[uint32]bool
	// Notes say what the salvage relies on where it loses nothing (a missing FILE_CHECKPOINT).
	Notes []string
}

// Lost reports whether any action loses data.
func (p *SalvagePlan) Lost() bool {
	for _, a := range p.Actions {
		if a.Lost() {
			return true
		}
	}
	return false
}

// Refusal is the error recover without --salvage gives for this plan: the first cause the
// server refuses, and what the salvage (named by: "--salvage", or SalvageAdvice) would do about
// each; nil when nothing is refused.
func (p *SalvagePlan) Refusal(by string) error {
	var causes []string
	for _, a := range p.Actions {
		if a.refused {
			causes = append(causes, a.Detail+"; "+by+" would "+a.verb())
		}
	}
	if len(causes) == 0 {
		return nil
	}
	return &SalvageRefusal{Causes: causes}
}

// SalvageRefusal is recover's refusal of a directory the salvage can repair (or cut losses in).
type SalvageRefusal struct{ Causes []string }

func (e *SalvageRefusal) Error() string {
	return strings.Join(e.Causes, "\n") + "\n(nothing was copied)"
}

// verb is what the salvage would do, as a refusal names it.
func (a SalvageAction) verb() string {
	switch a.Action {
	case SalvageRelocated:
		return fmt.Sprintf("relocate %s to %s (nothing lost)", a.File, a.MovedTo)
	case SalvageRelocatedUnproven:
		return fmt.Sprintf("relocate %s to %s, a guess", a.File, a.MovedTo)
	case SalvageSkippedRecords:
		return fmt.Sprintf("skip its %d records on %d pages and keep its dictionary entry", a.Records, a.Pages)
	case SalvageQuarantined:
		return fmt.Sprintf("quarantine %s (moved unchanged to COPY.quarantine/) and skip its %d records on %d pages", a.File, a.Records, a.Pages)
	case SalvageLogTruncated:
		return fmt.Sprintf("recover up to LSN %d and declare LSN %d-%d lost", a.LSN, a.LSN, a.EndLSN)
	}
	return "move " + a.File + " out of the copy"
}

// QuarantineSuffix names the directory beside the copy where quarantined files go (never inside
// the copy: the server takes every subdirectory of its data directory for a database).
const QuarantineSuffix = ".quarantine"

// SalvageInput is what a salvage plan is made from: the source, its log's analysis, its files.
type SalvageInput struct {
	Source   discovery.Layout
	PageSize int
	Analysis *analysis.Analysis
	// Records counts the page records per tablespace (CountRecords).
	Records map[uint32]int
	// Into is the copy (for the paths the plan names; "" in a dry run without --into).
	Into string
	// Dict is SYS_TABLES of the source (nil: unreadable): a table the log does not name is
	// expected at its dictionary name.
	Dict []discovery.DictTable
	keep *pageStore // keeps the pages read for the replay (deferred.go)
	// log is the source's MariaDB 10.8+ log, read for the evidence of each relocation (nil:
	// none is read, every relocation is a guess).
	log *logformat.Log
}

// PlanSalvage decides, before anything is copied, what recovery of the source would refuse and
// what a salvage does instead: it binds the log's tablespaces to the source's files as the
// copy's recovery will, and reads every page recovery must read, by the recovery's own code
// (read-only). An error is a refusal no salvage repairs (the system or an undo tablespace, two
// candidate files for one space, an unreadable file).
func PlanSalvage(in SalvageInput) (*SalvagePlan, error) {
	src := in.Source
	path := func(name string) string {
		if filepath.IsAbs(name) {
			return name
		}
		return filepath.Join(src.Datadir, name)
	}
	r := &recovery{opt: RecoverOptions{Copy: src, PageSize: in.PageSize, Analysis: in.Analysis, CopyPath: path},
		an: in.Analysis, spaces: map[uint32]*tsFile{}, cache: map[analysis.PageID]*cached{},
		written: map[analysis.PageID]bool{}, applied: map[analysis.PageID]bool{}, readOnly: true, keep: in.keep}
	defer r.closeAll()
	if err := r.openSpaces(); err != nil {
		return nil, err
	}
	pl := &SalvagePlan{Skip: map[uint32]bool{}}
	pages := map[uint32]int{}
	for id := range in.Analysis.Pages {
		if !in.Analysis.Freed[id] {
			pages[id.Space]++
		}
	}
	ids := make([]uint32, 0, len(pages))
	for id := range pages {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	into := in.Into
	if into == "" {
		into = "COPY"
	}
	quarantineDir := into + QuarantineSuffix
	taken := map[string]bool{} // source files a relocation moves
	for _, id := range ids {
		logged := in.Analysis.Map.Spaces[id]
		if id == 0 || (logged != nil && logged.Deleted) || r.creates(id, logged) {
			continue
		}
		if b, ok := r.bound[id]; ok && b.Deferred && logged != nil {
			zerr, err := r.zeroPage0(id, b.Path)
			if err != nil {
				return nil, err
			}
			if zerr != nil { // page 0 torn, and the log reads pages of it: the server refuses
				p := discovery.ResolvePath(b.Path)
				taken[p] = true
				pl.Skip[id] = true
				pl.Actions = append(pl.Actions, SalvageAction{Action: SalvageQuarantined, SpaceID: ptr32(id), File: p,
					MovedTo: quarantinePath(quarantineDir, src.Datadir, p), Pages: pages[id], Records: in.Records[id],
					refused: true, from: p, Detail: zerr.Error()})
				continue
			}
		}
		_, err := r.space(id)
		var missing *MissingError
		if !errors.As(err, &missing) {
			if err != nil {
				return nil, err
			}
			continue
		}
		if logged == nil {
			return nil, fmt.Errorf("%w; no salvage for an undo tablespace (its undo logs are needed to roll back)", err)
		}
		cands := r.found[id]
		switch len(cands) {
		case 0:
			pl.Skip[id] = true
			pl.Actions = append(pl.Actions, SalvageAction{Action: SalvageSkippedRecords, SpaceID: ptr32(id), File: path(logged.Name),
				Pages: pages[id], Records: in.Records[id], refused: true,
				Detail: fmt.Sprintf("tablespace %d (%s) is missing: the log changes it and no file carries its id", id, logged.Name)})
		case 1:
			to := path(logged.Name)
			if !filepath.IsAbs(logged.Name) {
				to = filepath.Join(into, logged.Name)
			}
			taken[cands[0]] = true
			pl.Actions = append(pl.Actions, SalvageAction{Action: SalvageRelocated, SpaceID: ptr32(id), File: cands[0],
				MovedTo: to, refused: true, from: cands[0], to: logged.Name,
				Detail: fmt.Sprintf("tablespace %d is not at %s, where the log names it: %s carries its id", id, logged.Name, cands[0])})
			r.bound[id] = analysis.Binding{Name: logged.Name, Path: cands[0]}
		default:
			return nil, fmt.Errorf("tablespace %d, which the log names %s, is not there and %d files carry its id: %s; nothing decides between them: salvage refuses (keep the right one, move the others away)",
				id, logged.Name, len(cands), strings.Join(cands, " and "))
		}
	}
	r.planDictionary(pl, in.Dict, path, into, taken)
	if err := r.checkRelocations(pl, in.log); err != nil {
		return nil, err
	}
	// A file a relocation displaces from its place, and that nothing relocates in turn,
	// would stand in for the tablespace named there: it leaves the copy.
	for _, a := range pl.Actions {
		if !a.relocates() {
			continue
		}
		occ := discovery.ResolvePath(path(a.to))
		if taken[occ] || !isRegular(occ) {
			continue
		}
		st, _ := pageZero(occ, in.PageSize)
		taken[occ] = true
		pl.Actions = append(pl.Actions, SalvageAction{Action: SalvageIgnoredDuplicate, SpaceID: ptr32(st.SpaceID), File: occ,
			MovedTo: quarantinePath(quarantineDir, src.Datadir, occ), from: occ,
			Detail: fmt.Sprintf("%s carries space %d, not the tablespace the log names there", occ, st.SpaceID)})
	}
	if err := r.planCorrupt(pl, pages, in.Records, quarantineDir, taken); err != nil {
		return nil, err
	}
	r.planDuplicates(pl, quarantineDir, taken)
	return pl, nil
}

// creates mirrors createSpace: a tablespace the log creates and whose page 0 it rebuilds is
// created by recovery when its file is missing.
func (r *recovery) creates(id uint32, logged *analysis.Space) bool {
	if logged == nil || r.an.Pages[analysis.PageID{Space: id, Page: 0}] {
		return false
	}
	for _, e := range logged.Events {
		if e.Kind == analysis.Create {
			return true
		}
	}
	return false
}

// quarantinePath is where a source file p goes in the quarantine directory q: its place
// relative to the data directory (or its absolute path, for a file outside it).
func quarantinePath(q, datadir, p string) string {
	if rel, err := filepath.Rel(discovery.ResolvePath(datadir), p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.Join(q, rel)
	}
	return filepath.Join(q, "external", filepath.Clean(p))
}

// planCorrupt reads every page recovery must read from its file (by the recovery's own read:
// a torn page is taken from the doublewrite buffer); a tablespace with a page that is corrupt
// and has no valid doublewrite copy, or that lies beyond the end of a file cut short, is
// quarantined, or refused for the system and undo tablespaces.
func (r *recovery) planCorrupt(pl *SalvagePlan, pages map[uint32]int, records map[uint32]int, q string, taken map[string]bool) error {
	need := make([]analysis.PageID, 0, len(r.an.Pages))
	for id, read := range r.an.Pages {
		if read && !r.an.Freed[id] && !pl.Skip[id.Space] {
			if _, trimmed := r.an.Trims[id.Space]; !trimmed {
				need = append(need, id)
			}
		}
	}
	sort.Slice(need, func(i, j int) bool {
		if need[i].Space != need[j].Space {
			return need[i].Space < need[j].Space
		}
		return need[i].Page < need[j].Page
	})
	bad := map[uint32]bool{}
	for _, id := range need {
		if bad[id.Space] {
			continue
		}
		if s := r.an.Map.Spaces[id.Space]; s != nil && s.Deleted {
			continue
		}
		t, err := r.space(id.Space)
		if err != nil {
			var missing *MissingError
			if errors.As(err, &missing) {
				continue // created by recovery, or refused by the copy's recovery with its reason
			}
			return err
		}
		if t == nil {
			continue
		}
		err = r.read(&cached{ts: t, no: id.Page}, id)
		if err == nil {
			continue
		}
		var cut *TruncatedError
		if !errors.As(err, &cut) {
			img, rerr := t.read(id.Page)
			if rerr != nil || !t.flagsSet || !discovery.CheckPage(img, t.flags, id.Page, id.Space).Corrupt {
				return err
			}
		}
		if id.Space == 0 || r.an.Map.Spaces[id.Space] == nil {
			return fmt.Errorf("%w; no salvage for the system or an undo tablespace", err)
		}
		bad[id.Space] = true
		p := discovery.ResolvePath(t.path)
		taken[p] = true
		pl.Skip[id.Space] = true
		pl.Actions = append(pl.Actions, SalvageAction{Action: SalvageQuarantined, SpaceID: ptr32(id.Space), File: p,
			MovedTo: quarantinePath(q, r.opt.Copy.Datadir, p), Pages: pages[id.Space], Records: records[id.Space],
			refused: true, from: p, Detail: err.Error()})
	}
	return nil
}

// planDuplicates moves out of the copy every other file carrying the id of a tablespace bound
// to its file (the one the log names wins).
func (r *recovery) planDuplicates(pl *SalvagePlan, q string, taken map[string]bool) {
	ids := make([]uint32, 0, len(r.found))
	for id := range r.found {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		b, ok := r.bound[id]
		if !ok || len(r.found[id]) < 2 || pl.Skip[id] {
			continue
		}
		keep := discovery.ResolvePath(b.Path)
		for _, f := range r.found[id] {
			if f == keep || taken[f] {
				continue
			}
			taken[f] = true
			pl.Actions = append(pl.Actions, SalvageAction{Action: SalvageIgnoredDuplicate, SpaceID: ptr32(id), File: f,
				MovedTo: quarantinePath(q, r.opt.Copy.Datadir, f), from: f,
				Detail: fmt.Sprintf("%s carries space %d too; the log names %s", f, id, b.Path)})
		}
	}
}

func ptr32(v uint32) *uint32 { return &v }

// isRegular reports whether p is a regular file (following links).
func isRegular(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// planDictionary relocates the files of tables the log does not name: a table whose file at its
// dictionary name is absent or carries another space id, while exactly one file on disk carries
// its id, gets that file. The server starts without it (the table is unusable), so plain recover
// does not refuse this; the salvage repairs it. A DATA DIRECTORY table without its .isl (RENAME
// TABLE to another database under the same name writes none: crash-sweep seed 12721) is looked
// for at the same ./db/t.ibd, so its file goes there too.
func (r *recovery) planDictionary(pl *SalvagePlan, dict []discovery.DictTable, path func(string) string, into string, taken map[string]bool) {
	named := map[string]bool{} // names the log gives some tablespace (they supersede the dictionary)
	for _, s := range r.an.Map.Spaces {
		for _, n := range s.Names {
			named[discovery.ResolvePath(path(n))] = true
		}
	}
	for _, t := range dict {
		if t.Deleted || t.SpaceID == 0 || strings.HasPrefix(t.Name, "SYS_") || strings.Contains(t.Name, "#sql") ||
			r.an.Map.Spaces[t.SpaceID] != nil || pl.Skip[t.SpaceID] {
			continue
		}
		if _, err := os.Lstat(path("./" + t.Name + ".isl")); t.DataDir() && !errors.Is(err, fs.ErrNotExist) {
			continue // the link says where the file is
		}
		name := "./" + t.Name + ".ibd"
		want := discovery.ResolvePath(path(name))
		if named[want] {
			continue
		}
		if st, _ := pageZero(want, r.opt.PageSize); st.Exists && (st.Deferred || st.SpaceID == t.SpaceID) {
			continue
		}
		cands := r.found[t.SpaceID]
		if len(cands) != 1 || cands[0] == want || taken[cands[0]] {
			continue
		}
		taken[cands[0]] = true
		pl.Actions = append(pl.Actions, SalvageAction{Action: SalvageRelocated, SpaceID: ptr32(t.SpaceID), File: cands[0],
			MovedTo: filepath.Join(into, name), from: cands[0], to: name,
			Detail: fmt.Sprintf("table %s (space %d) is not at %s, where the dictionary names it: %s carries its id", t.Name, t.SpaceID, name, cands[0])})
	}
}

// zeroPage0 is the refusal of the file p of tablespace id when its page 0 is blank, the log does
// not rebuild it and must read other pages of it, and the doublewrite buffer has no copy of it
// (zeroPage0Of); nil when there is none.
func (r *recovery) zeroPage0(id uint32, p string) (refusal, err error) {
	f, err := regular.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	_, refusal = r.zeroPage0Of(id, p, f)
	return refusal, nil
}
