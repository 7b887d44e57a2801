package redo

import (
	"sort"

	"innoscope/finding"
	"innoscope/logformat"
	"innoscope/logformat/logcheck"
)

// sizeOfFileCheckpoint is the length of the FILE_CHECKPOINT mini-transaction: a clean log
// (nothing to recover) ends exactly this far past its checkpoint LSN.
const sizeOfFileCheckpoint = logformat.FileCheckpointMTRSize

// Stats is what a scan of the log from the checkpoint (or ScanOptions.From) counts, and what it
// says about recovery. Its JSON is the --json form of `log stats`.
type Stats struct {
	LogFile              string            `json:"log_file"`
	Format               string            `json:"format"`
	PageSize             int               `json:"page_size"`
	PageSizeSource       string            `json:"page_size_source"`
	CheckpointLSN        uint64            `json:"checkpoint_lsn"`
	StartLSN             uint64            `json:"start_lsn"`
	EndLSN               uint64            `json:"end_lsn"`
	StopReason           string            `json:"stop_reason"`
	StopDetail           string            `json:"stop_detail"`
	StopOffset           int64             `json:"stop_offset"` // -1: the reader does not say
	Bytes                uint64            `json:"bytes"`
	MTRCount             int               `json:"mtr_count"`
	RecordCount          int               `json:"record_count"`
	RecordsByType        map[string]int    `json:"records_by_type"`
	PageRecords          int               `json:"page_records"`
	PagesTouched         int               `json:"pages_touched"`
	FileCheckpointEndLSN *uint64           `json:"file_checkpoint_end_lsn"`
	MalformedRecords     int               `json:"malformed_records"`
	CrashRecovery        bool              `json:"crash_recovery"`
	Findings             []finding.Finding `json:"findings"`
	// Blocks: the log is one of 512-byte blocks (its table says what was decoded, not where
	// in the file the scan stopped).
	Blocks bool `json:"-"`
	// TypeNames are the names of the log's record types in their order.
	TypeNames []string `json:"-"`
	// ToLSN is the end LSN the scan was given (--to-lsn; 0: none), where it stopped when
	// StopReason is "limit".
	ToLSN uint64 `json:"-"`
}

// Stats scans the log and counts its mini-transactions and records.
func (l *Log) Stats(opt ScanOptions) (*Stats, error) {
	if l.blocks != nil && !l.blocks.Physical() {
		return l.mlogStats(opt)
	}
	sc, cpLSN, err := l.Scanner(opt)
	if err != nil {
		return nil, err
	}
	st, err := logformat.Summarize(sc, cpLSN)
	if err != nil {
		return nil, err
	}
	pageRecs := st.PageRecords()
	j := &Stats{LogFile: l.Path, Format: l.Header.FormatName, PageSize: l.PageSize, PageSizeSource: l.PageSizeSource,
		CheckpointLSN: cpLSN, StartLSN: st.StartLSN, EndLSN: st.EndLSN, StopReason: string(st.Stop),
		StopDetail: st.StopDetail, StopOffset: st.StopOffset, Bytes: st.EndLSN - st.StartLSN, MTRCount: st.MTRs,
		RecordCount: st.Records, RecordsByType: sortedTypeCounts(st.ByType), PageRecords: pageRecs,
		PagesTouched: st.PagesTouched, MalformedRecords: st.Malformed, TypeNames: typeNames(), ToLSN: opt.To}
	if st.FileCheckpointEnd != 0 {
		j.FileCheckpointEndLSN = &st.FileCheckpointEnd
	}
	cps := logcheck.Checkpoints(l.Path, l.Checkpoints, l.Selected)
	stop, _, _ := sc.Stop()
	unclean := func(fs []finding.Finding) []finding.Finding { // the counts, worded by the range scanned
		if f := logcheck.Unclean(l.Path, st.StartLSN, st.EndLSN, cpLSN, stop == logformat.StopLimit, j.CrashRecovery, pageRecs, st.PagesTouched); f != nil {
			fs = append(fs, *f)
		}
		return fs
	}
	if l.blocks == nil {
		if st.StartLSN == cpLSN && stop != logformat.StopLimit {
			j.CrashRecovery = v108Recovery(cpLSN, st.EndLSN, st.FileCheckpointEnd, st.MTRs)
		} else { // another range: recovery's question is the log from the checkpoint
			j.CrashRecovery = l.v108RecoveryFrom(cpLSN)
		}
		j.Findings = unclean(logcheck.Scan(l.Path, cps, sc, st.EndLSN, logcheck.FileCheckpoint(l.v108, l.Path, l.PageSize), cpLSN, 0, 0))
		j.Findings = append(j.Findings, l.DamageFindings(sc)...)
		return j, nil
	}
	j.Blocks, j.StopOffset = true, -1
	j.CrashRecovery = pageRecs > 0
	if st.StartLSN != cpLSN || stop == logformat.StopLimit { // another range: recovery's question is the log from the checkpoint
		j.CrashRecovery = l.pageRecordsFrom(cpLSN)
	}
	j.Findings = logcheck.Clean105(unclean(logcheck.Scan(l.Path, cps, sc, st.EndLSN,
		l.FileCheckpointFinding(st.StartLSN, st.EndLSN, st.FileCheckpointEnd, cpLSN), cpLSN, 0, 0)), st.EndLSN, cpLSN)
	return j, nil
}

// v108Recovery reports whether a MariaDB 10.8+ server runs crash recovery on a log whose scan
// from its checkpoint (cpLSN) holds mtrs mini-transactions and ends at end, fcpEnd being the end
// of the one holding the checkpoint's FILE_CHECKPOINT (0: not seen). That record is written
// where the log ended when the checkpoint was taken, anywhere from cpLSN on. The log is
// logically empty when the checkpoint's own mini-transaction is all it holds, FILE_MODIFY
// records of it included: an 11.8 server killed just after a checkpoint logged no "Starting
// crash recovery" on such a log (run r1 of d3abc5a: one 44-byte mini-transaction). Without the
// record, only the bare 16-byte FILE_CHECKPOINT counts as empty.
func v108Recovery(cpLSN, end, fcpEnd uint64, mtrs int) bool {
	if fcpEnd != 0 {
		return mtrs != 1 || end != fcpEnd
	}
	return end != cpLSN+sizeOfFileCheckpoint
}

// v108RecoveryFrom is v108Recovery of the log scanned from its checkpoint (cpLSN) to its end.
func (l *Log) v108RecoveryFrom(cpLSN uint64) bool {
	sc := l.v108.Scan(cpLSN, logformat.ScanOptions{PageSize: l.PageSize})
	var fcpEnd uint64
	mtrs := 0
	for sc.Next() {
		if mtrs++; mtrs > 1 {
			break // more than the checkpoint's own: recovery
		}
		m := sc.MTR()
		for _, r := range m.Records {
			if r.Type == logformat.FileCheckpoint && r.CheckpointLSN == cpLSN {
				fcpEnd = m.EndLSN
			}
		}
	}
	if mtrs > 1 {
		return true
	}
	return v108Recovery(cpLSN, sc.LSN(), fcpEnd, mtrs)
}

// pageRecordsFrom reports whether the log of blocks has page records from its checkpoint
// (cpLSN) to its end, which a MariaDB 10.5-10.7 server's recovery applies.
func (l *Log) pageRecordsFrom(cpLSN uint64) bool {
	sc, _, err := l.Scanner(ScanOptions{})
	if err != nil {
		return false
	}
	for sc.Next() {
		for _, r := range sc.MTR().Records {
			if r.Type < logformat.FileCreate {
				return true
			}
		}
	}
	return false
}

// mlogStats is Stats of an MLOG log (MySQL, MariaDB before 10.5), whose page size is not
// checked: the default is said. Whether the server runs crash recovery, and whether it refuses
// the log, are said of the log from the checkpoint to its end whatever range opt gives (a scan
// of another range counts its own records).
func (l *Log) mlogStats(opt ScanOptions) (*Stats, error) {
	if _, _, err := l.blockStart(opt.From); err != nil {
		return nil, err
	}
	byType := map[string]int{}
	pages := map[[2]uint32]bool{}
	var mtrs, records, pageRecs int
	var first, last uint64
	mlogCheckpoint, selected := false, l.CheckpointLSN()
	sc, cpLSN, start, err := l.scanMLog(opt, func(m *logformat.MLogMTR) {
		if mtrs == 0 {
			first = m.LSN
		}
		mtrs++
		last = m.EndLSN
		for _, r := range m.Records {
			records++
			mlogCheckpoint = mlogCheckpoint || r.Type == logformat.MLogCheckpoint && r.CheckpointLSN == selected
			byType[r.Type.String()]++
			if r.Type.HasPage() {
				pageRecs++
				pages[[2]uint32{r.Space, r.Page}] = true
			}
		}
	})
	if mtrs == 0 {
		first, last = start, start
		if sc.EndLSN > start {
			last = sc.EndLSN
		}
	}
	malformed := 0
	if err != nil {
		malformed = 1
	}
	j := &Stats{LogFile: l.Path, Format: l.Header.FormatName, PageSize: 16384, PageSizeSource: "default",
		CheckpointLSN: cpLSN, StartLSN: first, EndLSN: last, StopReason: string(sc.Stop), StopDetail: sc.StopDetail,
		StopOffset: -1, Bytes: last - first, MTRCount: mtrs, RecordCount: records, RecordsByType: byType,
		PageRecords: pageRecs, PagesTouched: len(pages), MalformedRecords: malformed,
		CrashRecovery: start == cpLSN && sc.EndLSN > cpLSN, Blocks: true, TypeNames: mlogNames(), ToLSN: opt.To}
	limited := opt.To != 0 && sc.EndLSN > opt.To
	if start == cpLSN && !limited || l.Selected < 0 {
		j.Findings = logcheck.MLog(l.blocks, start, cpLSN, sc.EndLSN, last, mlogCheckpoint, err, pageRecs, len(pages))
		return j, nil
	}
	// Another range than recovery's: the verdict is the checkpoint's (a scan from it), the
	// counts the range's.
	whole, err2 := l.mlogStats(ScanOptions{})
	if err2 != nil {
		return nil, err2
	}
	j.CrashRecovery = whole.CrashRecovery
	j.Findings = logcheck.MLogRange(l.blocks, sc.EndLSN, err, whole.Findings)
	if f := logcheck.Unclean(l.Path, first, last, cpLSN, limited, j.CrashRecovery, pageRecs, len(pages)); f != nil {
		j.Findings = append(j.Findings, *f)
	}
	return j, nil
}

// typeNames are the names of the MariaDB 10.5+ record types.
func typeNames() []string {
	var out []string
	for _, t := range logformat.Types {
		out = append(out, t.String())
	}
	return out
}

// mlogNames are the names of the MLOG record types.
func mlogNames() []string {
	var names []string
	for _, t := range logformat.MLogTypes {
		names = append(names, t.String())
	}
	return names
}

// TypeNames are the names of the log's record types, in their order.
func (l *Log) TypeNames() []string {
	if l.blocks != nil && !l.blocks.Physical() {
		return mlogNames()
	}
	return typeNames()
}

// sortedTypeCounts lists counts by type name in record-type order.
func sortedTypeCounts(m map[logformat.Type]int) map[string]int {
	out := make(map[string]int, len(m))
	keys := make([]logformat.Type, 0, len(m))
	for t := range m {
		keys = append(keys, t)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, t := range keys {
		out[t.String()] = m[t]
	}
	return out
}
