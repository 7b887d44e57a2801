package discovery

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"innoscope/internal/regular"
	"io"
	"io/fs"
)

// MariaDB 10.6+ keeps the SQL layer's DDL log in ddl_recovery.log (sql/ddl_log.cc): a header
// block, then one block of io_size bytes per entry. After InnoDB's crash recovery the server
// executes every chain of actions an active execute entry points to (completing or reverting an
// interrupted RENAME, DROP, CREATE, ALTER TABLE, partition EXCHANGE...).
const (
	ddlLogMaxRetry = 3 // DDL_LOG_MAX_RETRY
	ddlFinalPhase  = 0xff
)

var ddlLogMagic = []byte{254, 254, 11, 2}

// DDL log entry types (ddl_log_entry_code).
const (
	DDLExecute = 1 // DDL_LOG_EXECUTE_CODE: heads a chain of actions to execute
	DDLEntry   = 2 // DDL_LOG_ENTRY_CODE: an action
	DDLIgnore  = 3 // DDL_LOG_IGNORE_ENTRY_CODE: done
)

// ddlActions are ddl_log_action_name, and ddlPhases ddl_log_entry_phases, by action code.
var ddlActions = []string{"unknown", "partitioning delete", "partitioning rename", "partitioning replace",
	"partitioning exchange", "rename table", "rename view", "initialize drop table", "drop table", "drop view",
	"drop trigger", "drop db", "create table", "create view", "delete tmp file", "create trigger", "alter table", "store query"}
var ddlPhases = []byte{0, 1, 1, 2, 3, 3, 1, 1, 4, 1, 1, 2, 1, 3, 0, 3, 11, 1}

// DDLLogEntry is one block of ddl_recovery.log.
type DDLLogEntry struct {
	Pos      int    `json:"pos"`
	Type     byte   `json:"type"`
	Action   byte   `json:"action"`
	Phase    byte   `json:"phase"`
	Next     uint32 `json:"next"`
	Flags    uint16 `json:"flags"` // DDL_LOG_FLAG_*, what is particular to the statement
	UniqueID uint64 `json:"unique_id"`
	// The names, in the order ddl_log.cc stores them.
	Handler, DB, Name, FromHandler, FromDB, FromName, TmpName, ExtraName string
}

// ActionName is the server's name of the entry's action.
func (e DDLLogEntry) ActionName() string {
	if int(e.Action) < len(ddlActions) {
		return ddlActions[e.Action]
	}
	return fmt.Sprintf("action %d", e.Action)
}

// Done reports an action entry the server will not execute again (all its phases are done).
func (e DDLLogEntry) Done() bool {
	return e.Type != DDLEntry || e.Phase == ddlFinalPhase || int(e.Action) >= len(ddlPhases) || e.Phase >= ddlPhases[e.Action]
}

// DDLLog is what recovery does with a ddl_recovery.log as the crash left it: its execute
// entries and the actions of their chains not done yet.
type DDLLog struct {
	Path     string
	executes []DDLLogEntry // the execute entries, in file order
	pending  [][]DDLLogEntry
}

// ddlLogMaxActive bounds the execute entries and the pending actions kept of a log: a server
// writes an execute entry per DDL statement in flight, at most one per connection (max_connections
// is at most 100000), and a few actions each; a log claiming more is not one the server wrote, and
// is refused rather than held in memory.
const ddlLogMaxActive = 100000

// ReadDDLLog reads a ddl_recovery.log as the server's DDL recovery does, entry by entry (io_size
// bytes each, as many as the file holds after its header block), so that memory stays bounded
// whatever the file's size; nil (and no error) when there is none or its header is not 10.6's
// (the server then skips DDL recovery: "Wrong header"). Anything but a regular file is refused
// without blocking.
func ReadDDLLog(path string) (*DDLLog, error) {
	f, size, err := regular.OpenSized(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	defer f.Close()
	var head [9]byte
	if n, _ := f.ReadAt(head[:], 0); n < len(head) || !bytes.Equal(head[:4], ddlLogMagic) {
		return nil, nil
	}
	le := binary.LittleEndian
	ioSize, namePos := int64(le.Uint16(head[4:])), int(le.Uint16(head[6:]))
	if ioSize < 64 || namePos < 42 || int64(namePos) >= ioSize {
		return nil, fmt.Errorf("%s: offset 4: io_size %d, name offset %d", path, ioSize, namePos)
	}
	l := &DDLLog{Path: path}
	n := size/ioSize - 1 // entries after the header block
	blk := make([]byte, ioSize)
	read := func(pos int64) (DDLLogEntry, error) {
		if _, err := f.ReadAt(blk, pos*ioSize); err != nil {
			return DDLLogEntry{}, fmt.Errorf("%s: offset %d: entry %d: %w", path, pos*ioSize, pos, err)
		}
		return parseDDLEntry(blk, int(pos), namePos), nil
	}
	r := bufio.NewReaderSize(io.NewSectionReader(f, ioSize, max(n, 0)*ioSize), 1<<20)
	for pos := int64(1); pos <= n; pos++ {
		if _, err := io.ReadFull(r, blk); err != nil {
			return nil, fmt.Errorf("%s: offset %d: entry %d: %w", path, pos*ioSize, pos, err)
		}
		if blk[0] != DDLExecute {
			continue
		}
		if len(l.executes) == ddlLogMaxActive {
			return nil, fmt.Errorf("%s: offset %d: more than %d active execute entries: not a DDL log a server wrote (one entry per DDL statement in flight); move it aside to read the rest",
				path, pos*ioSize, ddlLogMaxActive)
		}
		e := parseDDLEntry(blk, int(pos), namePos)
		l.executes = append(l.executes, e)
	}
	kept := 0
	for _, e := range l.executes {
		if e.UniqueID&0xff >= ddlLogMaxRetry {
			continue
		}
		var chain []DDLLogEntry
		// A chain longer than the log loops (the server's would never end); no map of the
		// entries seen is kept.
		for next, steps := int64(e.Next), int64(0); next != 0 && next <= n && steps < n; steps++ {
			a, err := read(next)
			if err != nil {
				return nil, err
			}
			if !a.Done() {
				if kept++; kept > ddlLogMaxActive {
					return nil, fmt.Errorf("%s: more than %d pending DDL actions: not a DDL log a server wrote; move it aside to read the rest", path, ddlLogMaxActive)
				}
				chain = append(chain, a)
			}
			next = int64(a.Next)
		}
		if len(chain) > 0 {
			l.pending = append(l.pending, chain)
		}
	}
	return l, nil
}

// parseDDLEntry decodes entry pos of a DDL log from its block (names from namePos on).
func parseDDLEntry(blk []byte, pos, namePos int) DDLLogEntry {
	le := binary.LittleEndian
	e := DDLLogEntry{Pos: pos, Type: blk[0], Action: blk[1], Phase: blk[2], Next: le.Uint32(blk[4:]), Flags: le.Uint16(blk[8:]), UniqueID: le.Uint64(blk[34:])}
	p := namePos
	str := func() string {
		if p+3 > len(blk) {
			return ""
		}
		n := int(le.Uint16(blk[p:]))
		if p+2+n > len(blk) {
			p = len(blk)
			return ""
		}
		s := string(blk[p+2 : p+2+n])
		p += n + 3
		return s
	}
	e.Handler, e.DB, e.Name, e.FromHandler, e.FromDB, e.FromName, e.TmpName, e.ExtraName =
		str(), str(), str(), str(), str(), str(), str(), str()
	return e
}

// Executed is the number of execute entries the server's ddl_log_execute_recovery runs (it
// prints "DDL_LOG: Crash recovery executed N entries"): every active one whose retry count is
// not exhausted and whose condition entry (the high bits of its unique id) is no longer active.
func (l *DDLLog) Executed() int {
	if l == nil {
		return 0
	}
	active := map[int]bool{}
	for _, e := range l.executes {
		active[e.Pos] = true
	}
	n := 0
	for _, e := range l.executes {
		if e.UniqueID&0xff >= ddlLogMaxRetry {
			continue
		}
		cond := int((e.UniqueID + 1) >> 8)
		active[e.Pos] = false // executed, or disabled because its condition holds
		if cond != 0 && active[cond] {
			continue
		}
		n++
	}
	return n
}

// Pending returns, for every execute entry the server runs, the actions of its chain that are
// not done yet (in execution order); chains with nothing left are omitted.
func (l *DDLLog) Pending() [][]DDLLogEntry {
	if l == nil {
		return nil
	}
	return l.pending
}
