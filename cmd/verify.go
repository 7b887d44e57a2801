package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/urfave/cli/v2"

	"innoscope/analysis"
	"innoscope/finding"
	"innoscope/internal/regular"
	"innoscope/replay"
	"innoscope/report"
	"innoscope/report/view"
)

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:  "verify",
		Usage: "CI gate: diagnose, replay recovery into a temporary copy, validate every page of the copy",
		Description: "Exit 0 when recovery would succeed and the replayed copy validates, 1 when a finding is at or\n" +
			"above --fail-on (the diagnosis's, REPLAY_FAILED, COPY_CORRUPT_PAGE, COPY_PAGE_AHEAD_OF_LOG,\n" +
			"COPY_LOG_NOT_CLEAN), 2 when it could not run. The outcome printed (OK or FAILED, \"ok\" in JSON)\n" +
			"follows the same rule: with --fail-on info an info finding is FAILED; with --fail-on none\n" +
			"nothing is. The source is never written.",
		ArgsUsage: "DIR",
		Flags: dirFlags(
			&cli.StringFlag{Name: "policy", Value: "mariadb", Usage: "location rules for the diagnosis: mariadb or mysql8"},
			&cli.BoolFlag{Name: "skip-pages", Usage: "the diagnosis reads only page 0 of each source file (the copy is still verified page by page)"},
			&cli.StringFlag{Name: "tmpdir", Usage: "where the temporary copy goes (default: the system temporary directory)"},
			&cli.StringFlag{Name: "keep", Usage: "keep the replayed copy in this new (or empty) directory instead of a temporary one"},
			allowLiveFlag),
		Action: verifyAction,
	}
}

func verifyAction(c *cli.Context) error {
	if err := dirArg(c, "keep"); err != nil {
		return err
	}
	pol := analysis.Policy(c.String("policy"))
	if pol != analysis.PolicyMariaDB && pol != analysis.PolicyMySQL8 {
		return fmt.Errorf("--policy %q: want mariadb or mysql8", pol)
	}
	s, err := loadSettings(c, c.Args().First())
	if err != nil {
		return err
	}
	if err := s.RefuseLogOnly("replay and verify"); err != nil {
		return err
	}
	if err := refuseLive(c, s); err != nil {
		return err
	}
	if err := replay.CheckScratch(s, c.String("tmpdir"), c.String("keep")); err != nil {
		return err
	}
	target := absFlag(c, "keep")
	if target == "" {
		for _, d := range removeStale(absFlag(c, "tmpdir")) {
			fmt.Fprintf(c.App.ErrWriter, "innoscope: note: removed %s, the temporary copy of an earlier verify that was killed\n", d)
		}
		tmp, unlock, err := scratchDir(absFlag(c, "tmpdir"))
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp) // the copy and its .external directory
		defer unlock()
		defer onInterrupt(func() string {
			if err := removeAll(tmp); err != nil {
				return fmt.Sprintf("the temporary copy %s could not be removed: %v", tmp, err)
			}
			return fmt.Sprintf("the temporary copy %s was removed", tmp)
		})()
		target = filepath.Join(tmp, "copy")
	}
	defer onInterrupt(incompleteNote(target, "remove it, or give --keep a new directory"))()
	checking, checked := progress("verifying datafiles")
	applying, applied := progress("applying")
	j, err := replay.Verify(s, analysis.Options{Policy: pol, SkipPages: c.Bool("skip-pages"), Scan: scanOptions(c),
		Undo: replay.RecoveredUndo, Progress: checking}, replay.RunOptions{Target: target, ApplyProgress: applying,
		Flags: replay.TargetFlags{Dir: "--keep"}}) // verify has no --force
	checked()
	applied()
	if err != nil && c.IsSet("keep") { // a temporary copy is removed
		return incompleteError(err, target, "remove it, or give --keep a new directory")
	} else if err != nil {
		return err
	}
	if c.IsSet("keep") {
		j.Copy = target
	} else {
		j.StartCommand = "" // the temporary copy is removed
	}
	if err := j.Judge(c.String("fail-on")); err != nil { // OK/FAILED by the rule of the exit status
		return err
	}
	return show(c, func(out *report.Output) ([]finding.Finding, error) { return j.Findings, view.Verification(out, j) })
}

// verifyLock is the file in verify's temporary directory that the run holds a lock on (flock)
// until it exits: a directory whose lock file nobody holds is what a killed run left.
const verifyLock = "innoscope-verify.lock"

// scratchDir makes verify's temporary directory in tmpdir ("": the system's) and locks it: its
// lock file is locked under a temporary name and renamed into place, so that it never shows
// unlocked while the run lives. unlock releases it.
func scratchDir(tmpdir string) (dir string, unlock func(), err error) {
	dir, err = os.MkdirTemp(tmpdir, "innoscope-verify-")
	if err != nil {
		return "", nil, err
	}
	f, err := os.CreateTemp(dir, verifyLock+".*")
	if err == nil {
		if err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
			err = os.Rename(f.Name(), filepath.Join(dir, verifyLock))
		}
		if err != nil {
			f.Close()
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return dir, func() { f.Close() }, nil
}

// removeStale removes the temporary directories earlier verify runs left in tmpdir ("": the
// system's) when they were killed (SIGKILL, a crash: no clean-up ran): those holding a lock
// file nobody holds. Directories without one (not made by a locking verify) are left alone.
// It returns the directories removed.
func removeStale(tmpdir string) []string {
	if tmpdir == "" {
		tmpdir = os.TempDir()
	}
	dirs, _ := filepath.Glob(filepath.Join(tmpdir, "innoscope-verify-*"))
	var removed []string
	for _, d := range dirs {
		f, err := regular.Open(filepath.Join(d, verifyLock))
		if err != nil {
			continue
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil && os.RemoveAll(d) == nil {
			removed = append(removed, d)
		}
		f.Close()
	}
	return removed
}
