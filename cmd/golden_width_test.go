package cmd

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
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

// runWidths runs widthCases at 80 and 200 columns and checks that no line of their output is
// wider than that.
func (g goldenRun) runWidths(t *testing.T, vars map[string]string) {
	for _, w := range []int{80, 200} {
		t.Run(fmt.Sprintf("width%d", w), func(t *testing.T) {
			t.Setenv("COLUMNS", fmt.Sprint(w))
			g.run(t, widthCases(w), vars)
			for _, gc := range widthCases(w) {
				args := make([]string, len(gc.args))
				for i, a := range gc.args {
					args[i] = expandGolden(a, map[string]string{"$CRASH": vars["$CRASH"], "$TMP": g.tmp})
				}
				out, _, _ := run(args...)
				for i, l := range strings.Split(out, "\n") {
					if n := utf8.RuneCountInString(l); n > w {
						t.Errorf("%s: line %d is %d characters wide (terminal %d): %s", gc.name, i+1, n, w, l)
					}
				}
			}
		})
	}
}
