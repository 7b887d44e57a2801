package logformat

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
)

// Layout of a MariaDB 10.8+ ib_logfile0 (log0log.h, log_t): a 512-byte header block, checkpoint
// blocks at 4096 and 8192, and from StartOffset on a ring of records.
const (
	HeaderSize        = 512
	Checkpoint1Offset = 4096
	Checkpoint2Offset = 8192
	StartOffset       = 12288 // first byte of the ring; also the smallest valid first LSN
	checkpointSize    = 64
	// sizeOfFileCheckpoint is the smallest possible mini-transaction: a FILE_CHECKPOINT record
	// (type byte, space and page ids, 8-byte LSN), the termination byte and the CRC-32C.
	sizeOfFileCheckpoint = 3 + 8 + 1 + 4
	// FileCheckpointMTRSize is the size of the mini-transaction the server writes a checkpoint's
	// FILE_CHECKPOINT record in when no FILE_MODIFY record goes with it.
	FileCheckpointMTRSize = sizeOfFileCheckpoint
)

// Header format identifiers (the 32-bit field at offset 0). MariaDB and MySQL reuse small
// numbers, so the creator string decides the vendor where they overlap.
const (
	FormatMariaDB108 = 0x50687973 // "Phys": MariaDB 10.8 and later
	FormatMariaDB105 = 0x50485953 // "PHYS": MariaDB 10.5 to 10.7
	FormatMariaDB104 = 104
	FormatMariaDB103 = 103
	FormatEncrypted  = 1 << 31 // or-ed into the pre-10.8 MariaDB identifiers when encrypted
	FormatLegacy     = 0       // MySQL 5.6 and earlier, MariaDB 10.0 and 10.1
	FormatMySQL57    = 1       // also MariaDB 10.2
	FormatMySQL80_1  = 2
	FormatMySQL80_3  = 3
	FormatMySQL80_19 = 4
	FormatMySQL80_28 = 5
	FormatMySQL80_30 = 6
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CRC32C is CRC-32C (Castagnoli) as the server's my_crc32c(0, ...) computes it.
func CRC32C(p []byte) uint32 { return crc32.Checksum(p, castagnoli) }

// Header is the decoded first block of a redo log file.
type Header struct {
	Format     uint32 // raw field at offset 0
	FormatName string // e.g. "MariaDB 10.8+", "MySQL 8.0.30+"
	Vendor     string // "MariaDB", "MySQL" or "" when unknown
	FirstLSN   uint64 // LSN of the byte at StartOffset (10.8+), start LSN otherwise
	Creator    string // NUL-trimmed creator string, e.g. "MariaDB 10.11.19"
	Encrypted  bool
	// Supported reports whether this package decodes checkpoints and records of this format.
	Supported bool
	// CRC and CRCValid: the stored CRC-32C of bytes 0..507 and whether it matches (10.8+).
	CRC      uint32
	CRCValid bool
}

// ParseHeader decodes the first HeaderSize bytes of a log file. It returns an error only when
// the block is too short or is no redo log header at all; a recognised but unsupported format
// comes back with Supported false.
func ParseHeader(b []byte, name string) (Header, error) {
	var h Header
	if len(b) < HeaderSize {
		return h, &FormatError{File: name, Offset: int64(len(b)), Msg: fmt.Sprintf(
			"truncated log header: %d bytes, need %d", len(b), HeaderSize)}
	}
	be := binary.BigEndian
	h.Format = be.Uint32(b[0:])
	h.FirstLSN = be.Uint64(b[8:])
	h.Creator = string(bytes.TrimRight(b[16:48], "\x00"))
	h.CRC = be.Uint32(b[508:])
	h.CRCValid = CRC32C(b[:508]) == h.CRC
	switch {
	case strings.HasPrefix(h.Creator, "MariaDB"), strings.HasPrefix(h.Creator, "Backup "):
		h.Vendor = "MariaDB"
	case strings.HasPrefix(h.Creator, "MySQL"), strings.HasPrefix(h.Creator, "MEB"),
		strings.HasPrefix(h.Creator, "xtrabkup"):
		h.Vendor = "MySQL"
	}
	f := h.Format
	switch {
	case f == FormatMariaDB108:
		h.Vendor, h.FormatName, h.Supported = "MariaDB", "MariaDB 10.8+", true
		// Non-zero bytes after the creator carry the encryption key information.
		h.Encrypted = be.Uint32(b[48:]) != 0
	case f&^FormatEncrypted == FormatMariaDB105:
		h.Vendor, h.FormatName, h.Encrypted = "MariaDB", "MariaDB 10.5-10.7", f&FormatEncrypted != 0
	case f&^FormatEncrypted == FormatMariaDB104 || f&^FormatEncrypted == FormatMariaDB103:
		h.Vendor, h.Encrypted = "MariaDB", f&FormatEncrypted != 0
		h.FormatName = fmt.Sprintf("MariaDB 10.%d", f&^FormatEncrypted-100)
	case f&^FormatEncrypted == FormatMySQL57 && h.Vendor == "MariaDB":
		h.FormatName, h.Encrypted = "MariaDB 10.2", f&FormatEncrypted != 0
	case f == FormatMySQL57:
		h.Vendor, h.FormatName = "MySQL", "MySQL 5.7"
	case f >= FormatMySQL80_1 && f <= FormatMySQL80_30:
		h.Vendor = "MySQL"
		h.FormatName = map[uint32]string{2: "MySQL 8.0.1+", 3: "MySQL 8.0.3+", 4: "MySQL 8.0.19+",
			5: "MySQL 8.0.28+", 6: "MySQL 8.0.30+"}[f]
	case f == 0 && be.Uint64(b[4:]) >= 8192 && be.Uint64(b[4:])%BlockSize == 0:
		// Before MySQL 5.7.9 and MariaDB 10.2.2 (log0log.h of 5.6): group id 0 at 0, the
		// file's start LSN at 4, and at 16 only a mysqlbackup note; no header checksum.
		h.FormatName, h.FirstLSN, h.CRCValid = "MySQL 5.6 / MariaDB 10.0-10.1 (format 0)", be.Uint64(b[4:]), false
	case f == 0:
		// Format 0 with no usable start LSN: an interrupted --initialize or bootstrap can leave
		// the header block all zero beside valid checkpoint blocks.
		what := fmt.Sprintf("start LSN %d at offset 4 is not a multiple of 512 from 8192", be.Uint64(b[4:]))
		if allZero(b[:HeaderSize]) {
			what = "the 512-byte header block is all zero (no start LSN at offset 4)"
		}
		return h, &FormatError{File: name, Offset: 4, Msg: "format identifier 0 (the redo log of MySQL 5.6 and MariaDB 10.0/10.1), but " + what +
			": a log of this format is refused as too old by MySQL 5.7.9 and later, and by MariaDB 10.2.2 and later unless its checkpoint shows a clean shutdown " +
			"(MariaDB 10.11: \"Upgrade after a crash is not supported. This redo log was created before MariaDB 10.2.2\"); innoscope cannot place its records without the start LSN"}
	default:
		return h, &FormatError{File: name, Offset: 0, Msg: fmt.Sprintf(
			"not an InnoDB redo log: unknown format identifier 0x%08x", f)}
	}
	return h, nil
}

// Checkpoint is one of the two checkpoint blocks of a 10.8+ log.
type Checkpoint struct {
	Offset int64  // 4096 or 8192 (512 or 1536 in 512-byte block logs)
	No     uint64 // checkpoint number (ib_logfileN rings; 0 otherwise)
	LSN    uint64 // checkpoint LSN: recovery starts parsing here
	EndLSN uint64 // end of the log when the checkpoint was written
	CRC    uint32
	Valid  bool
	Reason string // why the block is rejected (empty when Valid)
	Blank  bool   // rings: the block was never written (all zero, as in every new 10.5 log)
}

// parseCheckpoint applies the server's acceptance rules (recv_sys_t::find_checkpoint).
func parseCheckpoint(b []byte, off int64, firstLSN uint64) Checkpoint {
	be := binary.BigEndian
	c := Checkpoint{Offset: off, LSN: be.Uint64(b[0:]), EndLSN: be.Uint64(b[8:]), CRC: be.Uint32(b[60:])}
	switch {
	case CRC32C(b[:60]) != c.CRC:
		c.Reason = fmt.Sprintf("CRC-32C mismatch: stored 0x%08x, computed 0x%08x", c.CRC, CRC32C(b[:60]))
	case !allZero(b[16:60]):
		c.Reason = "bytes 16..59 are not zero"
	case c.LSN < firstLSN:
		c.Reason = fmt.Sprintf("checkpoint LSN %d is below the file's first LSN %d", c.LSN, firstLSN)
	case c.EndLSN < c.LSN:
		c.Reason = fmt.Sprintf("end LSN %d is below checkpoint LSN %d", c.EndLSN, c.LSN)
	default:
		c.Valid = true
	}
	return c
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// Log is an opened MariaDB 10.8+ redo log file.
type Log struct {
	Name        string
	Size        int64
	Header      Header
	Checkpoints []Checkpoint
	// Selected is the index in Checkpoints of the block recovery uses, or -1 if none is valid.
	Selected int
	r        io.ReaderAt
}

// Open reads and validates the header and the checkpoint blocks of the log file r of the given
// size. Formats other than MariaDB 10.8+ and encrypted logs give an error wrapping
// ErrUnsupported; the Header is still returned (with a nil *Log) so callers can describe them.
func Open(r io.ReaderAt, size int64, name string) (*Log, Header, error) {
	return open(r, size, name, false)
}

// OpenDamagedHeader is Open for a log whose header block fails its CRC-32C (wrapping
// ErrHeaderChecksum from Open): the header's fields and the checkpoints are read as stored, for
// `log header` to show; Header.CRCValid is false. The server refuses such a log.
func OpenDamagedHeader(r io.ReaderAt, size int64, name string) (*Log, Header, error) {
	return open(r, size, name, true)
}

func open(r io.ReaderAt, size int64, name string, damagedHeader bool) (*Log, Header, error) {
	if size == 0 {
		return nil, Header{}, &FormatError{File: name, Offset: 0, Msg: "empty file (0 bytes): not a redo log"}
	}
	n := int64(StartOffset)
	if size < n {
		n = size
	}
	b := make([]byte, n)
	if _, err := r.ReadAt(b, 0); err != nil && err != io.EOF {
		return nil, Header{}, &FormatError{File: name, Offset: 0, Msg: "read failed", Err: err}
	}
	h, err := ParseHeader(b, name)
	if err != nil {
		return nil, h, err
	}
	if !h.Supported {
		_, mlog := MLogDialectOf(h)
		var msg string
		switch {
		case h.Encrypted:
			msg = fmt.Sprintf("encrypted %s redo log (format 0x%08x, created by %q): innoscope does not decrypt redo logs", h.FormatName, h.Format, h.Creator)
		case mlog || h.Format == FormatMariaDB105:
			msg = fmt.Sprintf("%s redo log (created by %q): this command reads MariaDB 10.8+ logs only (`log header`, `log records`, `log stats`, `map` and `diagnose` read the logs of MySQL 5.7 and 8.0 and MariaDB 10.2-10.7)",
				h.FormatName, h.Creator)
		default:
			msg = fmt.Sprintf("%s redo log (format 0x%08x, created by %q): its records are not decoded; innoscope reads the logs of MariaDB 10.2 and later, MySQL 5.7 and 8.0",
				h.FormatName, h.Format, h.Creator)
		}
		return nil, h, &FormatError{File: name, Offset: 0, Err: ErrUnsupported, Msg: msg}
	}
	if !h.CRCValid && !damagedHeader {
		return nil, h, &FormatError{File: name, Offset: 508, Err: ErrHeaderChecksum, Msg: fmt.Sprintf(
			"invalid log header checksum: stored 0x%08x, CRC-32C of bytes 0..507 is 0x%08x", h.CRC, CRC32C(b[:508]))}
	}
	if h.Encrypted {
		return nil, h, &FormatError{File: name, Offset: 48, Err: ErrUnsupported, Msg: fmt.Sprintf(
			"encrypted redo log (created by %q): decryption is not supported yet", h.Creator)}
	}
	if be32(b[4:]) != 0 || h.FirstLSN < StartOffset {
		return nil, h, &FormatError{File: name, Offset: 4, Msg: fmt.Sprintf(
			"invalid ib_logfile0 header block (bytes 4..7 = 0x%08x, first LSN %d)", be32(b[4:]), h.FirstLSN)}
	}
	if size < StartOffset+sizeOfFileCheckpoint {
		return nil, h, &FormatError{File: name, Offset: size, Msg: fmt.Sprintf(
			"file is too small: %d bytes, a 10.8+ log needs at least %d", size, StartOffset+sizeOfFileCheckpoint)}
	}
	l := &Log{Name: name, Size: size, Header: h, Selected: -1, r: r}
	var best uint64
	for i, off := range []int64{Checkpoint1Offset, Checkpoint2Offset} {
		c := parseCheckpoint(b[off:off+checkpointSize], off, h.FirstLSN)
		l.Checkpoints = append(l.Checkpoints, c)
		// Ties go to the later block, as in the server (checkpoint_lsn >= next_checkpoint_lsn).
		if c.Valid && c.LSN >= best {
			best, l.Selected = c.LSN, i
		}
	}
	return l, h, nil
}

func be32(b []byte) uint32 { return binary.BigEndian.Uint32(b) }

// Checkpoint returns the checkpoint recovery would use, and false if no block is valid.
func (l *Log) Checkpoint() (Checkpoint, bool) {
	if l.Selected < 0 {
		return Checkpoint{}, false
	}
	return l.Checkpoints[l.Selected], true
}

// Capacity is the size of the ring in bytes.
func (l *Log) Capacity() uint64 { return uint64(l.Size) - StartOffset }

// FileOffset maps an LSN (not below the first LSN) to its byte offset in the file.
func (l *Log) FileOffset(lsn uint64) int64 {
	return StartOffset + int64((lsn-l.Header.FirstLSN)%l.Capacity())
}

// SequenceBit is the termination byte value a mini-transaction ending at lsn must carry: 1 on the
// first pass through the ring, flipping on every wrap (log_t::get_sequence_bit).
func (l *Log) SequenceBit(lsn uint64) byte {
	return byte(((lsn-l.Header.FirstLSN)/l.Capacity())&1) ^ 1
}

// ReadAt reads len(p) ring bytes starting at lsn, wrapping around the end of the file.
func (l *Log) ReadAt(p []byte, lsn uint64) error {
	for len(p) > 0 {
		off := l.FileOffset(lsn)
		n := int64(len(p))
		if room := l.Size - off; n > room {
			n = room
		}
		if got, err := l.r.ReadAt(p[:n], off); int64(got) < n {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return &FormatError{File: l.Name, Offset: off + int64(got), LSN: lsn, Msg: "read failed", Err: err}
		}
		p, lsn = p[n:], lsn+uint64(n)
	}
	return nil
}

// HeaderCRC is the CRC-32C of the header block's bytes 0..507, which its bytes 508..511 should
// hold (0 when they cannot be read).
func (l *Log) HeaderCRC() uint32 {
	b := make([]byte, 508)
	if _, err := l.r.ReadAt(b, 0); err != nil {
		return 0
	}
	return CRC32C(b)
}
