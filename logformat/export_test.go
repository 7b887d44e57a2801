package logformat

import "io"

// Internals the external tests (package logformat_test, which uses logformattest) look at;
// names_test.go gives them back the names the tests use.
const (
	MySQLFileHdrSize     = mysqlFileHdrSize
	MySQLCheckpoint2     = mysqlCheckpoint2
	SizeOfFileCheckpoint = sizeOfFileCheckpoint
)

// ParseMLog is parseMLog.
var ParseMLog = parseMLog

// BlockLogReader is the file a BlockLog reads.
func BlockLogReader(l *BlockLog) io.ReaderAt { return l.r }

// SerialSummarize makes Summarize sequential while fn runs.
func SerialSummarize(fn func()) {
	serialSummarize = true
	defer func() { serialSummarize = false }()
	fn()
}
