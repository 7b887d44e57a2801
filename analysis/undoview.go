package analysis

import (
	"fmt"
	"path/filepath"
	"strings"

	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/logformat"
)

// UndoView is the system and undo tablespaces as crash recovery leaves them, held in memory
// (the files are only read): their undo logs and the data dictionary.
type UndoView struct {
	Trxs    []discovery.UndoTrx
	Tables  []discovery.DictTable
	Indexes []discovery.DictIndex
	// Columns and Fields are SYS_COLUMNS and SYS_FIELDS (nil: unreadable).
	Columns []discovery.DictColumn
	Fields  []discovery.DictField
	// Pages applies the log (sc, from the checkpoint) for the tablespaces spaces in memory and
	// reads their pages as crash recovery leaves them (nil: not available); close releases
	// the files.
	Pages func(sc *logformat.Scanner, spaces map[uint32]bool) (read discovery.PageReader, close func(), err error)
}

// SourcePath maps a file name from the redo log (relative to datadir, or absolute) to its path.
func SourcePath(datadir string) func(name string) string {
	return func(name string) string {
		if filepath.IsAbs(name) {
			return name
		}
		return filepath.Join(datadir, name)
	}
}

// pendingRollback is PlanRollback on in.Undo, limited to the tablespaces the server's crash
// recovery has open when it rolls back (those the log names and does not delete).
func pendingRollback(in Input) []RolledBackDDL {
	if in.Undo == nil || in.Analysis == nil {
		return nil
	}
	var out []RolledBackDDL
	for _, e := range PlanRollback(in.Undo.Trxs, in.Undo.Tables, in.Undo.Indexes) {
		if s := in.Analysis.Map.Spaces[e.SpaceID]; e.SpaceID != 0 && s != nil && !s.Deleted {
			out = append(out, e)
		}
	}
	return out
}

// uncommittedDDLFindings: UNCOMMITTED_DDL (info) for each DDL transaction the crash left
// uncommitted whose rollback moves or removes files.
func uncommittedDDLFindings(in Input) []finding.Finding {
	var out []finding.Finding
	byTrx := map[uint64][]string{}
	var order []uint64
	for _, e := range pendingRollback(in) {
		if byTrx[e.TrxID] == nil {
			order = append(order, e.TrxID)
		}
		w := fmt.Sprintf("renames tablespace %d back to %s", e.SpaceID, e.Table)
		if e.Action == "delete" {
			w = fmt.Sprintf("drops tablespace %d (%s), which it created", e.SpaceID, e.Table)
		}
		byTrx[e.TrxID] = append(byTrx[e.TrxID], w)
	}
	for _, id := range order {
		out = append(out, finding.Finding{Severity: finding.Info, Code: "UNCOMMITTED_DDL", File: in.Datadir,
			Message: fmt.Sprintf("the crash cut DDL transaction %d before its commit; crash recovery rolls it back: %s (recover does the same in its copy, where the server finishes the rollback)",
				id, strings.Join(byTrx[id], ", then "))})
	}
	return out
}
