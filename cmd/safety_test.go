package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"innoscope/internal/lab"
)

// leafCommands returns every runnable command of the app with its command-line path.
func leafCommands(cmds []*cli.Command, path []string) map[string]*cli.Command {
	m := map[string]*cli.Command{}
	for _, c := range cmds {
		p := append(append([]string{}, path...), c.Name)
		if len(c.Subcommands) > 0 {
			for k, v := range leafCommands(c.Subcommands, p) {
				m[k] = v
			}
			continue
		}
		m[strings.Join(p, " ")] = c
	}
	return m
}

// TestValueFlagWithoutValue: every value flag of every command, given last with no value after
// the directory, is a usage error (exit 2, "flag needs an argument") and writes nothing; before,
// it took the hidden "--" of flag hoisting as its value (recover DIR --into wrote ./--).
func TestValueFlagWithoutValue(t *testing.T) {
	dir := filepath.Join(lab.Root(), "fixtures", "mariadb-10.11-crash")
	wd, _ := os.Getwd()
	cwd := t.TempDir()
	if err := os.Chdir(cwd); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	n := 0
	for path, c := range leafCommands(App(nil, nil).Commands, nil) {
		for _, f := range c.Flags {
			if _, ok := f.(*cli.BoolFlag); ok {
				continue
			}
			name := "--" + f.Names()[0]
			args := append(strings.Fields(path), dir, name)
			_, errs, code := run(args...)
			n++
			if code != ExitError || !strings.Contains(errs, "flag needs an argument: "+name) {
				t.Errorf("%v: exit %d, %q", args, code, errs)
			}
			if ents, _ := os.ReadDir(cwd); len(ents) != 0 {
				t.Fatalf("%v wrote %s into the working directory", args, ents[0].Name())
			}
		}
	}
	t.Logf("%d value flags checked", n)
}
