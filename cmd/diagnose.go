package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/logformat"
	"innoscope/logformat/redo"
	"innoscope/replay"
	"innoscope/report"
)

func diagnoseCommand() *cli.Command {
	return &cli.Command{
		Name:      "diagnose",
		Usage:     "all findings: dictionary vs filesystem vs redo log, pages recovery needs, locations",
		ArgsUsage: "DIR",
		Flags: dirFlags(
			&cli.StringFlag{Name: "policy", Value: "mariadb", Usage: "location rules: mariadb (warn) or mysql8 (WL#13065: unprotected and undo-dir datafiles are errors)"},
			&cli.BoolFlag{Name: "skip-pages", Usage: "do not read every page of every datafile (no CORRUPT_PAGE*, FILE_AHEAD_OF_LOG checks): fast on large directories"}),
		Action: diagnoseAction,
	}
}

// diagnoseJSON is the --json form of `diagnose` (schemas/diagnose.schema.json).
type diagnoseJSON struct {
	Datadir       string           `json:"datadir"`
	CheckpointLSN uint64           `json:"checkpoint_lsn"`
	EndLSN        uint64           `json:"end_lsn"`
	Findings      []report.Finding `json:"findings"`
	Summary       map[string]int   `json:"summary"`
	// Dictionary: SYS_TABLES as on disk (changes still in the log are not in it).
	Dictionary []analysis.DictEntry `json:"dictionary"`
}

func diagnoseAction(c *cli.Context) error {
	pol := analysis.Policy(c.String("policy"))
	if pol != analysis.PolicyMariaDB && pol != analysis.PolicyMySQL8 {
		return fmt.Errorf("--policy %q: want mariadb or mysql8", pol)
	}
	if c.NArg() != 1 && !c.IsSet("datadir") && !c.IsSet("defaults-file") {
		return fmt.Errorf("expected one DIR argument")
	}
	d, err := runDiagnosis(c, pol, c.Bool("skip-pages"))
	if err != nil {
		return err
	}
	s, in, fs, sum, cpLSN, a := d.settings, d.in, d.findings, d.summary, d.cpLSN, d.an
	out := report.New(c.App.Writer, c.Bool("json"))
	defer out.Flush()
	if out.JSON {
		dict := analysis.Dictionary(in)
		if dict == nil {
			dict = []analysis.DictEntry{}
		}
		return writeJSON(c, out, diagnoseJSON{Datadir: s.Datadir, CheckpointLSN: cpLSN, EndLSN: a.Map.EndLSN,
			Findings: orEmpty(fs), Summary: sum, Dictionary: dict}, fs)
	}
	if len(fs) > 0 {
		if err := out.Findings(fs); err != nil {
			return err
		}
	}
	where := fmt.Sprintf("checkpoint LSN %d, end of log %d", cpLSN, a.Map.EndLSN)
	if in.Analysis == nil {
		where = "no usable redo log"
	}
	fmt.Fprintf(out.Writer(), "%s: %d errors, %d warnings, %d info (%s)\n",
		s.Datadir, sum["error"], sum["warning"], sum["info"], where)
	return finish(c, fs)
}

// diagnosis is the result of runDiagnosis.
type diagnosis struct {
	settings discovery.Layout
	in       analysis.Input
	findings []report.Finding
	summary  map[string]int
	cpLSN    uint64
	an       *analysis.Analysis
}

// recoveredUndo replays the log from the checkpoint for the system and undo tablespaces, in
// memory, and reads their undo logs and dictionary (replay.RecoveredUndo); nil for a log of
// 512-byte blocks, which diagnose does not replay for this.
func recoveredUndo(c *cli.Context, s discovery.Layout, a *analysis.Analysis, ts []discovery.Tablespace) (*analysis.UndoView, error) {
	r, err := openRedo(c)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if r.V108() == nil {
		return nil, nil
	}
	sc, _, err := r.Scanner(scanOptions(c))
	if err != nil {
		return nil, err
	}
	return replay.RecoveredUndo(sc, replay.RecoverOptions{Copy: s, PageSize: r.PageSize, Analysis: a,
		CopyPath: analysis.SourcePath(s.Datadir)}, ts)
}

// runDiagnosis compares the log, the files, their pages and the dictionary of the command's
// data directory (every finding carries an LSN: its record's, or the end of the log).
func runDiagnosis(c *cli.Context, pol analysis.Policy, skipPages bool) (*diagnosis, error) {
	s, err := loadSettings(c, c.Args().First())
	if err != nil {
		return nil, err
	}
	a, cpLSN, fs, err := analyzeLog(c)
	logged := a // nil: no usable log; the files, pages and dictionary are still diagnosed
	if err != nil {
		fs, a = []report.Finding{logUnreadableFinding(s, err)}, &analysis.Analysis{Map: &analysis.Map{}}
	}
	fs = append(serverFindings(s), fs...)
	ts, err := discovery.Scan(s)
	if err != nil {
		return nil, err
	}
	in := analysis.Input{Datadir: s.Datadir, Analysis: logged, EndLSN: a.Map.EndLSN, Spaces: ts, Policy: pol,
		Pages: map[string]*discovery.Report{}, LogName: logName(s)}
	if sys, err := discovery.OpenFile(filepath.Join(s.SystemFile())); err == nil {
		if in.Dict, err = discovery.ReadDictTables(sys); err != nil {
			fs = append(fs, report.Finding{Severity: report.Warning, Code: "DICTIONARY_UNREADABLE", File: sys.Path,
				Message: "SYS_TABLES could not be read, so only the redo log says which files should exist: " + err.Error()})
		} else if in.Indexes, err = discovery.ReadDictIndexes(sys); err != nil {
			fs = append(fs, report.Finding{Severity: report.Warning, Code: "DICTIONARY_UNREADABLE", File: sys.Path,
				Message: "SYS_INDEXES could not be read: " + err.Error()})
		}
		in.Dblwr, _ = discovery.DoublewriteCopies(sys)
		sys.Close()
	}
	if logged != nil {
		// A file that cannot be opened has its finding from the scan (UNREADABLE_DATAFILE).
		var pathErr *os.PathError
		if in.Undo, err = recoveredUndo(c, s, logged, ts); err != nil && !errors.As(err, &pathErr) {
			fs = append(fs, report.Finding{Severity: report.Info, Code: "UNDO_UNREADABLE", File: s.Datadir,
				Message: "the undo logs as recovery leaves them could not be read, so transactions the crash left uncommitted are not looked at: " + err.Error()})
		}
	}
	prog := report.NewProgress("verifying datafiles", int64(len(ts)))
	if skipPages {
		ts = nil // only page 0 of each file (read by the scan) is looked at
		fs = append(fs, report.Finding{Severity: report.Info, Code: "PAGES_NOT_CHECKED", File: s.Datadir,
			Message: "--skip-pages: datafile pages were not verified, so corrupt pages and pages newer than the log are not reported"})
	}
	for i, t := range ts {
		prog.Set(int64(i))
		if t.Error != "" || t.FoundBy == discovery.FoundTemporary {
			continue // the server deletes and recreates the temporary tablespace at start
		}
		f, err := discovery.OpenFile(t.Path)
		if err != nil {
			continue
		}
		r, err := discovery.Inspect(f, discovery.InspectOptions{Verify: true, To: -1, FutureLSN: a.Map.EndLSN})
		f.Close()
		if err != nil {
			return nil, err
		}
		in.Pages[t.Path] = r
	}
	prog.Done()
	fs = append(fs, analysis.Diagnose(in)...)
	sum := map[string]int{"error": 0, "warning": 0, "info": 0}
	end := a.Map.EndLSN
	for i := range fs {
		sum[fs[i].Severity.String()]++
		if fs[i].LSN == nil && logged != nil {
			fs[i].LSN = &end // the point of the log at which the finding was evaluated
		}
	}
	return &diagnosis{settings: s, in: in, findings: fs, summary: sum, cpLSN: cpLSN, an: a}, nil
}

// logUnreadableFinding is the one finding of a diagnosis whose redo log could not be used
// (absent, unreadable, a format innoscope does not read, no valid checkpoint): the rest of the
// report is made from the files, their pages and the dictionary alone.
func logUnreadableFinding(s discovery.Layout, err error) report.Finding {
	dir := s.LogFileDir()
	file := filepath.Join(dir, "ib_logfile0")
	var fe *logformat.FormatError
	if errors.As(err, &fe) {
		file = fe.File
	}
	msg := "the redo log could not be used, so nothing of it is checked against the files: " + err.Error()
	if _, serr := os.Stat(file); errors.Is(serr, fs.ErrNotExist) && !errors.As(err, &fe) {
		msg += "; MariaDB refuses to start without it (\"File ./ib_logfile0 was not found\")"
	}
	sev := report.Error // the server refuses it too
	if redo.Encrypted(err) {
		sev = report.Warning // the server reads it with its key management plugin
	}
	return report.Finding{Severity: sev, Code: "LOG_UNREADABLE", File: file, Message: msg}
}

// logName is the redo log as findings name it: ib_logfile0's path, or for MySQL 8.0.30+ the
// #innodb_redo directory whose #ib_redoN files are read as one log.
func logName(s discovery.Layout) string {
	return redo.Name(redoLocation(s, discovery.AbsPath(s.Datadir)))
}
