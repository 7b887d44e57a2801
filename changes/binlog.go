package changes

import (
	"encoding/binary"
	"fmt"
	"sort"

	"innoscope/discovery"
)

// The XID of an undo log header (trx0undo.h), at offsets from the header's start, and the
// server's own XID for the binary log's two-phase commit (handler.h: formatID 1, gtrid
// "MySQLXid", the server id and the 8-byte xid, no bqual).
const (
	undoXidExists  = 20 // TRX_UNDO_XID_EXISTS
	undoXaFormat   = 46 // TRX_UNDO_XA_FORMAT (after the 46-byte header without XID)
	undoXaTridLen  = 50 // TRX_UNDO_XA_TRID_LEN
	undoXaBqualLen = 54 // TRX_UNDO_XA_BQUAL_LEN
	undoXaData     = 58 // TRX_UNDO_XA_XID
	xidDataSize    = 128
	mysqlXidPrefix = "MySQLXid"
)

// binlogXid reads the XID of the last undo log header of the header page p: the binary log's xid
// when the transaction was prepared by the server for its binary log, else 0 (no XID, or one
// of an XA transaction of a user).
func binlogXid(p []byte) uint64 {
	if len(p) < undoLastLog+2 {
		return 0
	}
	h := int(binary.BigEndian.Uint16(p[undoLastLog:]))
	if h < undoSegHdr || h+undoXaData+xidDataSize > len(p) || p[h+undoXidExists] == 0 {
		return 0
	}
	format := binary.BigEndian.Uint32(p[h+undoXaFormat:])
	gl := int(binary.BigEndian.Uint32(p[h+undoXaTridLen:]))
	bl := binary.BigEndian.Uint32(p[h+undoXaBqualLen:])
	data := p[h+undoXaData : h+undoXaData+xidDataSize]
	// the server id between prefix and xid is 4 or 8 bytes wide (its C type's size)
	if format != 1 || bl != 0 || (gl != len(mysqlXidPrefix)+4+8 && gl != len(mysqlXidPrefix)+8+8) ||
		string(data[:len(mysqlXidPrefix)]) != mysqlXidPrefix {
		return 0
	}
	return binary.LittleEndian.Uint64(data[gl-8 : gl])
}

// ByBinlog settles the transactions prepared for the binary log as the server's crash
// recovery does with the binary log b (nil: none found; where says where it was looked
// for): one whose xid the binary log commits is committed (after those the redo log commits,
// in the binary log's order), one it does not is rolled back; without a binary log the server
// could read (none, closed cleanly, partly unreadable) it stays prepared, and Binlog says why.
func ByBinlog(trxs []*Trx, b *discovery.Binlog, where string) []*Trx {
	var done, byLog, rest []*Trx
	for _, t := range trxs {
		switch {
		case t.State != Prepared || t.Xid == 0:
			if t.EndLSN != 0 {
				done = append(done, t)
			} else {
				rest = append(rest, t)
			}
			continue
		case b == nil:
			t.Binlog = fmt.Sprintf("prepared for the binary log (xid %d): the server commits it at start if its binary log has Xid %d, else rolls it back; no binary log index in %s", t.Xid, t.Xid, where)
		case !b.InUse:
			t.Binlog = fmt.Sprintf("prepared for the binary log (xid %d), but %s was closed cleanly: the server does not recover from it and asks for --tc-heuristic-recover", t.Xid, b.Index)
		default:
			if p, ok := b.Xids[t.Xid]; ok {
				t.State = Committed
				t.Binlog = fmt.Sprintf("its commit is not in the redo log: the server's recovery commits it, the binary log committing Xid %d (%s at %d)", t.Xid, p.File, p.Pos)
				byLog = append(byLog, t)
				continue
			}
			if b.Incomplete != "" {
				t.Binlog = fmt.Sprintf("prepared for the binary log (xid %d), which has no Xid %d in what could be read (%s)", t.Xid, t.Xid, b.Incomplete)
			} else {
				t.State = RolledBack
				t.Binlog = fmt.Sprintf("prepared for the binary log, which has no Xid %d: the server's recovery rolls it back", t.Xid)
			}
		}
		rest = append(rest, t)
	}
	sort.SliceStable(byLog, func(i, j int) bool { return b.Xids[byLog[i].Xid].Seq < b.Xids[byLog[j].Xid].Seq })
	return append(append(done, byLog...), rest...)
}
