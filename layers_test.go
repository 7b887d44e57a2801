package main

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// layers ranks every package of the module, bottom first: a package may import only
// packages of a lower rank (ARCHITECTURE.md draws them). A new package must be placed here.
var layers = map[string]int{
	"innoscope/finding":                 0, // the findings vocabulary
	"innoscope/internal/regular":        0, // opening only regular files
	"innoscope/internal/clikit":         0, // the command line's behaviour over urfave/cli
	"innoscope/internal/interrupt":      0, // what a signal does to a running command
	"innoscope/logformat":               1, // bytes -> records, per format
	"innoscope/logformat/logcheck":      2,
	"innoscope/logformat/logformattest": 2,  // builds logs for tests
	"innoscope/logformat/redo":          3,  // the one entry to a redo log
	"innoscope/discovery":               4,  // files -> tablespaces, the dictionary, undo
	"innoscope/pagezip":                 4,  // a ROW_FORMAT=COMPRESSED page -> the index page; beside discovery
	"innoscope/pageapply":               5,  // records -> pages
	"innoscope/schema":                  5,  // a table's definition (SYS_*, .frm); beside pageapply
	"innoscope/rows":                    6,  // pages -> rows
	"innoscope/adopt":                   7,  // a kit attaching orphan tables to a fresh server (checks the files with rows)
	"innoscope/mysqldd":                 7,  // a MySQL 8 data dictionary (mysql.ibd) read with rows
	"innoscope/analysis":                8,  // what recovery will do and why
	"innoscope/changes":                 8,  // the log as row changes (undo records, transactions)
	"innoscope/replay":                  9,  // the recovery procedure in a copy
	"innoscope/report":                  10, // rendering: tables, JSON, HTML
	"innoscope/report/view":             11,
	"innoscope/cmd":                     12, // the CLI
	"innoscope":                         13,
	// Tools of the build and the tests, outside the layers.
	"innoscope/internal/lab":        13,
	"innoscope/internal/sweepgen":   13,
	"innoscope/internal/charsetgen": 13,
}

// TestLayers: no package imports one above it, and every package has its place.
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	n := 0
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		n++
		rank, ok := layers[p.ImportPath]
		if !ok {
			t.Errorf("%s has no place in the layers (layers_test.go)", p.ImportPath)
			continue
		}
		for _, imp := range p.Imports {
			if r, ours := layers[imp]; ours && r >= rank && !strings.HasPrefix(p.ImportPath, "innoscope/internal/") {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports point down only", p.ImportPath, rank, imp, r)
			} else if !ours && strings.HasPrefix(imp, "innoscope") {
				t.Errorf("%s imports %s, which has no place in the layers", p.ImportPath, imp)
			}
		}
	}
	if n < len(layers)-1 {
		t.Errorf("go list found %d packages", n)
	}
}
