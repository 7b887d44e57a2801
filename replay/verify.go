package replay

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/logformat/redo"
)

// Verification is what Verify found: the diagnosis's findings and those of the replay and of
// the replayed copy (REPLAY_FAILED, COPY_CORRUPT_PAGE, COPY_PAGE_AHEAD_OF_LOG,
// COPY_LOG_NOT_CLEAN). OK: no finding is at or above FailOn (error unless Judge says otherwise),
// the rule of the exit status.
type Verification struct {
	OK            bool   `json:"ok"`
	FailOn        string `json:"fail_on"` // the severity OK was judged by: info, warning, error or none
	Datadir       string `json:"datadir"`
	CheckpointLSN uint64 `json:"checkpoint_lsn"`
	EndLSN        uint64 `json:"end_lsn"`
	// Replay is what became of the replay: "done", "refused" (before anything was copied:
	// what the server refuses, or innoscope cannot replay), or "failed" (while it ran);
	// ReplayError says why when not done. The LSN range is the log's either way; the page
	// counts are 0 unless done.
	Replay        string `json:"replay"`
	ReplayError   string `json:"replay_error,omitempty"`
	PagesApplied  int    `json:"pages_applied"`
	PagesVerified int64  `json:"pages_verified"` // pages of the copy checked
	Copy          string `json:"copy,omitempty"` // the kept copy
	// StartCommand starts mariadbd on the kept copy (the caller clears it for a temporary one).
	StartCommand string            `json:"start_command,omitempty"`
	Findings     []finding.Finding `json:"findings"`
	// Outcome is the diagnosis's forecast of the server's recovery (pages, rollback), which the
	// verdict line states as diagnose does.
	Outcome finding.Outcome `json:"-"`
}

// Verify diagnoses the data directory laid out as s (opt: the diagnosis's options), replays
// its recovery into run.Target (a new directory) and checks every page of the copy and its log.
// It returns an error only when it could not run (CouldNotRun); a recovery that fails is the
// finding REPLAY_FAILED.
func Verify(s discovery.Layout, opt analysis.Options, run RunOptions) (*Verification, error) {
	d, err := analysis.Run(s, opt)
	if err != nil {
		return nil, err
	}
	v := &Verification{Datadir: d.Layout.Datadir, CheckpointLSN: d.CheckpointLSN, EndLSN: d.Analysis.Map.EndLSN, Findings: d.Findings,
		Outcome: d.Outcome()}
	end := v.EndLSN
	fail := func(code, file, msg string) {
		v.Findings = append(v.Findings, finding.Finding{Severity: finding.Error, Code: code, File: file, LSN: &end, Message: msg})
	}
	// verify has no --salvage: a refusal names recover's
	if p, err := openDiagnosed(d, opt.Scan, salvageOptions{advice: SalvageAdvice(d.Layout.Datadir)}); IsUnsupported(err) {
		return nil, notReplayed(d.Layout.Datadir, err)
	} else if err != nil {
		v.Replay, v.ReplayError = "refused", err.Error()
		fail("REPLAY_FAILED", d.Layout.Datadir, "recovery cannot be replayed: "+err.Error())
	} else {
		o, err := p.Run(run)
		p.Close()
		if IsUnsupported(err) {
			return nil, notReplayed(d.Layout.Datadir, err)
		} else if err != nil && CouldNotRun(err) {
			return nil, err
		} else if err != nil {
			v.Replay, v.ReplayError = "failed", err.Error()
			fail("REPLAY_FAILED", run.Target, err.Error())
		} else {
			v.Replay = "done"
			v.StartCommand = ServerCommand(run.Target, p.Layout, p.Log.PageSize)
			v.PagesApplied = o.Result.PagesApplied
			v.PagesVerified = CheckCopy(run.Target, d.Layout, o.Result.EndLSN, fail)
		}
	}
	v.Judge("error")
	return v, nil
}

// Judge sets OK by the severity failOn (info, warning, error or none, as --fail-on): OK when no
// finding is at or above it, the rule by which the command's exit status is 0.
func (v *Verification) Judge(failOn string) error {
	level, err := finding.ParseSeverity(failOn)
	if err != nil {
		return err
	}
	w, any := finding.Worst(v.Findings)
	v.OK, v.FailOn = !any || w < level, strings.ToLower(failOn)
	return nil
}

// notReplayed is verify's error when the replay is beyond innoscope: it could not check the
// recovery, which says nothing of what the server will do.
func notReplayed(datadir string, err error) error {
	return fmt.Errorf("%s: cannot verify: %w (this is a limit of innoscope, not a refusal by the server: `innoscope diagnose` says what the server will do)", datadir, err)
}

// CouldNotRun tells an error of the machine (the copy's directory refused, no space left, a
// read-only or failing file system, no permission, no memory) from a failure of the data.
func CouldNotRun(err error) bool {
	var te TargetError
	if errors.As(err, &te) {
		return true
	}
	for _, e := range []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT, syscall.EROFS, syscall.EIO, syscall.EACCES,
		syscall.EPERM, syscall.EMFILE, syscall.ENFILE, syscall.ENOMEM, syscall.EFBIG} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// CheckCopy checks a replayed copy in dir of the source laid out as src: its log leaves nothing
// to recover and every page of every datafile is valid and not newer than the end of the log;
// each fault is passed to fail. It returns the pages checked.
func CheckCopy(dir string, src discovery.Layout, endLSN uint64, fail func(code, file, msg string)) int64 {
	cp := &Copy{Source: src, Target: dir}
	logPath := cp.LogPath()
	if cpLSN, end, err := redo.Ends(logPath); err != nil {
		fail("COPY_LOG_NOT_CLEAN", logPath, err.Error())
	} else if cpLSN != endLSN || end != cpLSN+16 {
		fail("COPY_LOG_NOT_CLEAN", logPath, fmt.Sprintf("checkpoint %d, end of log %d: the server would run crash recovery", cpLSN, end))
	}
	ts, err := discovery.Scan(cp.Layout())
	if err != nil {
		fail("COPY_CORRUPT_PAGE", dir, err.Error())
		return 0
	}
	var pages int64
	for _, t := range ts {
		if t.FoundBy == discovery.FoundTemporary || analysis.StaleISL(t) {
			continue
		}
		f, err := discovery.OpenFile(t.Path)
		if err != nil {
			fail("COPY_CORRUPT_PAGE", t.Path, err.Error())
			continue
		}
		r, err := discovery.Inspect(f, discovery.InspectOptions{Verify: true, To: -1, FutureLSN: endLSN})
		f.Close()
		if err != nil {
			fail("COPY_CORRUPT_PAGE", t.Path, err.Error())
			continue
		}
		pages += r.Pages
		name := t.Path // named as in the source where the copy keeps its place (the copy may be temporary)
		if rel, err := filepath.Rel(dir, t.Path); err == nil && filepath.IsLocal(rel) {
			name = rel
		}
		for _, no := range r.Corrupt {
			fail("COPY_CORRUPT_PAGE", t.Path, fmt.Sprintf("page %d of %s (space %d) in the replayed copy: %s", no, name, t.SpaceID, r.Reasons[no]))
		}
		if len(r.Future) > 0 {
			fail("COPY_PAGE_AHEAD_OF_LOG", t.Path, fmt.Sprintf("%d pages newer than the end of the log (first: page %d)", len(r.Future), r.Future[0]))
		}
	}
	return pages
}

// CheckScratch refuses, before anything is created, a scratch directory tmp ("": the system
// temporary directory) inside a place the source laid out as s is read from, and a kept copy
// keep ("": none) that overlaps one.
func CheckScratch(s discovery.Layout, tmp, keep string) error {
	src := &Copy{Source: s}
	if tmp == "" {
		tmp = os.TempDir()
	}
	// The temporary copy is made in a new directory inside tmp: tmp may hold the source.
	if loc, how, err := src.Sources().Overlap(tmp); err != nil {
		return fmt.Errorf("--tmpdir %s: %w", tmp, err)
	} else if loc != "" && how != "holds" {
		return discovery.OverlapError("--tmpdir", tmp, loc, how)
	}
	if keep != "" {
		for _, d := range []string{keep, keep + ExternalSuffix} {
			if err := src.CheckOverlap("--keep", d); err != nil {
				return err
			}
		}
	}
	return nil
}
