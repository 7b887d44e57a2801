package logformat

import (
	"encoding/binary"
	"fmt"
)

// Builder assembles a MariaDB 10.8+ ib_logfile0 image in memory: header, checkpoint blocks and
// mini-transactions placed on the ring with the right sequence bit and CRC-32C.
type Builder struct {
	img      []byte
	firstLSN uint64
	lsn      uint64 // where the next mini-transaction goes
}

// NewBuilder starts a log file of size bytes whose ring begins at firstLSN.
func NewBuilder(size int64, firstLSN uint64, creator string) (*Builder, error) {
	if size < StartOffset+sizeOfFileCheckpoint || firstLSN < StartOffset || len(creator) > 32 {
		return nil, fmt.Errorf("invalid log geometry: size %d, first LSN %d, creator %q", size, firstLSN, creator)
	}
	b := &Builder{img: make([]byte, size), firstLSN: firstLSN, lsn: firstLSN}
	binary.BigEndian.PutUint32(b.img[0:], FormatMariaDB108)
	binary.BigEndian.PutUint64(b.img[8:], firstLSN)
	copy(b.img[16:48], creator)
	binary.BigEndian.PutUint32(b.img[508:], CRC32C(b.img[:508]))
	return b, nil
}

// LSN is where the next mini-transaction will start.
func (b *Builder) LSN() uint64 { return b.lsn }

// SetLSN moves the write position (e.g. to start a scan somewhere in the ring).
func (b *Builder) SetLSN(lsn uint64) { b.lsn = lsn }

// SetCheckpoint writes checkpoint block i (0: offset 4096, 1: offset 8192).
func (b *Builder) SetCheckpoint(i int, lsn, endLSN uint64) {
	blk := b.img[Checkpoint1Offset+i*(Checkpoint2Offset-Checkpoint1Offset):][:checkpointSize]
	clear(blk)
	binary.BigEndian.PutUint64(blk[0:], lsn)
	binary.BigEndian.PutUint64(blk[8:], endLSN)
	binary.BigEndian.PutUint32(blk[60:], CRC32C(blk[:60]))
}

func (b *Builder) capacity() uint64 { return uint64(len(b.img)) - StartOffset }

// put writes p on the ring at lsn, wrapping around the end of the file.
func (b *Builder) put(lsn uint64, p []byte) {
	for _, c := range p {
		b.img[StartOffset+(lsn-b.firstLSN)%b.capacity()] = c
		lsn++
	}
}

// AppendMTR writes the records as one mini-transaction (records, termination byte with the
// sequence bit, CRC-32C) and returns its start and end LSNs.
func (b *Builder) AppendMTR(records []byte) (start, end uint64) {
	start = b.lsn
	term := byte(((start+uint64(len(records))-b.firstLSN)/b.capacity())&1) ^ 1
	var crc [4]byte
	binary.BigEndian.PutUint32(crc[:], CRC32C(records))
	b.put(start, records)
	b.put(start+uint64(len(records)), []byte{term})
	b.put(start+uint64(len(records))+1, crc[:])
	b.lsn = start + uint64(len(records)) + 5
	return start, b.lsn
}

// Bytes returns the image.
func (b *Builder) Bytes() []byte { return b.img }

// FileCheckpointRecord encodes FILE_CHECKPOINT for lsn.
func FileCheckpointRecord(lsn uint64) []byte {
	b := []byte{byte(FileCheckpoint) | 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	binary.BigEndian.PutUint64(b[3:], lsn)
	return b
}
