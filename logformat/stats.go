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
	if w := parallelWorkers(); w > 0 && sc.log != nil && sc.err == nil && sc.stop == "" && !serialSummarize {
		return summarizeParallel(sc, checkpointLSN, w)
	}
	st := Stats{StartLSN: sc.LSN(), ByType: map[Type]int{}}
	var byType [256]int // counted in an array, copied to the map at the end
	var pages pageSet
	for sc.Next() {
		m := sc.MTR()
		st.MTRs++
		st.Records += len(m.Records)
		for i := range m.Records {
			r := &m.Records[i]
			byType[r.Type]++
			if r.Malformed != "" {
				st.Malformed++
			}
			if r.Type == FileCheckpoint && r.CheckpointLSN == checkpointLSN && st.FileCheckpointEnd == 0 {
				st.FileCheckpointEnd = m.EndLSN
			}
			if !r.SamePage && r.Type < FileCreate {
				pages.add(uint64(r.Space)<<32 | uint64(r.Page))
			}
		}
	}
	return st.finish(sc, &byType, &pages)
}

// serialSummarize makes Summarize sequential (tests compare the two).
var serialSummarize = false

// pageSet is a set of page identifiers (space<<32 | page): open addressing with linear probing,
// and the last key added remembered (a mini-transaction's records mostly name one page).
type pageSet struct {
	slots []uint64 // key+1; 0 is an empty slot
	n     int
	last  uint64 // last key added, +1
}

func (s *pageSet) add(k uint64) {
	k++
	if k == s.last {
		return
	}
	s.last = k
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	for i := (k * 0x9e3779b97f4a7c15) >> 20 & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case k:
			return
		case 0:
			s.slots[i] = k
			s.n++
			return
		}
	}
}

func (s *pageSet) grow() {
	old := s.slots
	s.slots = make([]uint64, max(1024, 2*len(old)))
	s.n = 0
	mask := uint64(len(s.slots) - 1)
	for _, k := range old {
		if k == 0 {
			continue
		}
		i := (k * 0x9e3779b97f4a7c15) >> 20 & mask
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = k
		s.n++
	}
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

// finish records the counts by type, the pages touched and where and why the scan sc ended.
func (st Stats) finish(sc *Scanner, byType *[256]int, pages *pageSet) (Stats, error) {
	for t, n := range byType {
		if n != 0 {
			st.ByType[Type(t)] = n
		}
	}
	st.EndLSN = sc.LSN()
	st.Stop, st.StopDetail, st.StopOffset = sc.Stop()
	st.PagesTouched = pages.n
	return st, sc.Err()
}
