package discovery

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
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

// DDLLog is a ddl_recovery.log as the crash left it.
type DDLLog struct {
	Path    string
	Entries []DDLLogEntry // entry N (1-based) is Entries[N-1]
}

// ReadDDLLog reads a ddl_recovery.log; nil (and no error) when there is none or its header is
// not 10.6's (the server then skips DDL recovery: "Wrong header").
func ReadDDLLog(path string) (*DDLLog, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if len(b) < 9 || !bytes.Equal(b[:4], ddlLogMagic) {
		return nil, nil
	}
	le := binary.LittleEndian
	io, namePos := int(le.Uint16(b[4:])), int(le.Uint16(b[6:]))
	if io < 64 || namePos < 42 || namePos >= io {
		return nil, fmt.Errorf("%s: offset 4: io_size %d, name offset %d", path, io, namePos)
	}
	l := &DDLLog{Path: path}
	for pos := 1; (pos+1)*io <= len(b); pos++ {
		blk := b[pos*io : (pos+1)*io]
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
		l.Entries = append(l.Entries, e)
	}
	return l, nil
}

func (l *DDLLog) entry(pos uint32) *DDLLogEntry {
	if pos == 0 || int(pos) > len(l.Entries) {
		return nil
	}
	return &l.Entries[pos-1]
}

// Executed is the number of execute entries the server's ddl_log_execute_recovery runs (it
// prints "DDL_LOG: Crash recovery executed N entries"): every active one whose retry count is
// not exhausted and whose condition entry (the high bits of its unique id) is no longer active.
func (l *DDLLog) Executed() int {
	if l == nil {
		return 0
	}
	active := map[int]bool{}
	for _, e := range l.Entries {
		active[e.Pos] = e.Type == DDLExecute
	}
	n := 0
	for _, e := range l.Entries {
		if e.Type != DDLExecute || e.UniqueID&0xff >= ddlLogMaxRetry {
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
	var out [][]DDLLogEntry
	for _, e := range l.Entries {
		if e.Type != DDLExecute || e.UniqueID&0xff >= ddlLogMaxRetry {
			continue
		}
		var chain []DDLLogEntry
		seen := map[uint32]bool{}
		for next := e.Next; next != 0 && !seen[next]; {
			seen[next] = true
			a := l.entry(next)
			if a == nil {
				break
			}
			if !a.Done() {
				chain = append(chain, *a)
			}
			next = a.Next
		}
		if len(chain) > 0 {
			out = append(out, chain)
		}
	}
	return out
}
