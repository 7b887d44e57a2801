package cmd

import (
	"github.com/urfave/cli/v2"

	"innoscope/analysis"
	"innoscope/finding"
	"innoscope/logformat/redo"
	"innoscope/report"
	"innoscope/report/view"
)

func logCommand() *cli.Command {
	flags := dirFlags()
	scanFlags := append(append([]cli.Flag{}, flags...),
		&cli.Uint64Flag{Name: "from-lsn", Usage: "start here instead of the checkpoint (below the checkpoint it must be a mini-transaction start, e.g. the first LSN of a fresh log)"},
		&cli.Uint64Flag{Name: "to-lsn", Usage: "stop before the first mini-transaction starting at or after this LSN"})
	return &cli.Command{
		Name:  "log",
		Usage: "read the redo log (ib_logfile0..N, or MySQL 8.0.30+'s #innodb_redo/#ib_redoN)",
		Description: "Reads MariaDB 10.8+ logs, and the older formats of MariaDB 10.0-10.7 and MySQL 5.6-8.x:\n" +
			"the header, the checkpoints, the 512-byte blocks of the older formats and every record.",
		Subcommands: []*cli.Command{
			{Name: "header", Usage: "format, creator, first LSN, both checkpoints and the one recovery uses",
				ArgsUsage: "DIR|FILE", Flags: flags, Action: logHeader},
			{Name: "records", Usage: "every record from the checkpoint to the end of the log",
				ArgsUsage: "DIR|FILE", Action: logRecords,
				Flags: append(append([]cli.Flag{}, scanFlags...),
					&cli.Int64Flag{Name: "space", Value: -1, Usage: "only records for this tablespace id"},
					&cli.Int64Flag{Name: "page", Value: -1, Usage: "only records for this page number"},
					&cli.StringFlag{Name: "type", Usage: "only these record types, comma-separated; globs such as FILE_* work"})},
			logChangesCommand(),
			{Name: "stats", Usage: "records by type, pages touched, end of log and why the scan stopped",
				ArgsUsage: "DIR|FILE", Flags: scanFlags, Action: logStats},
		},
	}
}

func logHeader(c *cli.Context) error {
	l, err := openLogArg(c, analysis.OpenLogHeader)
	if err != nil {
		return err
	}
	defer l.Close()
	d, err := l.Describe()
	if err != nil {
		return err
	}
	fs := append(logServerFindings(c), d.Findings...)
	return show(c, func(out *report.Output) ([]finding.Finding, error) { return fs, view.LogHeader(out, d, fs) })
}

// scanOptions are where the command's --from-lsn and --to-lsn start and end a scan.
func scanOptions(c *cli.Context) redo.ScanOptions {
	return redo.ScanOptions{From: c.Uint64("from-lsn"), To: c.Uint64("to-lsn"), Notes: c.App.ErrWriter}
}
