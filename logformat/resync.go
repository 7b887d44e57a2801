package logformat

import (
	"bytes"
	"encoding/binary"
)

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

// writeBlock is the smallest unit mariadbd writes its 10.8+ log in (its log_t::write_size is the
// device's block size, 512 or 4096 bytes; a multiple of 4096 is a multiple of 512 too).
const writeBlock = 512

// staleReach bounds how far back StaleCopy looks for the source of stale bytes: the log buffer
// they come from (innodb_log_buffer_size, 16 MiB by default) and more.
const staleReach = 64 << 20

// minStaleCopy is the fewest bytes StaleCopy compares: fewer could repeat older log by chance.
const minStaleCopy = 32

// StaleCopy tells whether the whole mini-transactions found at [from, to) after a damaged one at
// at are stale bytes of the log buffer rather than log written on past the damage. mariadbd
// writes its log in blocks: a write ends with a zero byte where the next mini-transaction will
// start and fills the rest of its last block with whatever the log buffer held there, log it
// wrote earlier at the same place in a block (the next write rewrites that block). So such
// bytes are a copy of the log a whole number of write blocks earlier. StaleCopy compares
// [from, to), or up to the end of from's 4 KiB block when that is further, with the log at each
// multiple of writeBlock before it whose copy lies wholly before at (and within staleReach and
// the ring), and returns the distance of the first that matches; 0 when none does or fewer than
// minStaleCopy bytes can be compared. Log written on past a damage is new log, no such copy.
func (l *Log) StaleCopy(at, from, to uint64) (uint64, error) {
	end := to
	if blockEnd := from + uint64(4096-l.FileOffset(from)%4096); blockEnd > end {
		end = blockEnd
	}
	n := end - from
	if n < minStaleCopy || n > MaxMTRSize || from < at {
		return 0, nil
	}
	seg := make([]byte, n)
	if err := l.ReadAt(seg, from); err != nil {
		return 0, err
	}
	// The candidates: src = from - k*writeBlock with src+n <= at, src >= the ring's oldest byte.
	lo := uint64(0)
	if c := l.Capacity(); at > c {
		lo = at - c
	}
	lo = max(lo, l.Header.FirstLSN)
	if from > staleReach {
		lo = max(lo, from-staleReach)
	}
	if at < n || at-n < lo {
		return 0, nil
	}
	hi := from - writeBlock // the nearest candidate
	if hi+n > at {
		hi -= (hi + n - at + writeBlock - 1) / writeBlock * writeBlock
	}
	// Read the candidates' bytes in chunks, nearest first.
	const chunk = 1 << 20
	buf := make([]byte, chunk+n)
	for top := hi; top >= lo && top <= hi; {
		bottom := lo
		if top-lo > chunk {
			bottom = top - (chunk-writeBlock)/writeBlock*writeBlock
		}
		span := buf[:top-bottom+n]
		if err := l.ReadAt(span, bottom); err != nil {
			return 0, err
		}
		for src := top; ; src -= writeBlock {
			if bytes.Equal(span[src-bottom:src-bottom+n], seg) {
				return from - src, nil
			}
			if src < bottom+writeBlock {
				break
			}
		}
		if bottom == lo || bottom < writeBlock {
			break
		}
		top = bottom - writeBlock
	}
	return 0, nil
}
