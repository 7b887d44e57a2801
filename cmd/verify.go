package cmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/urfave/cli/v2"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/logformat/redo"
	"innoscope/replay"
	"innoscope/report"
)

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:  "verify",
		Usage: "CI gate: diagnose, replay recovery into a temporary copy, validate every page of the copy",
		Description: "Exit 0 when recovery would succeed and the replayed copy validates, 1 when a finding is at or\n" +
			"above --fail-on (the diagnosis's, REPLAY_FAILED, COPY_CORRUPT_PAGE, COPY_PAGE_AHEAD_OF_LOG,\n" +
			"COPY_LOG_NOT_CLEAN), 2 when it could not run. The source is never written.",
		ArgsUsage: "DIR",
		Flags: dirFlags(
			&cli.StringFlag{Name: "policy", Value: "mariadb", Usage: "location rules for the diagnosis: mariadb or mysql8"},
			&cli.BoolFlag{Name: "skip-pages", Usage: "the diagnosis reads only page 0 of each source file (the copy is still verified page by page)"},
			&cli.StringFlag{Name: "tmpdir", Usage: "where the temporary copy goes (default: the system temporary directory)"},
			&cli.StringFlag{Name: "keep", Usage: "keep the replayed copy in this new directory instead of a temporary one"},
			allowLiveFlag),
		Action: verifyAction,
	}
}

// verifyJSON is the --json form of `verify`.
type verifyJSON struct {
	OK            bool             `json:"ok"`
	Datadir       string           `json:"datadir"`
	CheckpointLSN uint64           `json:"checkpoint_lsn"`
	EndLSN        uint64           `json:"end_lsn"`
	PagesApplied  int              `json:"pages_applied"`
	PagesVerified int64            `json:"pages_verified"` // pages of the copy checked
	Copy          string           `json:"copy,omitempty"` // with --keep
	Findings      []report.Finding `json:"findings"`
}

func verifyAction(c *cli.Context) error {
	if c.NArg() != 1 && !c.IsSet("datadir") && !c.IsSet("defaults-file") {
		return fmt.Errorf("expected one DIR argument")
	}
	pol := analysis.Policy(c.String("policy"))
	if pol != analysis.PolicyMariaDB && pol != analysis.PolicyMySQL8 {
		return fmt.Errorf("--policy %q: want mariadb or mysql8", pol)
	}
	s, err := loadSettings(c, c.Args().First())
	if err != nil {
		return err
	}
	if err := refuseLive(c, s); err != nil {
		return err
	}
	if err := checkVerifyDirs(c, s); err != nil {
		return err
	}
	d, err := runDiagnosis(c, pol, c.Bool("skip-pages"))
	if err != nil {
		return err
	}
	j := verifyJSON{Datadir: d.settings.Datadir, CheckpointLSN: d.cpLSN, EndLSN: d.an.Map.EndLSN, Findings: d.findings}
	end := j.EndLSN
	fail := func(code, file, msg string) {
		j.Findings = append(j.Findings, report.Finding{Severity: report.Error, Code: code, File: file, LSN: &end, Message: msg})
	}
	target := absFlag(c, "keep")
	if target == "" {
		tmp, err := os.MkdirTemp(absFlag(c, "tmpdir"), "innoscope-verify-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp) // the copy and its .external directory
		defer onInterrupt(func() string {
			if err := removeAll(tmp); err != nil {
				return fmt.Sprintf("the temporary copy %s could not be removed: %v", tmp, err)
			}
			return fmt.Sprintf("the temporary copy %s was removed", tmp)
		})()
		target = filepath.Join(tmp, "copy")
	} else {
		j.Copy = target
	}
	if p, err := prepareRecovery(c); err != nil {
		fail("REPLAY_FAILED", d.settings.Datadir, "recovery cannot be replayed: "+err.Error())
	} else {
		o, err := p.run(target, "", false, 512<<20)
		p.log.Close()
		if err != nil && couldNotRun(err) {
			return err
		} else if err != nil {
			fail("REPLAY_FAILED", target, err.Error())
		} else {
			j.PagesApplied = o.result.PagesApplied
			j.PagesVerified = verifyCopy(target, d.settings, o.result.EndLSN, fail)
		}
	}
	j.OK = true
	for _, f := range j.Findings {
		if f.Severity == report.Error {
			j.OK = false
		}
	}
	out := report.New(c.App.Writer, c.Bool("json"))
	defer out.Flush()
	if out.JSON {
		j.Findings = orEmpty(j.Findings)
		return writeJSON(c, out, j, j.Findings)
	}
	if len(j.Findings) > 0 {
		if err := out.Findings(j.Findings); err != nil {
			return err
		}
	}
	verdict := out.Paint(report.Good, "OK")
	if !j.OK {
		verdict = out.Paint(report.Bad, "FAILED")
	}
	fmt.Fprintf(out.Writer(), "%s: %s: replayed %d..%d, %d pages applied, %d pages of the copy verified\n",
		j.Datadir, verdict, j.CheckpointLSN, j.EndLSN, j.PagesApplied, j.PagesVerified)
	return finish(c, j.Findings)
}

// checkVerifyDirs refuses, before anything is created, a --tmpdir (or the system temporary
// directory) inside a place the source is read from, and a --keep that overlaps one.
func checkVerifyDirs(c *cli.Context, s discovery.Layout) error {
	src := &replay.Copy{Source: s}
	tmp := c.String("tmpdir")
	if tmp == "" {
		tmp = os.TempDir()
	}
	if loc := src.Inside(tmp); loc != "" {
		return fmt.Errorf("--tmpdir %s is inside %s, which the source is read from: the temporary copy must be elsewhere", tmp, loc)
	}
	if k := c.String("keep"); k != "" {
		for _, d := range []string{k, k + replay.ExternalSuffix} {
			if err := src.CheckOverlap("--keep", d); err != nil {
				return err
			}
		}
	}
	return nil
}

// couldNotRun tells an error of the machine (the copy's directory refused, no space left, a
// read-only or failing file system, no permission, no memory) from a failure of the data: verify
// exits 2 for the first (it could not run), and reports the second as REPLAY_FAILED.
func couldNotRun(err error) bool {
	var te targetError
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

// verifyCopy checks a replayed copy: its log leaves nothing to recover and every page of every
// datafile is valid and not newer than the end of the log. It returns the pages checked.
func verifyCopy(dir string, src discovery.Layout, endLSN uint64, fail func(code, file, msg string)) int64 {
	cp := &replay.Copy{Source: src, Target: dir}
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
		for _, no := range r.Corrupt {
			fail("COPY_CORRUPT_PAGE", t.Path, fmt.Sprintf("page %d of the replayed copy: %s", no, r.Reasons[no]))
		}
		if len(r.Future) > 0 {
			fail("COPY_PAGE_AHEAD_OF_LOG", t.Path, fmt.Sprintf("%d pages newer than the end of the log (first: page %d)", len(r.Future), r.Future[0]))
		}
	}
	return pages
}
