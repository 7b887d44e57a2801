package logformat

import "encoding/binary"

// Resync looks past a damaged mini-transaction at lsn for the next one the log still holds
// whole: the first LSN within window bytes after lsn where the bytes frame a mini-transaction
// (record lengths walking to a termination byte) ending in this pass's sequence bit with a
// matching CRC-32C. A flipped byte that leaves the framing intact is found at once; otherwise
// each LSN of the window is tried (a random match needs a CRC-32C collision). A window < 0 is
// the damaged mini-transaction's own extent: where its record lengths walk to a termination byte
// (a flipped termination byte makes the walk go on into the next one, so that one starts within
// it). 0 when none.
func (l *Log) Resync(lsn uint64, window int) (uint64, error) {
	n := uint64(max(window, 0) + MaxMTRSize + 5)
	if c := l.Capacity(); n > c {
		n = c
	}
	buf := make([]byte, n)
	if err := l.ReadAt(buf, lsn); err != nil {
		return 0, err
	}
	valid := func(i int) bool {
		p := buf[i:]
		if len(p) == 0 || p[0] <= 1 {
			return false
		}
		e, fault := mtrEnd(p, 1)
		if fault != mtrOK || e+5 > len(p) || p[e] != l.SequenceBit(lsn+uint64(i+e)) {
			return false
		}
		return CRC32C(p[:e]) == binary.BigEndian.Uint32(p[e+1:])
	}
	e, fault := mtrEnd(buf, 1)
	if fault == mtrOK && e+5 < len(buf) && valid(e+5) {
		return lsn + uint64(e+5), nil
	}
	if window < 0 {
		window = e + 5
	}
	for i := 1; i <= window && i < len(buf); i++ {
		if valid(i) {
			return lsn + uint64(i), nil
		}
	}
	return 0, nil
}
