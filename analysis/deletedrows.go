package analysis

import (
	"fmt"
	"sort"

	"innoscope/discovery"
	"innoscope/finding"
)

// deletedRowsFindings: DELETED_ROWS_ON_DISK (info) for each table whose clustered index's leaf
// pages, as read for their checksums, hold delete-marked records: deleted rows purge has not
// removed yet (or changes of transactions the crash left uncommitted), which `rows --deleted`
// prints. The pages are the files as they are on disk, before any crash recovery.
func deletedRowsFindings(in Input, dir string) []finding.Finding {
	clustered := map[uint64]discovery.DictIndex{} // table id → its clustered index
	for _, ix := range in.Indexes {
		if !ix.Deleted && ix.Type&1 != 0 {
			clustered[ix.TableID] = ix
		}
	}
	bySpace := map[uint32][]string{} // space id → the files read with it
	for p, r := range in.Pages {
		if r != nil && len(r.DeleteMarked) > 0 {
			bySpace[r.SpaceID] = append(bySpace[r.SpaceID], p)
		}
	}
	var fs []finding.Finding
	for _, t := range in.Dict {
		ix, ok := clustered[t.ID]
		if t.Deleted || !ok || len(bySpace[t.SpaceID]) == 0 {
			continue
		}
		n, file := 0, ""
		for _, p := range bySpace[t.SpaceID] {
			if c := in.Pages[p].DeleteMarked[ix.ID]; c > 0 {
				n, file = n+c, p
			}
		}
		if n == 0 {
			continue
		}
		name := discovery.SQLTableName(t.Name)
		fs = append(fs, finding.Finding{Severity: finding.Info, Code: "DELETED_ROWS_ON_DISK", SpaceID: u32(t.SpaceID), File: file,
			Message: fmt.Sprintf("%s: %d delete-marked records on the leaf pages as they are on disk (deleted rows purge has not removed yet, or changes of uncommitted transactions): "+
				"`innoscope rows %s %s --deleted` prints the deleted rows still on disk", name, n, dir, name)})
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].Message < fs[j].Message })
	return fs
}
