package logformat

import "fmt"

// MariaDB 10.5 to 10.7 (header format "PHYS", log0log.h and log0recv.cc of 10.5): the records
// of 10.8 (mtr0types.h mrec_type_t, the same bytes) inside the 512-byte blocks and
// checkpoint blocks of the older ib_logfile0 ring. A mini-transaction is its records followed
// by one 0x00 byte (recv_sys_t::parse, "eom_found"); the blocks' CRC-32C protects them, so
// there is no per-mini-transaction checksum and no sequence bit (both came with 10.8).

// Physical reports whether the log is a MariaDB 10.5-10.7 one (10.8 records in blocks), whose
// records PhysScanner decodes; MLOG logs are decoded by ScanRecords.
//
// The end of such a log is the end of the written data (the last block's data length), not a
// 0x00 byte: log0recv.cc of 10.5 (recv_sys_t::parse) reads a 0x00 where a mini-transaction
// starts as an empty one and goes on, and 10.5 writes such a byte after every FILE_RENAME.
func (l *BlockLog) Physical() bool { return l.physical }

// PhysScanner decodes the mini-transactions of a MariaDB 10.5-10.7 log from the LSN from (a
// mini-transaction start, such as the checkpoint LSN), or with from 0 from the first one that
// starts in the walked blocks, to the end of the written data, and returns a Scanner over them
// (checked against innodb_page_size pageSize like the 10.8 scanner). The records of the
// written blocks are held in memory.
func (l *BlockLog) PhysScanner(from uint64, pageSize int) (*Scanner, error) {
	if !l.physical {
		return nil, &FormatError{File: l.Name, Offset: 0, Err: ErrUnsupported, Msg: "not a MariaDB 10.5-10.7 log"}
	}
	g, err := l.gather()
	if err != nil {
		return nil, err
	}
	if pageSize == 0 {
		pageSize = 16384
	}
	s := &Scanner{opt: ScanOptions{PageSize: pageSize}, name: l.Name, stopOff: -1}
	off, why, err := g.startAt(l, from)
	if err != nil {
		return nil, err
	}
	s.lsn = g.lsnOf(off)
	if why != "" {
		s.preStop, s.preDetail = StopZero, why
		return s, nil
	}
	s.pre = []MTR{}
	for off < len(g.data) {
		p := g.data[off:]
		if p[0] == 0 {
			// An empty mini-transaction: 10.5 writes one after each FILE_RENAME, and its parser
			// takes a 0x00 where a mini-transaction starts as one that ends at once.
			off++
			continue
		}
		end, reason, detail := physEnd(p)
		if reason != "" {
			s.preStop, s.preDetail = reason, detail
			break
		}
		s.mtr = MTR{LSN: g.lsnOf(off), EndLSN: g.lsnOf(off + end + 1)}
		if at, why := s.decode(p[:end+1], end); why != "" {
			s.preStop, s.preDetail, s.preAt = StopMalformed, why, g.lsnOf(off+at)
			break
		}
		s.pre = append(s.pre, s.mtr)
		off += end + 1
	}
	if s.preStop == "" {
		s.preStop, s.preDetail = StopZero, "end of the written data"
	}
	s.mtr = MTR{}
	return s, nil
}

// physEnd finds the 0x00 byte that ends the mini-transaction at the start of p (mtrEnd);
// reason is set when p ends first or a length is invalid.
func physEnd(p []byte) (int, StopReason, string) {
	i, fault := mtrEnd(p, 0)
	switch fault {
	case mtrRunsOut, mtrLengthRunsOut:
		return 0, StopZero, "the written data ends inside a mini-transaction"
	case mtrTooLong:
		return 0, StopLength, "mini-transaction longer than 1 MiB"
	case mtrBadLength:
		return 0, StopLength, fmt.Sprintf("invalid record length at byte %d of the mini-transaction", i)
	}
	return i, "", ""
}
