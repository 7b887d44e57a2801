package analysis

import (
	"innoscope/finding"
	"path/filepath"
	"sort"
	"strings"

	"innoscope/discovery"
)

// FailingTable is a live table of the dictionary that an error finding says the server will not
// be able to open (its file missing, another space id, its metadata rejected, ...).
type FailingTable struct {
	// Table is db.t, as CHECK TABLE and rows name it (discovery.SQLTableName); a partitioned
	// table's partition is Partition (p0, or p0#SP#s0 for a subpartition).
	Table     string `json:"table"`
	Partition string `json:"partition,omitempty"`
	SpaceID   uint32 `json:"space_id"`
	Code      string `json:"code"`
	File      string `json:"file"`
}

// FailingTables are the live tables of in's dictionary that an error finding of fs names, by
// its space id (else by its file's db/t name), sorted by table; the system tablespace's tables
// are left out (an error there is the server's, not a table's).
func FailingTables(in Input, fs []finding.Finding) []FailingTable {
	var out []FailingTable
	seen := map[FailingTable]bool{}
	for _, f := range fs {
		if f.Severity != finding.Error {
			continue
		}
		if f.Code == "FRM_NOT_IN_ENGINE" || f.Code == "FRM_UNREADABLE" { // a table of a .frm, not of the dictionary
			ft := FailingTable{Table: discovery.SQLTableName(filepath.Base(filepath.Dir(f.File)) + "/" + strings.TrimSuffix(filepath.Base(f.File), ".frm")), Code: f.Code, File: f.File}
			if !seen[ft] {
				seen[ft] = true
				out = append(out, ft)
			}
			continue
		}
		name := ""
		if f.SpaceID == nil && f.File != "" {
			name = TableName(filepath.Base(filepath.Dir(f.File)) + "/" + filepath.Base(f.File))
		}
		for _, t := range in.Dict {
			if t.Deleted || t.SpaceID == 0 || (f.SpaceID != nil && *f.SpaceID != t.SpaceID) || (f.SpaceID == nil && name != t.Name) {
				continue
			}
			db, tab, _ := strings.Cut(t.Name, "/")
			ft := FailingTable{SpaceID: t.SpaceID, Code: f.Code, File: f.File}
			for _, sep := range []string{"#P#", "#p#"} {
				if before, part, ok := strings.Cut(tab, sep); ok {
					tab, ft.Partition = before, part
					break
				}
			}
			ft.Table, ft.Partition = discovery.SQLName(db)+"."+discovery.SQLName(tab), discovery.SQLName(ft.Partition)
			if !seen[ft] {
				seen[ft] = true
				out = append(out, ft)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Table != out[j].Table {
			return out[i].Table < out[j].Table
		}
		return out[i].Partition < out[j].Partition
	})
	return out
}
