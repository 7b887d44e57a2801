package cmd

import (
	"os"
	"testing"
)

// TestMain lets a test run innoscope as a process of its own (to kill it mid-run): with
// INNOSCOPE_AS_CLI=1 the test binary runs the command line given after "--".
func TestMain(m *testing.M) {
	if os.Getenv("INNOSCOPE_AS_CLI") == "1" {
		for i, a := range os.Args {
			if a == "--" {
				os.Exit(Run(append([]string{"innoscope"}, os.Args[i+1:]...), os.Stdout, os.Stderr))
			}
		}
		os.Exit(ExitError)
	}
	code := m.Run()
	removeISLCrash()
	os.Exit(code)
}
