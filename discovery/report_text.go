package discovery

import (
	"fmt"
	"sort"
	"strings"
)

// Fields are the file's facts as FIELD/VALUE rows, in the words `pages` prints.
func (r *Report) Fields() [][]string {
	return [][]string{
		{"file", r.Path}, {"space id", fmt.Sprint(r.SpaceID)},
		{"flags", strings.TrimSpace(fmt.Sprintf("0x%x %s", r.Flags.Raw, strings.Join(r.Flags.Names, " ")))},
		{"page size", fmt.Sprintf("%d (physical %d)", r.PageSize, r.PhysicalSize)},
		{"pages", fmt.Sprint(r.Pages)},
	}
}

// TypeRows are the page types and their counts as PAGE TYPE/COUNT rows, by name.
func (r *Report) TypeRows() [][]string {
	var rows [][]string
	for _, k := range sortedKeys(r.Summary) {
		rows = append(rows, []string{k, fmt.Sprint(r.Summary[k])})
	}
	return rows
}

// InstantRows are the instant ADD COLUMN roots as INSTANT ROOT/INDEX ID/CORE FIELDS/METADATA
// RECORD/ON PAGE rows.
func (r *Report) InstantRows() [][]string {
	var rows [][]string
	for _, in := range r.Instant {
		rows = append(rows, []string{fmt.Sprint(in.Page), fmt.Sprint(in.IndexID), fmt.Sprint(in.NCoreFields),
			fmt.Sprint(in.MetadataRecord), fmt.Sprint(in.MetadataPage)})
	}
	return rows
}

// ChecksumCounts are the pages by checksum algorithm as "crc32 21, empty 1" (names in order;
// "none" when no page was verified).
func (r *Report) ChecksumCounts() string {
	var parts []string
	for _, k := range sortedKeys(r.Algorithms) {
		parts = append(parts, fmt.Sprintf("%s %d", k, r.Algorithms[k]))
	}
	if parts == nil {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func sortedKeys(m map[string]int) []string {
	k := make([]string, 0, len(m))
	for x := range m {
		k = append(k, x)
	}
	sort.Strings(k)
	return k
}
