package logformat

import (
	"fmt"
	"io"
)

// Internals the external tests (package logformat_test, which uses logformattest) look at;
// names_test.go gives them back the names the tests use.
const (
	MySQLFileHdrSize     = mysqlFileHdrSize
	MySQLCheckpoint2     = mysqlCheckpoint2
	SizeOfFileCheckpoint = sizeOfFileCheckpoint
)

// CRC32CShort is crc32cShort.
var CRC32CShort = crc32cShort

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

// CountMTRAgrees frames the mini-transaction at the start of p like a scan (false when that
// fails), runs countMTR on it and, when that takes it, decodeTo with a tally: diff says how the
// two counts differ ("" when they agree).
func CountMTRAgrees(p []byte, pageSize int) (counted bool, diff string) {
	end, fault := mtrEnd(p, 1)
	if fault != mtrOK || end+5 > len(p) {
		return false, ""
	}
	var a, b tally
	term, ok := countMTR(p, uint32(pageSize), &a)
	if !ok {
		return false, ""
	}
	if term != end {
		return true, fmt.Sprintf("countMTR ends at %d, mtrEnd at %d", term, end)
	}
	s := &Scanner{opt: ScanOptions{PageSize: pageSize}}
	if _, why := s.decodeTo(p, end, &b); why != "" {
		return true, "decodeTo rejects it: " + why
	}
	a.rec, b.rec = Record{}, Record{}
	if fmt.Sprint(a) != fmt.Sprint(b) {
		return true, fmt.Sprintf("countMTR %+v, decodeTo %+v", a, b)
	}
	return true, ""
}

// Comp32Both reads a compressed number at the start of p with comp32 and with comp32Slow (the
// general path): the values, the positions after them and the short flags.
func Comp32Both(p []byte) (v1 uint32, i1 int, s1 bool, v2 uint32, i2 int, s2 bool) {
	a, b := &mlogReader{p: p}, &mlogReader{p: p}
	v1, v2 = a.comp32(), b.comp32Slow()
	return v1, a.i, a.short, v2, b.i, b.short
}

// GatheredFirst makes ScanRecords walk every block before decoding while fn runs.
func GatheredFirst(fn func()) {
	old := pipeMaxBytes
	pipeMaxBytes = -1
	defer func() { pipeMaxBytes = old }()
	fn()
}
