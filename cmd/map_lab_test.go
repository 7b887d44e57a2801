package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/internal/lab"
)

func mapOf(t *testing.T, args ...string) []analysis.Space {
	t.Helper()
	out, errs, code := run(append([]string{"map", "--json"}, args...)...)
	var m []analysis.Space
	if err := json.Unmarshal([]byte(out), &m); err != nil || code != ExitClean {
		t.Fatalf("map %v: exit %d %v\n%s", args, code, err, errs)
	}
	return m
}

// TestMapAgainstLogAndServer: for scenarios with CREATE, RENAME, DROP and ALTER TABLE after a
// checkpoint, every file record `log records` lists is an event of `map` at the same LSN, and
// the final map is what the server's own crash recovery left: each surviving name exists in its
// recovered directory carrying that space id on page 0, each deleted one is gone.
func TestMapAgainstLogAndServer(t *testing.T) {
	for _, name := range []string{"ddl", "alter_force", "dml"} {
		t.Run(name, func(t *testing.T) {
			s := lab.Get(t, name)
			m := mapOf(t, s.Crashed)
			events := map[string]bool{}
			for _, sp := range m {
				for _, e := range sp.Events {
					events[fmt.Sprintf("%d %d %s %s %s", sp.ID, e.LSN, e.Kind, e.Name, e.NewName)] = true
				}
			}
			out, _, _ := run("log", "records", "--json", "--type", "FILE_CREATE,FILE_RENAME,FILE_DELETE,FILE_MODIFY", s.Crashed)
			n := 0
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var r recordJSON
				if err := json.Unmarshal([]byte(line), &r); err != nil {
					t.Fatal(err)
				}
				kind := strings.ToLower(strings.TrimPrefix(r.Type, "FILE_"))
				key := fmt.Sprintf("%d %d %s %s %s", r.Space, r.MTRLSN, kind, r.Name, r.NewName)
				if !events[key] {
					t.Errorf("log record %s is not in the map", key)
				}
				n++
			}
			if n != len(events) {
				t.Errorf("%d file records, %d map events", n, len(events))
			}
			server := filepath.Join(s.Dir, "server")
			for _, sp := range m {
				p := filepath.Join(server, sp.Name)
				_, statErr := os.Stat(p)
				if sp.Deleted {
					if statErr == nil {
						t.Errorf("space %d: %s deleted in the log, but the server's recovery kept it", sp.ID, sp.Name)
					}
					continue
				}
				f, err := discovery.OpenFile(p)
				if err != nil {
					t.Errorf("space %d: %s not usable after the server's recovery: %v", sp.ID, sp.Name, err)
					continue
				}
				if f.FSP.SpaceID != sp.ID {
					t.Errorf("%s: space %d after the server's recovery, map says %d", sp.Name, f.FSP.SpaceID, sp.ID)
				}
				f.Close()
			}
			if name == "ddl" {
				checkRenameAtLSN(t, s.Crashed, m)
			}
		})
	}
}

// checkRenameAtLSN: just before the rename's mini-transaction the map still has the old name,
// and the old name is remembered as a mapping of that id afterwards.
func checkRenameAtLSN(t *testing.T, dir string, m []analysis.Space) {
	for _, sp := range m {
		for _, e := range sp.Events {
			if e.Kind != analysis.Rename {
				continue
			}
			for _, before := range mapOf(t, dir, "--at-lsn", fmt.Sprint(e.LSN)) {
				if before.ID == sp.ID && before.Name == e.NewName {
					t.Errorf("space %d already has %s before the rename at %d", sp.ID, e.NewName, e.LSN)
				}
			}
			if !strings.Contains(strings.Join(sp.Names, " "), e.Name) || sp.Name != e.NewName {
				t.Errorf("space %d: names %v, current %s after renaming %s", sp.ID, sp.Names, sp.Name, e.Name)
			}
			return
		}
	}
	t.Error("no rename in the ddl scenario's log")
}
