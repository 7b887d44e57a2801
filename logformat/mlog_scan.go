package logformat

import "fmt"

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
// checkpoint's block, or where SetWalkStart put it. The record bytes of the written blocks are held in memory (at most the
// files).
func (l *BlockLog) ScanRecords(from uint64, fn func(*MLogMTR) error) (MLogScan, error) {
	// One walk verifies the blocks and gathers their record bytes.
	// Preallocate for the blocks the chain can hold, up to 8 MiB; beyond, appending grows.
	n := 0
	for f := l; f != nil && n < 8<<20/BlockSize; f = f.next {
		n += int(f.Size-mysqlFileHdrSize) / BlockSize
	}
	if l.ring != nil {
		n = int(l.ring.capacity() / BlockSize)
	}
	n = min(n, 8<<20/BlockSize)
	blocks, data := make([]Block, 0, n), make([]byte, 0, n*blockPayload)
	bs, err := l.walkBlocks(func(blk Block, b []byte) {
		blocks = append(blocks, blk)
		end := int(blk.DataLen)
		if end > BlockSize-4 {
			end = BlockSize - 4
		}
		data = append(data, b[blockHeaderSize:end]...)
	})
	if err != nil {
		return MLogScan{}, err
	}
	sc := MLogScan{DataEndLSN: bs.EndLSN, ByType: map[MLogType]int{}, Blocks: blocks}
	base := l.walkStart()
	if bs.EndLSN <= base || len(blocks) == 0 {
		sc.Stop, sc.StopDetail = StopZero, "no written blocks"
		return sc, nil
	}
	lsnOf := func(off int) uint64 {
		return base + uint64(off/blockPayload)*BlockSize + blockHeaderSize + uint64(off%blockPayload)
	}
	off := -1
	switch {
	case from != 0:
		d := from - base
		if from < base || d%BlockSize < blockHeaderSize || d%BlockSize >= BlockSize-4 || from > bs.EndLSN {
			return sc, &FormatError{File: l.Name, Offset: -1, LSN: from, Msg: "start LSN is not a record position of this file"}
		}
		off = int(d/BlockSize)*blockPayload + int(d%BlockSize) - blockHeaderSize
	case len(bs.RecordGroups) > 0:
		d := bs.RecordGroups[0] - base
		off = int(d/BlockSize)*blockPayload + int(d%BlockSize) - blockHeaderSize
	default:
		sc.Stop, sc.StopDetail = StopZero, "no mini-transaction starts in this file"
		return sc, nil
	}
	sc.StartLSN, sc.EndLSN = lsnOf(off), lsnOf(off)
	var mtr MLogMTR
	var byType [256]int
	defer func() {
		for t, n := range byType {
			if n > 0 {
				sc.ByType[MLogType(t)] = n
			}
		}
	}()
	for off < len(data) {
		mtr = MLogMTR{LSN: lsnOf(off), Records: mtr.Records[:0]}
		p, why := off, ""
		for {
			rec, w := parseMLog(data[p:], l.Dialect)
			if w != "" {
				why = w
				break
			}
			rec.LSN = lsnOf(p)
			p += rec.Len
			if rec.Single && len(mtr.Records) > 0 {
				why = fmt.Sprintf("%s with MLOG_SINGLE_REC_FLAG inside a multi-record mini-transaction", rec.Type)
				break
			}
			mtr.Records = append(mtr.Records, rec)
			if rec.Single || rec.Type == MLogMultiRecEnd || rec.Type == MLogDummyRecord {
				break
			}
		}
		if why == mlogShort {
			sc.Stop, sc.StopDetail = StopZero, "the written data ends inside a mini-transaction"
			break
		}
		if why != "" {
			sc.Stop, sc.StopDetail = StopMalformed, fmt.Sprintf("mini-transaction at LSN %d: %s", mtr.LSN, why)
			return sc, &FormatError{File: l.Name, Offset: -1, LSN: lsnOf(p), Msg: "corrupted log record: " + why}
		}
		mtr.EndLSN = lsnOf(p)
		sc.MTRs++
		sc.Records += len(mtr.Records)
		for _, r := range mtr.Records {
			byType[r.Type]++
		}
		if fn != nil {
			if err := fn(&mtr); err != nil {
				return sc, err
			}
		}
		sc.EndLSN, off = mtr.EndLSN, p
	}
	if sc.Stop == "" {
		sc.Stop, sc.StopDetail = StopZero, "end of the written data"
	}
	return sc, nil
}
