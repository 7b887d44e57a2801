package redo

import (
	"innoscope/logformat"
)

// MTRs is a forward pass over decoded mini-transactions: a *logformat.Scanner, or the
// mini-transactions a Decoded kept from one.
type MTRs interface {
	// Next moves to the next mini-transaction; false at the end (Err and StopError say why).
	Next() bool
	// MTR is the mini-transaction of the last successful Next; it and its records' byte slices
	// are reused by the following Next.
	MTR() *logformat.MTR
	// LSN is the end of the last mini-transaction returned (before the first Next: the start).
	LSN() uint64
	// Err is an I/O or argument error that ended the pass.
	Err() error
	// StopError is a corrupt record that ended the pass, as an error naming file, offset and LSN.
	StopError() error
}

// Decoded keeps the mini-transactions of one scan of a MariaDB 10.8+ log, as they are read, in
// memory in a compact form (no pointers for the garbage collector to follow; the records' byte
// slices copied into large blocks), so that a second pass over the same range (recover's
// replay after its analysis) needs no reading, checking or decoding of the log again: the
// mini-transactions, their records (every field but Pos and Len, which no second pass reads,
// and the MTR's CRC) and where and why the scan ended are those of the scan. Past limit bytes
// nothing is kept (Complete is false) and the second pass scans the log again.
type Decoded struct {
	limit, bytes int64
	start        uint64
	chunks       []*decodedChunk
	dropped      bool // the limit was reached: nothing is kept
	ended        bool // End was called: how the scan ended is below
	endLSN       uint64
	err, stopErr error
}

// decodedChunk holds consecutive mini-transactions, the first starting at lsn: mtr k has the
// next ns[k] records of recs and is sizes[k] bytes long. A record's Data are the next n bytes of
// data, and a record with extra fields has the next entry of extra.
type decodedChunk struct {
	lsn   uint64
	sizes []uint32
	ns    []uint32
	recs  []decodedRec
	data  []byte
	extra []decodedExtra
}

// size is the memory of c.
func (c *decodedChunk) size() int64 {
	return int64(cap(c.sizes))*8 + int64(cap(c.recs))*28 + int64(cap(c.data)) + int64(cap(c.extra))*48
}

// decodedRec is a Record without its pointers and without the fields most records leave zero.
type decodedRec struct {
	typ                    logformat.Type
	sub                    uint8
	same                   bool
	extra                  bool // the next decodedExtra of the chunk is this record's
	space, page            uint32
	offset, length, source uint32
	n                      uint32 // len(Data)
}

// decodedExtra are the fields of a Record most records leave zero.
type decodedExtra struct {
	ext       logformat.Ext
	cpLSN     uint64
	malformed string
}

// A chunk holds up to decodedChunkMTRs mini-transactions and decodedChunkRecs records (more
// for a mini-transaction with more); its bytes start with room for the usual number and grow
// as needed (they are found by offset, never by pointer).
const (
	decodedChunkMTRs = 1 << 15
	decodedChunkRecs = 1 << 16
	decodedChunkData = 1 << 20
)

// NewDecoded keeps up to limit bytes of the mini-transactions read by sc (a scan of l not yet
// advanced) as they are given to Add; nil (which keeps nothing) when limit is 0 or l is not a
// MariaDB 10.8+ log.
func NewDecoded(l *Log, sc *logformat.Scanner, limit int64) *Decoded {
	if limit <= 0 || l == nil || l.v108 == nil || sc == nil {
		return nil
	}
	return &Decoded{limit: limit, start: sc.LSN()}
}

// Add keeps m, the scan's next mini-transaction.
func (d *Decoded) Add(m *logformat.MTR) {
	if d == nil || d.dropped {
		return
	}
	var c *decodedChunk
	if len(d.chunks) > 0 {
		c = d.chunks[len(d.chunks)-1]
	}
	if c == nil || len(c.sizes) == cap(c.sizes) || len(c.recs)+len(m.Records) > cap(c.recs) {
		c = &decodedChunk{lsn: m.LSN, sizes: make([]uint32, 0, decodedChunkMTRs), ns: make([]uint32, 0, decodedChunkMTRs),
			recs: make([]decodedRec, 0, max(decodedChunkRecs, len(m.Records))), data: make([]byte, 0, decodedChunkData)}
		d.chunks = append(d.chunks, c)
		d.bytes += c.size()
	}
	before := c.size()
	for i := range m.Records {
		r := &m.Records[i]
		k := decodedRec{typ: r.Type, sub: r.Sub, same: r.SamePage, space: r.Space, page: r.Page, offset: r.Offset,
			length: r.Length, source: r.Source, n: uint32(len(r.Data))}
		c.data = append(c.data, r.Data...)
		if r.Ext != (logformat.Ext{}) || r.CheckpointLSN != 0 || r.Malformed != "" {
			c.extra = append(c.extra, decodedExtra{ext: r.Ext, cpLSN: r.CheckpointLSN, malformed: r.Malformed})
			k.extra = true
		}
		c.recs = append(c.recs, k)
	}
	c.sizes = append(c.sizes, uint32(m.EndLSN-m.LSN))
	c.ns = append(c.ns, uint32(len(m.Records)))
	if d.bytes += c.size() - before; d.bytes > d.limit {
		d.chunks, d.dropped = nil, true
	}
}

// End records how the scan sc (the one Add was fed from) ended.
func (d *Decoded) End(sc *logformat.Scanner) {
	if d != nil {
		d.ended, d.endLSN, d.err, d.stopErr = true, sc.LSN(), sc.Err(), sc.StopError()
	}
}

// Complete reports whether d holds the whole scan (it ended, nothing was dropped).
func (d *Decoded) Complete() bool { return d != nil && !d.dropped && d.ended }

// Bytes is the memory d holds.
func (d *Decoded) Bytes() int64 {
	if d == nil || d.dropped {
		return 0
	}
	return d.bytes
}

// Pass returns the second pass over the kept mini-transactions, or nil when d is not Complete.
// There is one pass: the memory of the mini-transactions it has gone past is released.
func (d *Decoded) Pass() MTRs {
	if !d.Complete() {
		return nil
	}
	return &decodedPass{d: d, lsn: d.start}
}

// decodedPass is MTRs over a Decoded.
type decodedPass struct {
	d     *Decoded
	ci, k int // the chunk, and the mini-transaction in it, Next returns next
	// where the next mini-transaction's records, bytes and extra fields are in the chunk
	rec, data, extra int
	mtr              logformat.MTR
	recs             []logformat.Record
	lsn              uint64
}

func (p *decodedPass) Next() bool {
	for p.ci < len(p.d.chunks) {
		c := p.d.chunks[p.ci]
		if p.k == len(c.sizes) {
			p.d.chunks[p.ci] = nil // gone past: its memory can go
			p.ci, p.k, p.rec, p.data, p.extra = p.ci+1, 0, 0, 0, 0
			continue
		}
		if p.k == 0 {
			p.lsn = c.lsn
		}
		n := int(c.ns[p.k])
		recs := p.recs[:0]
		for _, r := range c.recs[p.rec : p.rec+n] {
			rec := logformat.Record{Type: r.typ, SamePage: r.same, Space: r.space, Page: r.page, Offset: r.offset,
				Length: r.length, Source: r.source, Sub: r.sub}
			if r.n > 0 {
				end := p.data + int(r.n)
				rec.Data, p.data = c.data[p.data:end:end], end
			}
			if r.extra {
				e := &c.extra[p.extra]
				rec.Ext, rec.CheckpointLSN, rec.Malformed = e.ext, e.cpLSN, e.malformed
				p.extra++
			}
			recs = append(recs, rec)
		}
		p.rec += n
		p.recs = recs
		p.mtr = logformat.MTR{LSN: p.lsn, EndLSN: p.lsn + uint64(c.sizes[p.k]), Records: recs}
		p.lsn = p.mtr.EndLSN
		p.k++
		return true
	}
	p.lsn = p.d.endLSN
	return false
}

func (p *decodedPass) MTR() *logformat.MTR { return &p.mtr }
func (p *decodedPass) LSN() uint64         { return p.lsn }
func (p *decodedPass) Err() error          { return p.d.err }
func (p *decodedPass) StopError() error    { return p.d.stopErr }

// LastMTRs maps every page that page records of d name (space id, page number; TRIM_PAGES
// names a size, not a page) to the start LSN of the last mini-transaction naming it; nil when d
// is not Complete. It only reads d: it may run beside anything but Pass.
func (d *Decoded) LastMTRs() map[[2]uint32]uint64 {
	if !d.Complete() {
		return nil
	}
	last := map[[2]uint32]uint64{}
	for _, c := range d.chunks {
		lsn, rec := c.lsn, 0
		for k, size := range c.sizes {
			for _, r := range c.recs[rec : rec+int(c.ns[k])] {
				if r.same || r.typ >= logformat.FileCreate || r.typ == logformat.Extended && logformat.ExtSubtype(r.sub) == logformat.TrimPages {
					continue
				}
				last[[2]uint32{r.space, r.page}] = lsn
			}
			rec += int(c.ns[k])
			lsn += uint64(size)
		}
	}
	return last
}
