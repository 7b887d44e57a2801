package logformat_test

import . "innoscope/logformat"

// The internals export_test.go exports, under the names the tests use.
const (
	mysqlFileHdrSize     = MySQLFileHdrSize
	mysqlCheckpoint2     = MySQLCheckpoint2
	sizeOfFileCheckpoint = SizeOfFileCheckpoint
)

var parseMLog = ParseMLog
