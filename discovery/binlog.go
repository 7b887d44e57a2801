package discovery

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"innoscope/internal/regular"
)

// The binary log's layout (log_event.h of MariaDB 10.11): a magic, then events, each with a
// 19-byte header (timestamp 4, type 1, server id 4, event size 4, next position 4, flags 2).
const (
	binlogHeader     = 19
	binlogFDE        = 15  // FORMAT_DESCRIPTION_EVENT
	binlogXid        = 16  // XID_EVENT: the commit of a transaction, its 8-byte xid after the header
	binlogCheckpoint = 161 // BINLOG_CHECKPOINT_EVENT: the oldest file crash recovery reads
	binlogEncryption = 164 // START_ENCRYPTION_EVENT: the events after it are encrypted
	binlogInUse      = 0x1 // LOG_EVENT_BINLOG_IN_USE_F in the first event's flags: not closed
	maxBinlogIndex   = 1 << 20
)

var binlogMagic = []byte{0xfe, 'b', 'i', 'n'}

// Binlog is what the server's crash recovery reads of a binary log (TC_LOG_BINLOG::recover):
// the index, whether its last file was left open, and the xids of the transactions its files
// from the last binlog checkpoint on commit (Xid events). With them the server commits an
// InnoDB transaction it finds prepared under the binary log's own XA (its xid among them) and
// rolls back the others.
type Binlog struct {
	Index string   // the index file
	Files []string // the files read, oldest first
	InUse bool     // the last file was not closed: the server recovers prepared transactions from it
	// Xids are the committed transactions' xids, each with its file and the event's position.
	Xids map[uint64]BinlogPos
	// Incomplete says why part of the files could not be read ("": all of them were).
	Incomplete string
}

// BinlogPos is where a binary log event lies: its file (as the index names it) and offset.
type BinlogPos struct {
	File string `json:"file"`
	Pos  int64  `json:"pos"`
	Seq  int    `json:"-"` // the order of the event among those read
}

// FindBinlog looks in dir for a binary log index (a *.index file whose entries are binary log
// files) and reads it as the server's crash recovery does; nil, nil when there is none.
func FindBinlog(dir string) (*Binlog, error) {
	ms, _ := filepath.Glob(filepath.Join(dir, "*.index"))
	sort.Strings(ms)
	for _, m := range ms {
		names, err := readBinlogIndex(m)
		if err != nil || len(names) == 0 {
			continue
		}
		if !isBinlog(binlogPath(dir, names[len(names)-1])) {
			continue
		}
		return ReadBinlog(m, names)
	}
	return nil, nil
}

// readBinlogIndex gives the file names an index lists, one a line.
func readBinlogIndex(path string) ([]string, error) {
	f, err := regular.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxBinlogIndex))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			names = append(names, l)
		}
	}
	return names, nil
}

func binlogPath(dir, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(dir, name)
}

func isBinlog(path string) bool {
	f, err := regular.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var m [4]byte
	_, err = io.ReadFull(f, m[:])
	return err == nil && bytes.Equal(m[:], binlogMagic)
}

// ReadBinlog reads the binary log whose index (at index) lists names: the last file, then, when
// its last binlog checkpoint names an earlier file, that file and those after it.
func ReadBinlog(index string, names []string) (*Binlog, error) {
	dir := filepath.Dir(index)
	b := &Binlog{Index: index, Xids: map[uint64]BinlogPos{}}
	last := names[len(names)-1]
	seq := 0
	r, err := readBinlogFile(binlogPath(dir, last), last, b.Xids, &seq)
	if err != nil {
		return nil, err
	}
	b.InUse, b.Incomplete = r.inUse, r.incomplete
	from := len(names) - 1
	for i, n := range names[:len(names)-1] {
		if r.checkpoint != "" && filepath.Base(n) == r.checkpoint {
			from = i
		}
	}
	for _, n := range names[from : len(names)-1] {
		older := map[uint64]BinlogPos{}
		o, err := readBinlogFile(binlogPath(dir, n), n, older, &seq)
		if err != nil {
			b.Incomplete = join2(b.Incomplete, err.Error())
			continue
		}
		b.Incomplete = join2(b.Incomplete, o.incomplete)
		for x, p := range older {
			if _, dup := b.Xids[x]; !dup {
				b.Xids[x] = p
			}
		}
		b.Files = append(b.Files, n)
	}
	b.Files = append(b.Files, last)
	// order the events: files oldest first, then by position
	rank := map[string]int{}
	for i, f := range b.Files {
		rank[f] = i
	}
	type xp struct {
		x uint64
		p BinlogPos
	}
	var all []xp
	for x, p := range b.Xids {
		all = append(all, xp{x, p})
	}
	sort.Slice(all, func(i, j int) bool {
		if a, c := rank[all[i].p.File], rank[all[j].p.File]; a != c {
			return a < c
		}
		return all[i].p.Pos < all[j].p.Pos
	})
	for i, e := range all {
		e.p.Seq = i
		b.Xids[e.x] = e.p
	}
	return b, nil
}

func join2(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

type binlogFile struct {
	inUse      bool
	checkpoint string // the file the last binlog checkpoint event names
	incomplete string
}

// readBinlogFile reads the events of one binary log file into xids; a truncated or damaged
// event ends the file (the server's recovery stops there too).
func readBinlogFile(path, name string, xids map[uint64]BinlogPos, seq *int) (binlogFile, error) {
	var out binlogFile
	f, err := regular.Open(path)
	if err != nil {
		return out, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return out, err
	}
	r := bufio.NewReaderSize(f, 1<<20)
	var m [4]byte
	if _, err := io.ReadFull(r, m[:]); err != nil || !bytes.Equal(m[:], binlogMagic) {
		return out, fmt.Errorf("%s: not a binary log (no magic)", path)
	}
	pos := int64(4)
	var h [binlogHeader]byte
	for first := true; ; first = false {
		if _, err := io.ReadFull(r, h[:]); err != nil {
			if !errors.Is(err, io.EOF) {
				out.incomplete = fmt.Sprintf("%s: a truncated event header at %d", name, pos)
			}
			return out, nil
		}
		typ, size := h[4], int64(binary.LittleEndian.Uint32(h[9:]))
		flags := binary.LittleEndian.Uint16(h[17:])
		if size < binlogHeader || pos+size > st.Size() {
			out.incomplete = fmt.Sprintf("%s: an event of %d bytes at %d past the end of the file (%d bytes)", name, size, pos, st.Size())
			return out, nil
		}
		body := size - binlogHeader
		switch {
		case first && typ != binlogFDE:
			return out, fmt.Errorf("%s: the first event (type %d) is no format description", name, typ)
		case first:
			out.inUse = flags&binlogInUse != 0
		case typ == binlogXid && body >= 8:
			var x [8]byte
			if _, err := io.ReadFull(r, x[:]); err != nil {
				return out, nil
			}
			body -= 8
			xids[binary.LittleEndian.Uint64(x[:])] = BinlogPos{File: name, Pos: pos, Seq: *seq}
			*seq++
		case typ == binlogCheckpoint && body >= 4 && body < 1<<16:
			b := make([]byte, body)
			if _, err := io.ReadFull(r, b); err != nil {
				return out, nil
			}
			if n := int(binary.LittleEndian.Uint32(b)); n <= len(b)-4 {
				out.checkpoint = filepath.Base(string(b[4 : 4+n]))
			}
			body = 0
		case typ == binlogEncryption:
			out.incomplete = fmt.Sprintf("%s: encrypted from %d on (the events after it are not read)", name, pos)
			return out, nil
		}
		if _, err := r.Discard(int(body)); err != nil {
			return out, nil
		}
		pos += size
	}
}
