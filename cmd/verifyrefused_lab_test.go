package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestVerifyReplayRefused: on a real crash the server refuses (the file of a table the log
// changes renamed by hand, or deleted), verify's replay is refused before anything is copied.
// Its last line says so, with no LSN range and no page count (nothing was replayed), in the
// table and in JSON ("replay": "refused"); REPLAY_FAILED names the salvage as a command that
// exists (recover's --salvage, verify has none), and that command runs on the directory.
func TestVerifyReplayRefused(t *testing.T) {
	for _, c := range []struct {
		name   string
		mutate func(t *testing.T, dir string)
		lost   bool // the salvage loses data (exit 1)
	}{
		{"renamed", func(t *testing.T, dir string) {
			if err := os.Rename(filepath.Join(dir, "db", "t2.ibd"), filepath.Join(dir, "db", "t2_backup.ibd")); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"deleted", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "db", "t2.ibd")); err != nil {
				t.Fatal(err)
			}
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := damage(t, "dml", c.mutate)
			if d.server.Started {
				t.Fatalf("the server started on the mutated directory: the case is not one it refuses")
			}
			out, errs, code := run("verify", "--tmpdir", d.base, d.dir)
			if code != ExitFindings {
				t.Fatalf("verify: exit %d, want %d\n%s%s", code, ExitFindings, out, errs)
			}
			lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
			last := lines[len(lines)-1]
			t.Logf("last line: %s", last)
			if !strings.HasPrefix(last, d.dir+": FAILED: the replay was refused") {
				t.Errorf("last line %q: want it to say the replay was refused", last)
			}
			if regexp.MustCompile(`replayed \d+\.\.\d+|pages changed|pages of the copy`).MatchString(last) {
				t.Errorf("last line %q gives a replayed range or page counts, and nothing was replayed", last)
			}

			jout, _, jcode := run("verify", "--json", "--tmpdir", d.base, d.dir)
			var j struct {
				OK          bool   `json:"ok"`
				Replay      string `json:"replay"`
				ReplayError string `json:"replay_error"`
				Findings    []struct {
					Code    string `json:"code"`
					Message string `json:"message"`
				} `json:"findings"`
			}
			if err := json.Unmarshal([]byte(jout), &j); err != nil {
				t.Fatalf("verify --json: exit %d: %v\n%s", jcode, err, jout)
			}
			if jcode != ExitFindings || j.OK || j.Replay != "refused" || j.ReplayError == "" {
				t.Errorf("verify --json: exit %d, ok=%v replay=%q replay_error=%q; want 1, false, refused and the reason", jcode, j.OK, j.Replay, j.ReplayError)
			}
			msg := ""
			for _, f := range j.Findings {
				if f.Code == "REPLAY_FAILED" {
					msg = f.Message
				}
			}
			if msg == "" {
				t.Fatalf("no REPLAY_FAILED finding")
			}
			if strings.Contains(msg, "; --salvage would") || strings.Contains(j.ReplayError, "; --salvage would") {
				t.Errorf("REPLAY_FAILED advises --salvage, which verify does not have: %s", msg)
			}
			// verify has no --salvage: the advice must not be a verify flag.
			if _, errs, code := run("verify", "--salvage", d.dir); code != ExitError || !strings.Contains(errs, "flag provided but not defined") {
				t.Errorf("verify --salvage: exit %d, %q (the test's premise: verify has no --salvage)", code, errs)
			}
			m := regexp.MustCompile("`innoscope (recover --salvage (\\S+) --into COPY)` would").FindStringSubmatch(msg)
			if m == nil || m[2] != d.dir {
				t.Fatalf("REPLAY_FAILED does not name `innoscope recover --salvage %s --into COPY`: %s", d.dir, msg)
			}
			// The command it names runs on the directory: a copy, exit 0 when the salvage loses nothing.
			args := strings.Fields(strings.Replace(m[1], "COPY", filepath.Join(d.base, "salvaged"), 1))
			_, serrs, scode := run(args...)
			if want := map[bool]int{false: ExitClean, true: ExitFindings}[c.lost]; scode != want {
				t.Errorf("innoscope %s: exit %d, want %d\n%s", strings.Join(args, " "), scode, want, serrs)
			}
		})
	}
}
