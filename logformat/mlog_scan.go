package logformat

import (
	"fmt"
	"sync"
)

// gathered is the record bytes of a walk's blocks, without block headers and trailers.
type gathered struct {
	blocks []Block
	data   []byte
	bs     BlockScan
	base   uint64 // LSN of the first block
}

// lsnOf is the LSN of data offset off.
func (g *gathered) lsnOf(off int) uint64 { return lsnAt(g.base, off) }

// lsnAt is the LSN of data offset off of record bytes gathered from the block at LSN base.
func lsnAt(base uint64, off int) uint64 {
	u := uint64(off) // never negative: unsigned division by the constant is a multiply and shift
	return base + u/blockPayload*BlockSize + blockHeaderSize + u%blockPayload
}

// recordPos reports whether lsn holds record bytes of the blocks from LSN base (it is not in a
// block's header or trailer); offAt is its data offset then, the inverse of lsnAt.
func recordPos(base, lsn uint64) bool {
	d := lsn - base
	return lsn >= base && d%BlockSize >= blockHeaderSize && d%BlockSize < BlockSize-4
}

// notRecordPos says why from is no place to start reading the blocks from LSN base to end: it
// lies outside them, or in a block's 12-byte header or 4-byte checksum, where no record byte is.
func notRecordPos(base, end, from uint64) string {
	switch d := from - base; {
	case from < base:
		return fmt.Sprintf("start LSN is before the oldest block this file holds (LSN %d)", base)
	case from > end:
		return fmt.Sprintf("start LSN is past the end of the log (LSN %d)", end)
	case d%BlockSize < blockHeaderSize:
		return fmt.Sprintf("start LSN is in the 12-byte header of the log block at LSN %d, where no record byte lies; its records start at LSN %d",
			from-d%BlockSize, from-d%BlockSize+blockHeaderSize)
	default:
		return fmt.Sprintf("start LSN is in the 4-byte checksum of the log block at LSN %d, where no record byte lies; the next block's records start at LSN %d",
			from-d%BlockSize, from-d%BlockSize+BlockSize+blockHeaderSize)
	}
}

// offAt is the data offset of the record position lsn of the blocks from LSN base.
func offAt(base, lsn uint64) int {
	d := lsn - base
	return int(d/BlockSize)*blockPayload + int(d%BlockSize) - blockHeaderSize
}

// gather walks the blocks once, verifying them and keeping their record bytes (preallocated
// for what the files hold, up to 8 MiB; beyond, appending grows).
func (l *BlockLog) gather() (*gathered, error) { return l.gatherInto(nil) }

// gatherBufs are gathered data buffers that ScanRecords has done with (its records do not
// alias them, unlike PhysScanner's).
var gatherBufs sync.Pool

// gatherInto is gather appending to buf[:0] when it is large enough.
func (l *BlockLog) gatherInto(buf []byte) (*gathered, error) {
	n := 0
	for f := l; f != nil && n < 8<<20/BlockSize; f = f.next {
		n += int(f.Size-mysqlFileHdrSize) / BlockSize
	}
	if l.ring != nil {
		n = int(l.ring.capacity() / BlockSize)
	}
	n = min(n, 8<<20/BlockSize)
	if cap(buf) < n*blockPayload {
		buf = make([]byte, 0, n*blockPayload)
	}
	g := &gathered{blocks: make([]Block, 0, n), data: buf[:0], base: l.walkStart()}
	var err error
	g.bs, err = l.walkBlocks(func(blk Block, b []byte) bool {
		g.blocks = append(g.blocks, blk)
		g.data = append(g.data, b[blockHeaderSize:min(int(blk.DataLen), BlockSize-4)]...)
		return true
	})
	return g, err
}

// startAt is the data offset where decoding starts: the LSN from (a record position), or with
// from 0 the first block's first mini-transaction; or why nothing is to be decoded.
func (g *gathered) startAt(l *BlockLog, from uint64) (int, string, error) {
	if g.bs.EndLSN <= g.base || len(g.blocks) == 0 {
		return 0, "no written blocks", nil
	}
	switch {
	case from != 0:
		if !recordPos(g.base, from) || from > g.bs.EndLSN {
			return 0, "", &FormatError{File: l.Name, Offset: -1, LSN: from, Msg: notRecordPos(g.base, g.bs.EndLSN, from)}
		}
		return offAt(g.base, from), "", nil
	case len(g.bs.RecordGroups) > 0:
		return offAt(g.base, g.bs.RecordGroups[0]), "", nil
	}
	return 0, "no mini-transaction starts in this file", nil
}

// blockPayload is the record bytes a 512-byte block carries: after the 12-byte header, before
// the 4-byte checksum.
const blockPayload = BlockSize - blockHeaderSize - 4

// MLogMTR is one MLOG mini-transaction: a record with MLOG_SINGLE_REC_FLAG, or records ended
// by MLOG_MULTI_REC_END (which is included).
type MLogMTR struct {
	LSN     uint64 // of its first byte
	EndLSN  uint64 // of the byte after it
	Records []MLogRecord
}

// MLogScan summarises a decoding of an MLOG log's records.
type MLogScan struct {
	StartLSN   uint64 // where decoding started (a mini-transaction start)
	EndLSN     uint64 // the end of the last complete mini-transaction
	DataEndLSN uint64 // the end of the written data (the block walk's end)
	MTRs       int
	Records    int
	ByType     map[MLogType]int
	Stop       StopReason
	StopDetail string
	// Blocks are the blocks read, with their first_rec_group field.
	Blocks []Block
}

// ScanRecords decodes the mini-transactions of the file (or Chain, or ring) from the LSN from
// (a mini-transaction start: the checkpoint LSN), or with from 0 from the first
// mini-transaction that starts in the walked blocks (the first block's first_rec_group), to
// the end of the written data, calling fn for each. A ring log's walk starts at the
// checkpoint's block, or where SetWalkStart put it. The record bytes of the written blocks
// are held in memory (at most the files); they are read and checked on another goroutine
// while the decoding goes on.
func (l *BlockLog) ScanRecords(from uint64, fn func(*MLogMTR) error) (MLogScan, error) {
	buf, _ := gatherBufs.Get().(*[]byte)
	if buf == nil {
		buf = new([]byte)
	}
	p := l.startGather(*buf)
	defer func() {
		g, _ := p.gathered() // the walk has ended before its buffer is reused
		*buf = g.data[:0]
		gatherBufs.Put(buf)
	}()
	sc := MLogScan{ByType: map[MLogType]int{}}
	// walked completes sc with what the walk found (its end); err: the walk failed.
	walked := func() (*gathered, error) {
		g, err := p.gathered()
		sc.DataEndLSN, sc.Blocks = g.bs.EndLSN, g.blocks
		return g, err
	}
	off, why, err := p.startAt(l, from)
	if why != "" || err != nil {
		if _, werr := walked(); werr != nil {
			return MLogScan{}, werr
		}
		sc.Stop, sc.StopDetail = StopZero, why
		return sc, err
	}
	sc.StartLSN, sc.EndLSN = lsnAt(p.base, off), lsnAt(p.base, off)
	var mtr MLogMTR
	var byType [256]int
	defer func() {
		for t, n := range byType {
			if n > 0 {
				sc.ByType[MLogType(t)] = n
			}
		}
	}()
	data, done := p.more(off)
	for off < len(data) || !done {
		if off >= len(data) {
			data, done = p.more(len(data))
			continue
		}
		mtr = MLogMTR{LSN: lsnAt(p.base, off), Records: mtr.Records[:0]}
		q, why := off, ""
		for {
			// The record is decoded in place at the end of the slice, and taken back when it
			// does not belong there.
			n := len(mtr.Records)
			if n == cap(mtr.Records) {
				mtr.Records = append(mtr.Records, MLogRecord{})
			} else {
				mtr.Records = mtr.Records[:n+1]
			}
			rec := &mtr.Records[n]
			if w := parseMLogTo(rec, data[q:], l.Dialect); w != "" {
				mtr.Records, why = mtr.Records[:n], w
				break
			}
			rec.LSN = lsnAt(p.base, q)
			q += rec.Len
			if rec.Single && n > 0 {
				mtr.Records, why = mtr.Records[:n], fmt.Sprintf("%s with MLOG_SINGLE_REC_FLAG inside a multi-record mini-transaction", rec.Type)
				break
			}
			if rec.Single || rec.Type == MLogMultiRecEnd || rec.Type == MLogDummyRecord {
				break
			}
		}
		if why != "" && !done {
			// The mini-transaction may run into bytes not yet gathered: decode it again with them.
			data, done = p.more(len(data))
			continue
		}
		if why == mlogShort {
			g, werr := walked()
			if werr != nil {
				return MLogScan{}, werr
			}
			sc.Stop, sc.StopDetail = StopZero, "the written data ends inside a mini-transaction"
			if l.missing != "" && g.bs.Stop == StopRingEnd {
				sc.StopDetail = fmt.Sprintf("the mini-transaction at LSN %d runs past the %s", mtr.LSN, g.bs.StopDetail)
			}
			break
		}
		if why != "" {
			if _, werr := walked(); werr != nil {
				return MLogScan{}, werr
			}
			sc.Stop, sc.StopDetail = StopMalformed, fmt.Sprintf("mini-transaction at LSN %d: %s", mtr.LSN, why)
			return sc, &FormatError{File: l.Name, Offset: -1, LSN: lsnAt(p.base, q), Msg: "corrupted log record: " + why}
		}
		mtr.EndLSN = lsnAt(p.base, q)
		sc.MTRs++
		sc.Records += len(mtr.Records)
		for i := range mtr.Records {
			byType[mtr.Records[i].Type]++
		}
		if fn != nil {
			if err := fn(&mtr); err != nil {
				walked()
				return sc, err
			}
		}
		sc.EndLSN, off = mtr.EndLSN, q
	}
	g, werr := walked()
	if werr != nil {
		return MLogScan{}, werr
	}
	if sc.Stop == "" {
		sc.Stop, sc.StopDetail = StopZero, "end of the written data"
		if l.missing != "" && g.bs.Stop == StopRingEnd {
			sc.StopDetail += " at the " + g.bs.StopDetail
		}
	}
	return sc, nil
}
