package logformat

import (
	"encoding/binary"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"sync"
)

// MySQL 8.0.30+ redo files (#innodb_redo/#ib_redoN; log0constants.h): a 2048-byte header
// (format, log uuid, start LSN, creator, flags; checkpoint blocks at 512 and 1536, encryption
// at 1024) and then 512-byte blocks, the block holding LSN l at 2048 + (l - start LSN).
// Each block: hdr_no (4, bit 31 the flush flag) = (LSN/512 mod 2^30) + 1, data_len (2, bytes
// used including this 12-byte header), first_rec_group (2), epoch_no (4), data, and the
// CRC-32C of bytes 0..507 in its last 4 bytes.
const (
	BlockSize         = 512
	blockHeaderSize   = 12
	mysqlFileHdrSize  = 4 * BlockSize
	mysqlCheckpoint1  = BlockSize
	mysqlCheckpoint2  = 3 * BlockSize
	mysqlCheckpointAt = 8 // LOG_CHECKPOINT_LSN inside a checkpoint block (8.0.30+)
)

// StopBlock: a block whose number is not the one its LSN demands, or from another epoch.
const StopBlock StopReason = "block"

// Block is one decoded 512-byte log block header.
type Block struct {
	LSN           uint64 // LSN of the block's first byte
	Offset        int64  // in the file
	HdrNo         uint32 // without the flush bit
	Flush         bool
	DataLen       uint16
	FirstRecGroup uint16 // offset of the first mini-transaction starting in this block, 0: none
	Epoch         uint32
}

// BlockLog is an opened redo log of 512-byte blocks: a MySQL 8.0.30+ file (or a Chain of
// them), or an ib_logfileN ring of MySQL 5.6-8.0.29 or MariaDB 10.0-10.7 (OpenRingLog).
type BlockLog struct {
	Name        string
	Size        int64
	Header      Header
	UUID        uint32
	Flags       uint32
	Checkpoints []Checkpoint
	Selected    int         // index in Checkpoints recovery would use, -1 if none
	Dialect     MLogDialect // the records' MLOG variant
	r           io.ReaderAt
	next        *BlockLog // the file whose data continues this one's (Chain)
	ring        *ringLayout
	start       uint64 // ring logs: LSN of the block the walks start at
	physical    bool   // MariaDB 10.5-10.7: 10.8 records, not MLOG
	missing     string // Chain: the absent file that would continue the chain's last one
	gap         bool   // Chain: a later file shows the log went on past the missing one
}

// MissingFile describes the #ib_redoN file absent from the middle of a chain (a later file
// shows the log went on past it: the server refuses to start), or "" when there is none.
func (l *BlockLog) MissingFile() string {
	if !l.gap {
		return ""
	}
	return l.missing
}

// dataEnd is the LSN after the last data byte the file can hold.
func (l *BlockLog) dataEnd() uint64 { return l.Header.FirstLSN + uint64(l.Size-mysqlFileHdrSize) }

// Chain links files of one redo log (the #ib_redoN files of a data directory) in LSN order,
// each continuing where the one before ends, starting from the oldest; a gap ends the chain.
// The returned head reads across the chain; its Checkpoints and Selected are those of the
// file holding the newest valid checkpoint (the one recovery uses).
func Chain(files []*BlockLog) (*BlockLog, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("no redo log files")
	}
	fs := append([]*BlockLog(nil), files...)
	sort.Slice(fs, func(i, j int) bool { return fs[i].Header.FirstLSN < fs[j].Header.FirstLSN })
	head := *fs[0]
	cur := &head
	best := fs[0]
	var after *BlockLog // the first file beyond a gap
	for _, f := range fs[1:] {
		if f.Header.FirstLSN != cur.dataEnd() {
			after = f
			break
		}
		c := *f
		cur.next, cur = &c, &c
		if c.Selected >= 0 && (best.Selected < 0 || c.Checkpoints[c.Selected].LSN > best.Checkpoints[best.Selected].LSN) {
			best = f
		}
	}
	head.Checkpoints, head.Selected = best.Checkpoints, best.Selected
	head.missing, head.gap = missingAfter(cur, after), after != nil
	return &head, nil
}

var redoFileName = regexp.MustCompile(`^#ib_redo(\d+)$`)

// missingAfter describes the MySQL file #ib_redoN+1 that would continue last (#ib_redoN) in
// the log: the server names it so ("Missing redo log file ... (with start_lsn = L)") and refuses
// to start when a later file (after) shows that the log went on; "" when last is not so named.
func missingAfter(last, after *BlockLog) string {
	m := redoFileName.FindStringSubmatch(filepath.Base(last.Name))
	if m == nil {
		return ""
	}
	n, _ := strconv.Atoi(m[1])
	name := filepath.Join(filepath.Dir(last.Name), fmt.Sprintf("#ib_redo%d", n+1))
	if after == nil {
		return fmt.Sprintf("%s (start LSN %d), which would continue %s, is not there", name, last.dataEnd(), filepath.Base(last.Name))
	}
	return fmt.Sprintf("%s (start LSN %d) is missing: %s ends there and %s starts at LSN %d; the server refuses to start (\"Missing redo log file\")",
		name, last.dataEnd(), filepath.Base(last.Name), filepath.Base(after.Name), after.Header.FirstLSN)
}

func blockCRCOK(b []byte) bool { return CRC32C(b[:508]) == binary.BigEndian.Uint32(b[508:]) }

// OpenBlockLog reads the header and checkpoint blocks of a MySQL 8.0.30+ redo file.
func OpenBlockLog(r io.ReaderAt, size int64, name string) (*BlockLog, error) {
	if size < mysqlFileHdrSize+BlockSize {
		return nil, &FormatError{File: name, Offset: size, Msg: fmt.Sprintf("file of %d bytes is too small for a MySQL redo file", size)}
	}
	b := make([]byte, mysqlFileHdrSize)
	if _, err := r.ReadAt(b, 0); err != nil {
		return nil, &FormatError{File: name, Offset: 0, Msg: "read failed", Err: err}
	}
	h, err := ParseHeader(b, name)
	if err != nil {
		return nil, err
	}
	if h.Format != FormatMySQL80_30 {
		return nil, &FormatError{File: name, Offset: 0, Err: ErrUnsupported, Msg: fmt.Sprintf("%s redo log is not a MySQL 8.0.30+ file", h.FormatName)}
	}
	if !blockCRCOK(b[:BlockSize]) {
		return nil, &FormatError{File: name, Offset: 508, Msg: "invalid log header checksum"}
	}
	if mysqlRedoEncrypted(b) {
		return nil, &FormatError{File: name, Offset: 1024, Err: ErrUnsupported, Msg: fmt.Sprintf("%s redo log is encrypted (innodb_redo_log_encrypt); innoscope reads no encrypted logs", h.FormatName)}
	}
	h.CRCValid = true
	l := &BlockLog{Name: name, Size: size, Header: h, UUID: binary.BigEndian.Uint32(b[4:]),
		Flags: binary.BigEndian.Uint32(b[48:]), Selected: -1, r: r}
	end := h.FirstLSN + uint64(size-mysqlFileHdrSize)
	for i, off := range []int64{mysqlCheckpoint1, mysqlCheckpoint2} {
		blk := b[off : off+BlockSize]
		c := Checkpoint{Offset: off, LSN: binary.BigEndian.Uint64(blk[mysqlCheckpointAt:]), CRC: binary.BigEndian.Uint32(blk[508:])}
		switch {
		case !blockCRCOK(blk):
			c.Reason = fmt.Sprintf("CRC-32C mismatch: stored 0x%08x, computed 0x%08x", c.CRC, CRC32C(blk[:508]))
		case c.LSN < h.FirstLSN || c.LSN > end:
			c.Reason = fmt.Sprintf("checkpoint LSN %d is outside this file's LSNs %d..%d", c.LSN, h.FirstLSN, end)
		default:
			c.Valid = true
		}
		l.Checkpoints = append(l.Checkpoints, c)
		if c.Valid && (l.Selected < 0 || c.LSN > l.Checkpoints[l.Selected].LSN) {
			l.Selected = i
		}
	}
	return l, nil
}

// BlockScan is the result of walking a MySQL redo file's blocks.
type BlockScan struct {
	Blocks     int    // valid blocks read
	EndLSN     uint64 // end of the written data
	Stop       StopReason
	StopDetail string
	StopOffset int64
	// RecordGroups are the LSNs at which mini-transactions start, from the blocks'
	// first_rec_group fields.
	RecordGroups []uint64
}

// ScanBlocks walks the blocks from the file's start LSN to the end of the written data (across
// the files of a Chain): the first block with a bad checksum, another block number or epoch
// than expected, or less than a full block of data.
func (l *BlockLog) ScanBlocks() (BlockScan, error) { return l.walkBlocks(nil) }

// walkBlocks is ScanBlocks, calling fn (if set) with each valid block and its bytes (reused
// after fn returns); fn returning false ends the walk there (StopLimit).
func (l *BlockLog) walkBlocks(fn func(Block, []byte) bool) (BlockScan, error) {
	var sc BlockScan
	bufSize := int64(1 << 20)
	if rest := (l.Size - mysqlFileHdrSize) / BlockSize * BlockSize; rest < bufSize {
		bufSize = rest // whole blocks only, and never more memory than the file justifies
	}
	bp, _ := walkBufs.Get().(*[]byte)
	if bp == nil || int64(cap(*bp)) < bufSize {
		b := make([]byte, bufSize)
		bp = &b
	}
	defer walkBufs.Put(bp)
	buf := (*bp)[:bufSize]
	w := &blockWalk{sc: &sc, lsn: l.walkStart(), fn: fn, epochs: l.ring == nil || l.Dialect == DialectMySQL80,
		legacy: l.ring != nil && !l.physical && l.Dialect == DialectLegacy}
	if l.ring != nil {
		return sc, l.walkRing(w, buf)
	}
	for f := l; ; {
		if err := f.scanFile(w, buf); err != nil || sc.Stop != "" {
			return sc, err
		}
		if f.next == nil || f.next.Header.FirstLSN != w.lsn {
			sc.Stop, sc.StopDetail, sc.StopOffset = StopRingEnd, "end of the file", f.Size
			if l.missing != "" {
				sc.StopDetail = fmt.Sprintf("end of %s at LSN %d: %s", filepath.Base(f.Name), w.lsn, l.missing)
			}
			return sc, nil
		}
		f = f.next
	}
}

// walkBufs are walkBlocks' read buffers (fn must not keep the bytes it is given).
var walkBufs sync.Pool

// blockWalk is the state of a walk over consecutive blocks.
type blockWalk struct {
	sc     *BlockScan
	lsn    uint64 // LSN of the next block
	epoch  uint32
	epochs bool // the header's last field is an epoch that must not change (MySQL 8.0)
	legacy bool // pre-5.7.9 logs: the innodb block checksum (or none) is also accepted
	fn     func(Block, []byte) bool
}

// checksumOK verifies a block's trailer: CRC-32C, or in legacy logs also the innodb formula
// or LOG_NO_CHECKSUM_MAGIC (log0log.ic, log_block_checksum_is_ok of 5.6/5.7).
func (w *blockWalk) checksumOK(b []byte) bool {
	if blockCRCOK(b) {
		return true
	}
	stored := binary.BigEndian.Uint32(b[508:])
	return w.legacy && (stored == BlockChecksumInnoDB(b) || stored == 0xdeadbeef)
}

func (w *blockWalk) stop(r StopReason, at int64, d string) bool {
	w.sc.Stop, w.sc.StopDetail, w.sc.StopOffset = r, d, at
	return false
}

// step checks block b, read at file offset off, as the one holding w.lsn (log0recv.cc,
// recv_scan_log_recs and log_block_checksum_is_ok): it returns false where the written log
// ends (w.sc.Stop says why).
func (w *blockWalk) step(b []byte, off int64) bool {
	blk := ParseBlock(b, w.lsn, off)
	switch want := uint32(w.lsn/BlockSize&0x3fffffff) + 1; {
	case !w.checksumOK(b):
		return w.stop(StopChecksum, off, fmt.Sprintf("block at LSN %d: checksum mismatch", w.lsn))
	case blk.HdrNo != want:
		return w.stop(StopBlock, off, fmt.Sprintf("block at LSN %d has number %d, want %d", w.lsn, blk.HdrNo, want))
	case w.epochs && w.sc.Blocks > 0 && blk.Epoch != w.epoch:
		return w.stop(StopBlock, off, fmt.Sprintf("block at LSN %d is of epoch %d, the log before it %d", w.lsn, blk.Epoch, w.epoch))
	case blk.DataLen < blockHeaderSize || blk.DataLen > BlockSize-4:
		if blk.DataLen != BlockSize {
			return w.stop(StopLength, off, fmt.Sprintf("block at LSN %d: data length %d", w.lsn, blk.DataLen))
		}
	}
	w.epoch = blk.Epoch
	w.sc.Blocks++
	if w.fn != nil && !w.fn(blk, b) {
		return w.stop(StopLimit, off, "walk cancelled")
	}
	if blk.FirstRecGroup != 0 {
		w.sc.RecordGroups = append(w.sc.RecordGroups, w.lsn+uint64(blk.FirstRecGroup))
	}
	if blk.DataLen < BlockSize {
		w.sc.EndLSN = w.lsn + uint64(blk.DataLen)
		return w.stop(StopZero, off, fmt.Sprintf("block at LSN %d is the last written: %d bytes of data", w.lsn, blk.DataLen))
	}
	w.lsn += BlockSize
	w.sc.EndLSN = w.lsn
	return true
}

// scanFile walks the blocks of one file of the chain, from w.lsn on; it sets the scan's Stop
// at the end of the written data, and leaves it empty when every block of the file is full.
func (l *BlockLog) scanFile(w *blockWalk, buf []byte) error {
	for off := int64(mysqlFileHdrSize); off < l.Size; {
		n := min(int64(len(buf)), (l.Size-off)/BlockSize*BlockSize)
		if n == 0 {
			break
		}
		if _, err := l.r.ReadAt(buf[:n], off); err != nil && err != io.EOF {
			return &FormatError{File: l.Name, Offset: off, Msg: "read failed", Err: err}
		}
		for i := int64(0); i < n; i += BlockSize {
			if !w.step(buf[i:i+BlockSize], off+i) {
				return nil
			}
		}
		off += n
	}
	return nil
}

// ParseBlock decodes the header of the 512-byte block b that holds LSN lsn at file offset off.
func ParseBlock(b []byte, lsn uint64, off int64) Block {
	be := binary.BigEndian
	h := be.Uint32(b)
	return Block{LSN: lsn, Offset: off, HdrNo: h &^ (1 << 31), Flush: h&(1<<31) != 0, DataLen: be.Uint16(b[4:]),
		FirstRecGroup: be.Uint16(b[6:]), Epoch: be.Uint32(b[8:])}
}
