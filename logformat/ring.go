package logformat

import (
	"encoding/binary"
	"fmt"
	"io"
)

// The ring of ib_logfile0..N of MySQL 5.6 to 8.0.29 and MariaDB 10.0 to 10.7 (log0log.h,
// log0recv.cc; 10.5-10.7 use ib_logfile0 alone; 5.6 and 10.0/10.1, format 0, differ as
// parseRingCheckpoint and BlockChecksumInnoDB say): every file starts with a 2048-byte header
// area and the 512-byte blocks fill the rest, the files one after another and then round again. The first file's
// header area holds the header block (format, start LSN, creator; CRC-32C in its last 4
// bytes) and the two checkpoint blocks at 512 and 1536: checkpoint number (8 bytes at 0),
// checkpoint LSN (8 at 8), the checkpoint LSN's byte offset in the ring counting the header
// areas (8 at 16), CRC-32C of bytes 0..507 at 508. Recovery uses the valid block with the
// higher checkpoint number (recv_find_max_checkpoint: on a tie the second).
const (
	ringCheckpointNo     = 0
	ringCheckpointLSN    = 8
	ringCheckpointOffset = 16
)

// ringLayout maps LSNs to the files of a ring.
type ringLayout struct {
	files    []io.ReaderAt
	names    []string
	fileSize int64
	refLSN   uint64 // an LSN whose ring offset is known: the checkpoint's
	refOff   int64  // its offset in the ring, header areas counted (log_group_calc_lsn_offset)
}

// capacity is the number of log bytes the ring holds.
func (g *ringLayout) capacity() uint64 {
	return uint64(len(g.files)) * uint64(g.fileSize-mysqlFileHdrSize)
}

// locate returns the file index and file offset of the byte at lsn.
func (g *ringLayout) locate(lsn uint64) (int, int64) {
	per := g.fileSize - mysqlFileHdrSize
	c := g.capacity()
	ref := uint64(g.refOff - mysqlFileHdrSize*(1+g.refOff/g.fileSize))
	var d uint64
	if lsn >= g.refLSN {
		d = (lsn - g.refLSN) % c
	} else {
		d = (c - (g.refLSN-lsn)%c) % c
	}
	real := int64((ref + d) % c)
	return int(real / per), mysqlFileHdrSize + real%per
}

// OpenRingLog reads the header and checkpoints of the ring formed by files (ib_logfile0,
// ib_logfile1, ... in order, all of one size). It refuses formats that are not MLOG rings
// (ErrUnsupported) and encrypted logs.
func OpenRingLog(files []io.ReaderAt, sizes []int64, names []string) (*BlockLog, error) {
	if len(files) == 0 || len(files) != len(sizes) || len(files) != len(names) {
		return nil, fmt.Errorf("no redo log files")
	}
	size := sizes[0]
	for i, s := range sizes {
		if s != size {
			return nil, &FormatError{File: names[i], Offset: s, Msg: fmt.Sprintf(
				"file of %d bytes in a log whose first file has %d: every file of the ring must have the same size", s, size)}
		}
	}
	if size < mysqlFileHdrSize+BlockSize || size%BlockSize != 0 {
		return nil, &FormatError{File: names[0], Offset: size, Msg: fmt.Sprintf("file of %d bytes cannot be a redo log file of 512-byte blocks", size)}
	}
	b := make([]byte, mysqlFileHdrSize)
	if _, err := files[0].ReadAt(b, 0); err != nil {
		return nil, &FormatError{File: names[0], Offset: 0, Msg: "read failed", Err: err}
	}
	h, err := ParseHeader(b, names[0])
	if err != nil {
		return nil, err
	}
	d, ok := MLogDialectOf(h)
	physical := h.Format&^FormatEncrypted == FormatMariaDB105
	if (!ok && !physical) || h.Format == FormatMySQL80_30 {
		return nil, &FormatError{File: names[0], Offset: 0, Err: ErrUnsupported, Msg: fmt.Sprintf("%s redo log is not a ring of ib_logfileN files", h.FormatName)}
	}
	if h.Encrypted || d != DialectMariaDB && !physical && mysqlRedoEncrypted(b) {
		return nil, &FormatError{File: names[0], Offset: 0, Err: ErrUnsupported, Msg: fmt.Sprintf("%s redo log is encrypted; innoscope reads no encrypted logs", h.FormatName)}
	}
	legacy := d == DialectLegacy && !physical
	if !legacy && !blockCRCOK(b[:BlockSize]) {
		return nil, &FormatError{File: names[0], Offset: 508, Msg: "invalid log header checksum"}
	}
	h.CRCValid = !legacy
	g := &ringLayout{files: files, names: names, fileSize: size, refLSN: h.FirstLSN, refOff: mysqlFileHdrSize}
	l := &BlockLog{Name: names[0], Size: size, Header: h, Dialect: d, Selected: -1, r: files[0], ring: g, physical: physical}
	var best uint64
	for i, off := range []int64{mysqlCheckpoint1, mysqlCheckpoint2} {
		c, at := parseRingCheckpoint(b[off:off+BlockSize], off, legacy)
		switch {
		case c.Reason != "":
		case at < mysqlFileHdrSize || at >= int64(len(files))*size || at%size < mysqlFileHdrSize:
			c.Reason = fmt.Sprintf("checkpoint offset %d is not a log byte of the %d files", at, len(files))
		case at%BlockSize != int64(c.LSN%BlockSize):
			c.Reason = fmt.Sprintf("checkpoint offset %d and LSN %d are in different places of a block", at, c.LSN)
		default:
			c.Valid = true
		}
		l.Checkpoints = append(l.Checkpoints, c)
		if c.Valid && (l.Selected < 0 || c.No >= best) {
			l.Selected, best = i, c.No
			g.refLSN, g.refOff = c.LSN, at
		}
	}
	l.start = g.refLSN - g.refLSN%BlockSize
	return l, nil
}

// parseRingCheckpoint decodes a checkpoint block at off of a ring: number, LSN and ring offset,
// and a Reason when its checksum fails. Since MySQL 5.7.9 and MariaDB 10.2.2 the block has a
// CRC-32C at 508; before (legacy), two folds: of bytes 0..287 at 288 and of 8..291 at 292, and
// the offset's high half at 304 (log0log.h of 5.6, log_group_checkpoint).
func parseRingCheckpoint(blk []byte, off int64, legacy bool) (Checkpoint, int64) {
	be := binary.BigEndian
	c := Checkpoint{Offset: off, No: be.Uint64(blk[ringCheckpointNo:]), LSN: be.Uint64(blk[ringCheckpointLSN:]), CRC: be.Uint32(blk[508:])}
	if allZero(blk) {
		// A new log has one checkpoint written; the server skips the other (its checksum fails).
		c.Blank, c.Reason = true, "never written (all zero)"
		return c, 0
	}
	if legacy {
		c.CRC = be.Uint32(blk[288:])
		f1, f2 := uint32(FoldBinary(blk[:288])), uint32(FoldBinary(blk[8:292]))
		if f1 != c.CRC || f2 != be.Uint32(blk[292:]) {
			c.Reason = fmt.Sprintf("checksum mismatch: stored 0x%08x/0x%08x, computed 0x%08x/0x%08x", c.CRC, be.Uint32(blk[292:]), f1, f2)
		}
		return c, int64(be.Uint32(blk[304:]))<<32 | int64(be.Uint32(blk[ringCheckpointOffset:]))
	}
	if !blockCRCOK(blk) {
		c.Reason = fmt.Sprintf("CRC-32C mismatch: stored 0x%08x, computed 0x%08x", c.CRC, CRC32C(blk[:508]))
	}
	return c, int64(be.Uint64(blk[ringCheckpointOffset:]))
}

// mysqlRedoEncrypted reports whether a MySQL log's first 2048 bytes carry redo log encryption
// information (innodb_redo_log_encrypt): its magic at 1024 (log0types.h LOG_ENCRYPTION of 5.7
// and 8.0; "lCA" 5.7.11, "lCB" 5.7.12+, "lCC" 8.0.5+, "lRK" keyring variants).
func mysqlRedoEncrypted(hdr []byte) bool {
	if len(hdr) < 1027 {
		return false
	}
	switch string(hdr[1024:1027]) {
	case "lCA", "lCB", "lCC", "lRK":
		return true
	}
	return false
}

// Close closes the files the log reads (those that are io.Closers): a chain's, or a ring's.
func (l *BlockLog) Close() error {
	var rs []io.ReaderAt
	if l.ring != nil {
		rs = l.ring.files
	} else {
		for f := l; f != nil; f = f.next {
			rs = append(rs, f.r)
		}
	}
	var first error
	for _, r := range rs {
		if c, ok := r.(io.Closer); ok {
			if err := c.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// IsRing reports whether the log is a ring of ib_logfileN files (not MySQL 8.0.30+ files).
func (l *BlockLog) IsRing() bool { return l.ring != nil }

// RingFiles names the files of a ring log (nil for MySQL 8.0.30+ files).
func (l *BlockLog) RingFiles() []string {
	if l.ring == nil {
		return nil
	}
	return l.ring.names
}

// Capacity is the number of log bytes the file (or the ring's files) hold.
func (l *BlockLog) Capacity() uint64 {
	if l.ring != nil {
		return l.ring.capacity()
	}
	return uint64(l.Size - mysqlFileHdrSize)
}

// SetWalkStart makes the walks of a ring log start at the block holding lsn (by default the
// checkpoint's). It does nothing for MySQL 8.0.30+ files, whose walks start at their start.
func (l *BlockLog) SetWalkStart(lsn uint64) {
	if l.ring != nil {
		l.start = lsn - lsn%BlockSize
	}
}

// walkStart is the LSN of the first block a walk reads.
func (l *BlockLog) walkStart() uint64 {
	if l.ring != nil {
		return l.start
	}
	return l.Header.FirstLSN
}

// walkRing walks the ring's blocks from w.lsn, at most once round.
func (l *BlockLog) walkRing(w *blockWalk, buf []byte) error {
	g := l.ring
	for done := uint64(0); done < g.capacity(); {
		fi, off := g.locate(w.lsn)
		n := min(int64(len(buf)), g.fileSize-off, int64(g.capacity()-done))
		if _, err := g.files[fi].ReadAt(buf[:n], off); err != nil && err != io.EOF {
			return &FormatError{File: g.names[fi], Offset: off, LSN: w.lsn, Msg: "read failed", Err: err}
		}
		for i := int64(0); i < n; i += BlockSize {
			if !w.step(buf[i:i+BlockSize], off+i) {
				return nil
			}
		}
		done += uint64(n)
	}
	w.stop(StopRingEnd, -1, "read the whole ring")
	return nil
}

// OldestLSN is the LSN of the oldest block a ring log still holds (0 for MySQL 8.0.30+
// files): the block of the log's start LSN while the ring has not wrapped, else the block
// one ring before the end of the written data (found by a walk from the checkpoint's block).
// A walk from it reads the whole log the ring holds.
func (l *BlockLog) OldestLSN() (uint64, error) {
	if l.ring == nil {
		return 0, nil
	}
	saved := l.start
	l.start = l.ring.refLSN - l.ring.refLSN%BlockSize
	sc, err := l.walkBlocks(nil)
	l.start = saved
	if err != nil {
		return 0, err
	}
	first := l.Header.FirstLSN
	if first == 0 {
		first = ringStartLSN // format 0 headers carry no start LSN
	}
	first -= first % BlockSize
	end := (sc.EndLSN + BlockSize - 1) / BlockSize * BlockSize
	if c := l.ring.capacity(); end >= first+c {
		return end - c, nil
	}
	return first, nil
}

// ringStartLSN is the LSN a new ring log starts at (LOG_START_LSN of log0log.h: 16 blocks).
const ringStartLSN = 16 * BlockSize
