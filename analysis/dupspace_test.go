package analysis

import (
	"strings"
	"testing"

	"innoscope/discovery"
	"innoscope/finding"
)

// TestDuplicateSpaceIDNeitherReferenced (issue 28 item 17): two files carrying one space id that
// neither the dictionary nor the log names were said to be "only one of them is referenced".
func TestDuplicateSpaceIDNeitherReferenced(t *testing.T) {
	dir := t.TempDir()
	ts := []discovery.Tablespace{
		{Path: dir + "/db/a.ibd", FoundBy: discovery.FoundScan, SpaceID: 9},
		{Path: dir + "/db/b.ibd", FoundBy: discovery.FoundScan, SpaceID: 9},
	}
	for _, c := range []struct {
		spaces []discovery.Tablespace
		dict   []discovery.DictTable
		want   string
	}{
		{ts, nil, "neither is referenced by the dictionary or the log"},
		{append(ts, discovery.Tablespace{Path: dir + "/db/c.ibd", FoundBy: discovery.FoundScan, SpaceID: 9}), nil, "none of them is referenced"},
		{ts, []discovery.DictTable{{Name: "db/a", ID: 20, SpaceID: 9}}, "only one of them is referenced by the dictionary or the log"},
	} {
		in := Input{Datadir: dir, Spaces: c.spaces, Dict: c.dict}
		var got []finding.Finding
		for _, f := range duplicateAndOrphanFindings(in, expectations(in), map[string]bool{}) {
			if f.Code == "DUPLICATE_SPACE_ID" {
				got = append(got, f)
			}
		}
		if len(got) != 1 || got[0].Severity != finding.Warning || !strings.Contains(got[0].Message, c.want) {
			t.Errorf("%d files, dictionary %v: DUPLICATE_SPACE_ID %+v; want one warning saying %q", len(c.spaces), c.dict, got, c.want)
		}
	}
}
