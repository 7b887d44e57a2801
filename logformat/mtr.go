package logformat

import (
	"encoding/binary"
	"fmt"
)

// MaxMTRSize bounds the length of one mini-transaction (recv_sys_t::MTR_SIZE_MAX); a length
// field at or above it ends the log.
const MaxMTRSize = 1 << 20

// StopReason says why a scan ended.
type StopReason string

// Why the scan stopped. The first five are the server's normal end-of-log conditions
// (recv_sys_t::parse returning GOT_EOF); StopMalformed is a corrupted log that the server
// refuses to recover without innodb_force_recovery.
const (
	StopZero        StopReason = "zero"         // a byte 0x00/0x01 where a mini-transaction starts
	StopSequenceBit StopReason = "sequence-bit" // termination byte carries the other pass's bit
	StopChecksum    StopReason = "checksum"     // CRC-32C of the records does not match
	StopLength      StopReason = "length"       // a record or mini-transaction length is invalid
	StopRingEnd     StopReason = "ring-end"     // a whole ring's worth of bytes has been read
	StopMalformed   StopReason = "malformed"    // a record inside a valid mini-transaction is corrupt
	StopLimit       StopReason = "limit"        // the caller's end LSN was reached
)

// MTR is one mini-transaction: its records, and the LSNs of its first byte and of the byte
// after its CRC.
type MTR struct {
	LSN     uint64
	EndLSN  uint64
	CRC     uint32
	Records []Record
}

// ScanOptions tune a scan.
type ScanOptions struct {
	// PageSize is innodb_page_size, used to validate offsets like the server (default 16384).
	PageSize int
	// ToLSN, if non-zero, stops the scan before the first mini-transaction starting at or
	// after it (StopLimit).
	ToLSN uint64
	// BufferSize is the read window (default 8 MiB; at least 2 MiB is used).
	BufferSize int
}

// Scanner walks mini-transactions forward from a start LSN until the end of the log.
type Scanner struct {
	log      *Log
	opt      ScanOptions
	lsn      uint64 // start of the next mini-transaction
	limit    uint64 // no byte at or beyond this LSN is read (start + capacity)
	buf      []byte
	bufLSN   uint64 // LSN of buf[0]
	bufN     int    // valid bytes in buf
	mtr      MTR
	stop     StopReason
	detail   string
	stopOff  int64 // file offset of the fault
	err      error
	mtrCount int
	// A scanner over mini-transactions decoded beforehand (MariaDB 10.5-10.7, PhysScanner):
	// pre holds them, the pre* fields say how that decoding ended.
	pre       []MTR
	preStop   StopReason
	preDetail string
	preAt     uint64 // LSN of a malformed record
	name      string // the log file, when there is no *Log
	pf        *prefetch
	// swap, if set, gives fill the buffer to continue in when it reads more (the bytes not
	// yet parsed are copied there), so that the old one can stay with whoever holds it.
	swap func(old []byte) []byte
	// first caches firstStop: where the scan starts does not change.
	first *firstProbe
}

// firstProbe is what reading the first mini-transaction at a scan's start gave.
type firstProbe struct {
	reason StopReason
	detail string
	read   bool
}

// Scan returns a scanner starting at lsn, which must be the start of a mini-transaction (the
// checkpoint LSN, or the end LSN of an earlier one).
func (l *Log) Scan(lsn uint64, opt ScanOptions) *Scanner {
	if opt.PageSize == 0 {
		opt.PageSize = 16384
	}
	if opt.BufferSize < 2*MaxMTRSize+64 {
		opt.BufferSize = 8 << 20
	}
	if c := l.Capacity(); uint64(opt.BufferSize) > c {
		opt.BufferSize = int(c)
	}
	s := &Scanner{log: l, opt: opt, lsn: lsn, limit: lsn + l.Capacity(), bufLSN: lsn}
	if lsn < l.Header.FirstLSN {
		s.err = &FormatError{File: l.Name, Offset: -1, LSN: lsn, Msg: fmt.Sprintf(
			"start LSN %d is below the file's first LSN %d", lsn, l.Header.FirstLSN)}
	}
	s.buf = make([]byte, opt.BufferSize)
	return s
}

// fill makes the window hold as many bytes from s.lsn on as fit, and returns them.
func (s *Scanner) fill() ([]byte, error) {
	start := int(s.lsn - s.bufLSN)
	if s.bufN-start >= MaxMTRSize+16 || s.bufLSN+uint64(s.bufN) >= s.limit {
		return s.buf[start:s.bufN], nil
	}
	dst := s.buf
	if s.swap != nil {
		dst = s.swap(s.buf)
	}
	n := copy(dst, s.buf[start:s.bufN])
	s.buf = dst
	s.bufLSN, s.bufN = s.lsn, n
	want := len(s.buf) - n
	if rest := s.limit - (s.bufLSN + uint64(n)); uint64(want) > rest {
		want = int(rest)
	}
	if err := s.log.ReadAt(s.buf[n:n+want], s.bufLSN+uint64(n)); err != nil {
		return nil, err
	}
	s.bufN += want
	return s.buf[:s.bufN], nil
}

// Next parses the next mini-transaction. It returns false at the end of the log or on error;
// then Stop and Err tell why.
func (s *Scanner) Next() bool {
	if s.err != nil || s.stop != "" {
		return false
	}
	if s.log == nil {
		return s.nextDecoded()
	}
	if s.pf != nil {
		return s.nextPrefetched()
	}
	p, i, ok := s.frame(true)
	if !ok {
		return false
	}
	s.mtr = MTR{LSN: s.lsn, EndLSN: s.lsn + uint64(i) + 5, CRC: binary.BigEndian.Uint32(p[i+1:]), Records: s.mtr.Records[:0]}
	// Pass 2: decode the records (the terminator at p[i] is in range for the look-ahead).
	if at, why := s.decode(p[:i+1], i); why != "" {
		s.mtr.Records = s.mtr.Records[:0]
		return s.end(StopMalformed, at, why)
	}
	s.lsn = s.mtr.EndLSN
	s.mtrCount++
	return true
}

// frame finds the mini-transaction at s.lsn and checks its framing (length fields, sequence
// bit, and CRC-32C when crc is set: else the caller checks it) without decoding its records: it returns the window from s.lsn on and the
// offset of the termination byte (the CRC follows it), or false at the end of the log (Stop
// and Err tell why). s.lsn is not advanced.
func (s *Scanner) frame(crc bool) ([]byte, int, bool) {
	if s.opt.ToLSN != 0 && s.lsn >= s.opt.ToLSN {
		return nil, 0, s.end(StopLimit, 0, "reached the requested end LSN")
	}
	p, err := s.fill()
	if err != nil {
		s.err = err
		return nil, 0, false
	}
	if len(p) == 0 {
		return nil, 0, s.end(StopRingEnd, 0, "scanned the whole ring")
	}
	if p[0] <= 1 {
		return nil, 0, s.end(StopZero, 0, fmt.Sprintf("byte 0x%02x where a mini-transaction should start", p[0]))
	}
	// Pass 1: find the termination byte by walking the record lengths.
	i, fault := mtrEnd(p, 1)
	switch fault {
	case mtrRunsOut:
		return nil, 0, s.end(StopRingEnd, i, "mini-transaction runs past the bytes of one ring")
	case mtrLengthRunsOut:
		return nil, 0, s.end(StopRingEnd, i, "record length runs past the bytes of one ring")
	case mtrTooLong:
		return nil, 0, s.end(StopLength, i, "mini-transaction longer than 1 MiB")
	case mtrBadLength:
		return nil, 0, s.end(StopLength, i, "invalid record length")
	}
	if want := s.log.SequenceBit(s.lsn + uint64(i)); p[i] != want {
		return nil, 0, s.end(StopSequenceBit, i, fmt.Sprintf(
			"termination byte 0x%02x, expected sequence bit %d", p[i], want))
	}
	if i+5 > len(p) {
		return nil, 0, s.end(StopRingEnd, i, "checksum runs past the bytes of one ring")
	}
	if crc {
		if why := checkCRC(p, i); why != "" {
			return nil, 0, s.end(StopChecksum, i+1, why)
		}
	}
	return p, i, true
}

// checkCRC checks the CRC-32C of the mini-transaction at the start of p whose termination
// byte is p[i] (the CRC follows it), and says why it does not match ("" when it does).
func checkCRC(p []byte, i int) string {
	stored := binary.BigEndian.Uint32(p[i+1:])
	if crc := crc32cShort(p[:i]); crc != stored {
		return fmt.Sprintf("CRC-32C mismatch: stored 0x%08x, computed 0x%08x over %d bytes", stored, crc, i)
	}
	return ""
}

// Why mtrEnd found no end of a mini-transaction.
type mtrFault int

const (
	mtrOK            mtrFault = iota
	mtrRunsOut                // p ends before the termination byte
	mtrLengthRunsOut          // p ends inside a record's length field
	mtrTooLong                // MaxMTRSize bytes without a termination byte
	mtrBadLength              // an invalid record length
)

// mtrEnd walks the lengths of the records (the 10.5+ encoding) at the start of p to the byte
// that ends the mini-transaction, the first record-start byte of at most maxTerm (10.8+: 0 or
// 1, the sequence bit; 10.5-10.7: 0). It returns that byte's offset, or where and why the walk
// failed.
func mtrEnd(p []byte, maxTerm byte) (int, mtrFault) {
	i := 0
	for {
		if i >= len(p) {
			return i, mtrRunsOut
		}
		b := p[i]
		if b <= maxTerm {
			return i, mtrOK
		}
		if i >= MaxMTRSize {
			return i, mtrTooLong
		}
		i++
		if b&0x0f != 0 {
			i += int(b & 0x0f)
			continue
		}
		if i >= len(p) || i+VarintLen(p[i]) > len(p) {
			return i, mtrLengthRunsOut
		}
		if c := p[i]; c < 0x80 { // the common case, without a call
			i += int(c) + 15
			continue
		}
		v, n := Varint(p[i:])
		if n == 0 || v >= MaxMTRSize {
			return i, mtrBadLength
		}
		i += int(v) + 15
	}
}

func (s *Scanner) end(r StopReason, at int, detail string) bool {
	s.stop, s.detail = r, detail
	if s.log != nil {
		s.stopOff = s.log.FileOffset(s.lsn + uint64(at))
	}
	return false
}

// StopBefore makes the scan stop before the first mini-transaction that starts at or after lsn
// (StopLimit), as ScanOptions.ToLSN does, for a scanner made without options (PhysScanner); 0:
// no limit.
func (s *Scanner) StopBefore(lsn uint64) { s.opt.ToLSN = lsn }

// FirstFault says why no mini-transaction could be read where the scan starts: a checksum, a
// length or a malformed record at that very LSN (ok false: one was read, or the scan ended for
// another reason, such as the end of the written data). It reads the first mini-transaction
// again, apart from the scan's own state (a scanner decoded beforehand only looks).
func (s *Scanner) FirstFault() (reason StopReason, detail string, ok bool) {
	reason, detail, read := s.firstStop()
	switch {
	case read:
	case reason == StopChecksum, reason == StopLength, reason == StopMalformed, reason == StopSequenceBit:
		return reason, detail, true
	}
	return "", "", false
}

// FirstZero says whether the scan stops at once where it starts on a zero byte (StopZero), the
// end of the log when the scan starts at a mini-transaction's start; as FirstFault, it does not
// change the scan.
func (s *Scanner) FirstZero() (reason StopReason, detail string, ok bool) {
	reason, detail, read := s.firstStop()
	if read || reason != StopZero {
		return "", "", false
	}
	return reason, detail, true
}

// firstStop reads the first mini-transaction where the scan starts, apart from the scan's own
// state: read, or why it could not be. The probe reads no more than one mini-transaction can
// span (not the scan's whole window), once.
func (s *Scanner) firstStop() (reason StopReason, detail string, read bool) {
	if s.pre != nil || s.preStop != "" {
		return s.preStop, s.preDetail, len(s.pre) > 0
	}
	if s.first == nil {
		opt := s.opt
		opt.BufferSize = 2*MaxMTRSize + 64
		p := s.log.Scan(s.lsn, opt)
		s.first = &firstProbe{read: p.Next()}
		if !s.first.read {
			s.first.reason, s.first.detail, _ = p.Stop()
		}
	}
	return s.first.reason, s.first.detail, s.first.read
}

// nextDecoded is Next over mini-transactions decoded beforehand.
func (s *Scanner) nextDecoded() bool {
	if s.opt.ToLSN != 0 && s.lsn >= s.opt.ToLSN {
		return s.end(StopLimit, 0, "reached the requested end LSN")
	}
	if s.mtrCount >= len(s.pre) {
		return s.end(s.preStop, 0, s.preDetail)
	}
	s.mtr = s.pre[s.mtrCount]
	s.lsn = s.mtr.EndLSN
	s.mtrCount++
	return true
}

// MTR returns the mini-transaction parsed by the last successful Next. It and its records'
// byte slices are reused by the following Next.
func (s *Scanner) MTR() *MTR { return &s.mtr }

// LSN is the end of the last complete mini-transaction: after the scan, the end of the log.
func (s *Scanner) LSN() uint64 { return s.lsn }

// Stop tells why the scan ended, with a human explanation and the file offset of the fault.
func (s *Scanner) Stop() (reason StopReason, detail string, fileOffset int64) {
	return s.stop, s.detail, s.stopOff
}

// Err returns an I/O or argument error that ended the scan (nil at a normal end of log).
func (s *Scanner) Err() error { return s.err }

// StopError describes a StopMalformed end as an error naming file, offset and LSN.
func (s *Scanner) StopError() error {
	if s.stop != StopMalformed {
		return nil
	}
	if s.log == nil {
		return &FormatError{File: s.name, Offset: -1, LSN: s.preAt, Msg: "corrupted log record: " + s.detail}
	}
	return &FormatError{File: s.log.Name, Offset: s.stopOff, LSN: s.lsn, Msg: "corrupted log record: " + s.detail}
}

// FramedBytes frames the mini-transactions from the scanner's position on, without decoding
// them or checking their CRC-32C, until they make max bytes or the framing stops (the end of
// the log, or a damaged one), and returns their bytes (up to max and a mini-transaction
// more). It is an estimate of the log's length, for deciding how to read it (a stale
// mini-transaction whose CRC would fail counts as framed); the scanner is spent: use a new
// one to read.
func (s *Scanner) FramedBytes(max int) int {
	total := 0
	for total < max && s.err == nil && s.stop == "" {
		if _, b := s.frameRun(max - total); b > 0 {
			total += b
			continue
		}
		_, i, ok := s.frame(false)
		if !ok {
			break
		}
		s.lsn += uint64(i + 5)
		total += i + 5
	}
	return total
}
