package logformat

// Stats summarises a scan from a start LSN to the end of the log.
type Stats struct {
	StartLSN   uint64
	EndLSN     uint64 // end of the last complete mini-transaction
	Stop       StopReason
	StopDetail string
	StopOffset int64 // file offset where the scan stopped
	MTRs       int
	Records    int
	ByType     map[Type]int
	// PagesTouched counts distinct (space, page) pairs named by page records.
	PagesTouched int
	// FileCheckpointEnd is the end LSN of the first mini-transaction holding a FILE_CHECKPOINT
	// for the checkpoint LSN (what the server looks for before applying), 0 if none was seen.
	FileCheckpointEnd uint64
	// Malformed counts records whose payload did not decode though the server accepts them.
	Malformed int
}

// Summarize runs sc to the end and counts what it saw. checkpointLSN is the LSN whose
// FILE_CHECKPOINT record is looked for (0: none).
func Summarize(sc *Scanner, checkpointLSN uint64) (Stats, error) {
	st := Stats{StartLSN: sc.LSN(), ByType: map[Type]int{}}
	pages := map[uint64]struct{}{}
	for sc.Next() {
		m := sc.MTR()
		st.MTRs++
		for i := range m.Records {
			r := &m.Records[i]
			st.Records++
			st.ByType[r.Type]++
			if r.Malformed != "" {
				st.Malformed++
			}
			if r.Type == FileCheckpoint && r.CheckpointLSN == checkpointLSN && st.FileCheckpointEnd == 0 {
				st.FileCheckpointEnd = m.EndLSN
			}
			if !r.SamePage && r.Type < FileCreate {
				pages[uint64(r.Space)<<32|uint64(r.Page)] = struct{}{}
			}
		}
	}
	st.EndLSN = sc.LSN()
	st.Stop, st.StopDetail, st.StopOffset = sc.Stop()
	st.PagesTouched = len(pages)
	return st, sc.Err()
}

// PageRecords is the number of page records (those before FILE_CREATE in type order).
func (st *Stats) PageRecords() int {
	n := 0
	for t, c := range st.ByType {
		if t < FileCreate {
			n += c
		}
	}
	return n
}
