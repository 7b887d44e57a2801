// Package logformattest builds redo log images in memory for tests: what no real file here
// shows (file records, checkpoints inside the data, rings that wrap, torn or foreign blocks),
// in every format logformat reads. It writes the format from its layout, independently of
// logformat's readers, so that a reader's mistake is not mirrored by the writer.
package logformattest

import (
	"encoding/binary"
	"fmt"

	"innoscope/logformat"
)

// The layout of a file of 512-byte blocks (MySQL 8.0.30+ #ib_redoN, and each file of an older
// ring): a 2048-byte header area (the header block at 0, checkpoint blocks at 512 and 1536),
// then blocks of a 12-byte header, the records and a 4-byte checksum. Ring checkpoint blocks
// hold the checkpoint number, LSN and ring offset at 0, 8 and 16; 8.0.30+ ones the LSN at 8.
const (
	mysqlFileHdrSize     = 4 * logformat.BlockSize
	mysqlCheckpoint1     = logformat.BlockSize
	mysqlCheckpoint2     = 3 * logformat.BlockSize
	mysqlCheckpointAt    = 8
	blockHeaderSize      = 12
	blockPayload         = logformat.BlockSize - blockHeaderSize - 4
	ringCheckpointNo     = 0
	ringCheckpointLSN    = 8
	ringCheckpointOffset = 16
	singleRecFlag        = 0x80 // MLOG_SINGLE_REC_FLAG
)

// MLogBuilder assembles a MySQL 8.0.30+ redo file image (or, with Ring, an older ring of
// ib_logfileN files) in memory (log0constants.h layout): the
// header block, the checkpoint blocks, and 512-byte data blocks carrying mini-transactions with
// their block number, data length, first_rec_group, epoch and CRC-32C. It makes test logs for
// what no real file here shows (file records, checkpoints inside the data).
type MLogBuilder struct {
	start   uint64 // LSN of the first data block (a multiple of 512)
	creator string
	stream  []byte // the record bytes, without block headers and trailers
	groups  []int  // stream offsets where mini-transactions start
}

// NewMLogBuilder starts a file whose first data block holds LSN start (a multiple of 512).
func NewMLogBuilder(start uint64, creator string) (*MLogBuilder, error) {
	if start%logformat.BlockSize != 0 || start == 0 || len(creator) > 32 {
		return nil, fmt.Errorf("invalid MySQL log geometry: start LSN %d, creator %q", start, creator)
	}
	return &MLogBuilder{start: start, creator: creator}, nil
}

// lsnAt is the LSN of stream offset off.
func (b *MLogBuilder) lsnAt(off int) uint64 {
	return b.start + uint64(off/blockPayload)*logformat.BlockSize + blockHeaderSize + uint64(off%blockPayload)
}

// AddMTR appends one mini-transaction and returns its start LSN: a single record gets
// MLOG_SINGLE_REC_FLAG, several are followed by MLOG_MULTI_REC_END.
func (b *MLogBuilder) AddMTR(records ...[]byte) uint64 {
	b.groups = append(b.groups, len(b.stream))
	lsn := b.lsnAt(len(b.stream))
	if len(records) == 1 {
		r := append([]byte(nil), records[0]...)
		if r[0] != byte(logformat.MLogCheckpoint) { // MLOG_CHECKPOINT stands alone without the flag
			r[0] |= singleRecFlag
		}
		b.stream = append(b.stream, r...)
		return lsn
	}
	for _, r := range records {
		b.stream = append(b.stream, r...)
	}
	b.stream = append(b.stream, byte(logformat.MLogMultiRecEnd))
	return lsn
}

// AddPhysMTR appends one MariaDB 10.5-10.7 mini-transaction (records in the 10.8 encoding,
// e.g. from PageRecord and FileRecord, then the 0x00 end byte) and returns its start LSN.
func (b *MLogBuilder) AddPhysMTR(records ...[]byte) uint64 {
	b.groups = append(b.groups, len(b.stream))
	lsn := b.lsnAt(len(b.stream))
	for _, r := range records {
		b.stream = append(b.stream, r...)
	}
	b.stream = append(b.stream, 0)
	return lsn
}

// EndLSN is the LSN after the last mini-transaction.
func (b *MLogBuilder) EndLSN() uint64 { return b.lsnAt(len(b.stream)) }

// Bytes lays out the file, of size bytes, with both checkpoint blocks at checkpoint.
func (b *MLogBuilder) Bytes(size int64, checkpoint uint64) []byte {
	img := make([]byte, size)
	b.header(img, b.start, checkpoint)
	copy(img[mysqlFileHdrSize:], b.blocks())
	return img
}

// Files lays out the log as consecutive files of size bytes each (#ib_redoN, N = 0, 1, ...),
// as many as the data needs; the file holding the checkpoint LSN gets the checkpoint blocks.
func (b *MLogBuilder) Files(size int64, checkpoint uint64) [][]byte {
	data := b.blocks()
	per := int(size-mysqlFileHdrSize) / logformat.BlockSize * logformat.BlockSize
	var out [][]byte
	for k := 0; k == 0 || k*per < len(data); k++ {
		img := make([]byte, size)
		start := b.start + uint64(k*per)
		cp := uint64(0)
		if checkpoint >= start && checkpoint < start+uint64(per) {
			cp = checkpoint
		}
		b.header(img, start, cp)
		if k*per < len(data) {
			copy(img[mysqlFileHdrSize:], data[k*per:min(len(data), (k+1)*per)])
		}
		out = append(out, img)
	}
	return out
}

// header writes the header block of a file starting at LSN start and, unless checkpoint is
// 0, both checkpoint blocks.
func (b *MLogBuilder) header(img []byte, start, checkpoint uint64) {
	be := binary.BigEndian
	be.PutUint32(img[0:], logformat.FormatMySQL80_30)
	be.PutUint64(img[8:], start)
	copy(img[16:48], b.creator)
	be.PutUint32(img[508:], logformat.CRC32C(img[:508]))
	if checkpoint == 0 {
		return
	}
	for _, off := range []int{mysqlCheckpoint1, mysqlCheckpoint2} {
		be.PutUint64(img[off+mysqlCheckpointAt:], checkpoint)
		be.PutUint32(img[off+508:], logformat.CRC32C(img[off:off+508]))
	}
}

// Ring lays the log out as a ring of files ib_logfile0..files-1 of size bytes each, for a
// header of format and the builder's creator (MySQL 5.7, 8.0 before 8.0.30, MariaDB
// 10.2-10.7; FormatLegacy: MySQL 5.6's header, fold-checksummed checkpoints and innodb block
// checksums): the builder's first block goes to byte at of the ring's data (header areas not
// counted), so the data can wrap from the last file to the first; both checkpoint blocks of
// the first file name checkpoint with number cpNo.
func (b *MLogBuilder) Ring(format uint32, files int, size int64, at int64, checkpoint, cpNo uint64) [][]byte {
	be := binary.BigEndian
	out := make([][]byte, files)
	legacy := format == logformat.FormatLegacy
	for k := range out {
		out[k] = make([]byte, size)
		if legacy { // 5.6: group id 0, start LSN at 4, no checksum
			be.PutUint64(out[k][4:], b.start)
			continue
		}
		be.PutUint32(out[k][0:], format)
		be.PutUint64(out[k][8:], b.start)
		copy(out[k][16:48], b.creator)
		be.PutUint32(out[k][508:], logformat.CRC32C(out[k][:508]))
	}
	data := b.blocks()
	for i := 0; i < len(data); i += logformat.BlockSize {
		f, off := b.ringPlace(files, size, at, b.start+uint64(i))
		blk := out[f][off : off+logformat.BlockSize]
		copy(blk, data[i:i+logformat.BlockSize])
		if legacy {
			be.PutUint32(blk[508:], logformat.BlockChecksumInnoDB(blk))
		}
	}
	f, off := b.ringPlace(files, size, at, checkpoint)
	cpAt := uint64(int64(f)*size + off)
	for _, o := range []int{mysqlCheckpoint1, mysqlCheckpoint2} {
		c := out[0][o : o+logformat.BlockSize]
		be.PutUint64(c[ringCheckpointNo:], cpNo)
		be.PutUint64(c[ringCheckpointLSN:], checkpoint)
		if legacy {
			be.PutUint32(c[ringCheckpointOffset:], uint32(cpAt))
			be.PutUint32(c[304:], uint32(cpAt>>32))
			be.PutUint32(c[288:], uint32(logformat.FoldBinary(c[:288])))
			be.PutUint32(c[292:], uint32(logformat.FoldBinary(c[8:292])))
			continue
		}
		be.PutUint64(c[ringCheckpointOffset:], cpAt)
		be.PutUint32(c[508:], logformat.CRC32C(c[:508]))
	}
	return out
}

// ringPlace is where lsn lies in a ring of files of size bytes each whose data (header areas
// not counted) holds the builder's start LSN at byte at: the file and the offset in it.
func (b *MLogBuilder) ringPlace(files int, size, at int64, lsn uint64) (int, int64) {
	per := size - mysqlFileHdrSize
	c := uint64(files) * uint64(per)
	var d uint64
	if lsn >= b.start {
		d = (lsn - b.start) % c
	} else {
		d = (c - (b.start-lsn)%c) % c
	}
	pos := int64((uint64(at) + d) % c)
	return int(pos / per), mysqlFileHdrSize + pos%per
}

// blocks lays out the record stream in 512-byte blocks from the builder's start LSN.
func (b *MLogBuilder) blocks() []byte {
	be := binary.BigEndian
	n := (len(b.stream) + blockPayload - 1) / blockPayload
	out := make([]byte, n*logformat.BlockSize)
	g := 0
	for k := 0; k < n; k++ {
		blk := out[k*logformat.BlockSize : (k+1)*logformat.BlockSize]
		lo, hi := k*blockPayload, min((k+1)*blockPayload, len(b.stream))
		copy(blk[blockHeaderSize:], b.stream[lo:hi])
		lsn := b.start + uint64(k)*logformat.BlockSize
		be.PutUint32(blk[0:], uint32(lsn/logformat.BlockSize&0x3fffffff)+1)
		dataLen := logformat.BlockSize
		if hi-lo < blockPayload {
			dataLen = blockHeaderSize + hi - lo
		}
		be.PutUint16(blk[4:], uint16(dataLen))
		for g < len(b.groups) && b.groups[g] < lo {
			g++
		}
		if g < len(b.groups) && b.groups[g] < hi {
			be.PutUint16(blk[6:], uint16(blockHeaderSize+b.groups[g]-lo))
		}
		be.PutUint32(blk[8:], 1) // epoch
		be.PutUint32(blk[508:], logformat.CRC32C(blk[:508]))
	}
	return out
}

// appendComp32 is mach_write_compressed.
func appendComp32(dst []byte, v uint32) []byte {
	switch {
	case v < 0x80:
		return append(dst, byte(v))
	case v < 0x4000:
		return append(dst, byte(v>>8)|0x80, byte(v))
	case v < 0x200000:
		return append(dst, byte(v>>16)|0xc0, byte(v>>8), byte(v))
	case v < 0x10000000:
		return append(dst, byte(v>>24)|0xe0, byte(v>>16), byte(v>>8), byte(v))
	}
	return append(dst, 0xf0, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

// MLogPageRecord encodes a page record: the type, the page id, then body.
func MLogPageRecord(t logformat.MLogType, space, page uint32, body []byte) []byte {
	r := appendComp32(appendComp32([]byte{t.Logged()}, space), page)
	return append(r, body...)
}

// MLogLegacyCreateRecord encodes MySQL 5.6's MLOG_FILE_CREATE for space: the name after its
// 2-byte length, no tablespace flags (fil0fil.cc of 5.6, fil_op_write_log).
func MLogLegacyCreateRecord(space uint32, name string) []byte {
	body := binary.BigEndian.AppendUint16(nil, uint16(len(name)+1))
	return MLogPageRecord(logformat.MLogFileCreate, space, 0, append(append(body, name...), 0))
}

// MLogCheckpointRecord encodes MLOG_CHECKPOINT (MySQL 5.7, MariaDB 10.2-10.4): the type and
// the 8-byte checkpoint LSN, no page identifier.
func MLogCheckpointRecord(lsn uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{byte(logformat.MLogCheckpoint)}, lsn)
}

// MLogFileRecord encodes MLOG_FILE_CREATE or MLOG_FILE_CREATE2 (flags 0), MLOG_FILE_DELETE,
// MLOG_FILE_NAME, MLOG_FILE_RENAME or MLOG_FILE_RENAME2 for space, as fil_op_write_log lays
// them out: NUL-terminated names after 2-byte lengths.
func MLogFileRecord(t logformat.MLogType, space uint32, name, newName string) []byte {
	var body []byte
	if t == logformat.MLogFileCreate || t == logformat.MLogFileCreate2 {
		body = append(body, 0, 0, 0, 0)
	}
	for i, n := range []string{name, newName} {
		if i == 1 && t != logformat.MLogFileRename && t != logformat.MLogFileRename2 {
			break
		}
		body = binary.BigEndian.AppendUint16(body, uint16(len(n)+1))
		body = append(append(body, n...), 0)
	}
	return MLogPageRecord(t, space, 0, body)
}
