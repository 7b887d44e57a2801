package cmd

import (
	"fmt"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

// widthCases are the table outputs run at a forced terminal width (COLUMNS): the findings
// table wraps its widest cells to fit, or becomes one block per finding when too narrow.
func widthCases(w int) []goldenCase {
	d := fmt.Sprintf("width%d/", w)
	return []goldenCase{
		{name: d + "diagnose.table", args: []string{"diagnose", "$CRASH"}},
		{name: d + "verify.table", args: []string{"verify", "--tmpdir", "$TMP", "$CRASH"}, files: true},
		{name: d + "map.table", args: []string{"map", "$CRASH"}},
		{name: d + "spaces.table", args: []string{"spaces", "$CRASH"}},
		{name: d + "log-stats.table", args: []string{"log", "stats", "$CRASH"}},
		{name: d + "log-records-122000-125000.table", args: []string{"log", "records", "--from-lsn", "122000", "--to-lsn", "125000", "$CRASH"}},
	}
}

// wideCases run at 80 columns on a copy of the crash fixture whose path holds an emoji and CJK
// characters, two columns each on a terminal ($WIDE). report's TestTableDisplayWidth draws a
// table of CJK table names likewise.
var wideCases = []goldenCase{
	{name: "wide80/map.table", args: []string{"map", "$WIDE"}},
	{name: "wide80/diagnose.table", args: []string{"diagnose", "$WIDE"}},
	{name: "wide80/spaces-space6.table", args: []string{"spaces", "$WIDE", "--space", "6"}}, // the log alone: the listing refuses (LOG_ONLY)
}

// runWidths runs widthCases at 80 and 200 columns, and wideCases at 80, and checks that no
// line of their output is wider than that on a terminal.
func (g goldenRun) runWidths(t *testing.T, vars map[string]string) {
	for _, w := range []int{80, 200, -80} {
		cases := widthCases(w)
		if w < 0 {
			w, cases = -w, wideCases
		}
		t.Run(fmt.Sprintf("width%d", w), func(t *testing.T) {
			t.Setenv("COLUMNS", fmt.Sprint(w))
			g.run(t, cases, vars)
			for _, gc := range cases {
				args := make([]string, len(gc.args))
				for i, a := range gc.args {
					args[i] = expandGolden(a, map[string]string{"$CRASH": vars["$CRASH"], "$WIDE": vars["$WIDE"], "$TMP": g.tmp})
				}
				out, _, _ := run(args...)
				for i, l := range strings.Split(out, "\n") {
					if n := twwidth.Width(l); n > w {
						t.Errorf("%s: line %d is %d characters wide (terminal %d): %s", gc.name, i+1, n, w, l)
					}
				}
			}
		})
	}
}
