package cmd

import (
	"os"
	"testing"

	"innoscope/internal/lab"
)

// The families of tests that compare innoscope with the real server run once per lab server
// (forServers): MariaDB 10.11 (the machine's) on every scenario of the family, MariaDB 11.8 on
// the scenarios of on118, to keep the whole suite well under 15 minutes on 2 cores: each 11.8
// scenario is one more crash to make (10-30 s) and the families share them.
// INNOSCOPE_118_ALL=1 runs every scenario on 11.8 too; INNOSCOPE_NO_118=1 skips 11.8.

// labServers are the servers the families run on.
var labServers = []*lab.Server{lab.MariaDB1011, lab.MariaDB118}

// on118 are the scenarios the families run on 11.8 by default: DML, CREATE/RENAME/DROP, three
// undo tablespaces truncated, and defaults (every 11.8 default: utf8mb4, 3 undo tablespaces,
// the default log size; UUID, INET, VECTOR INDEX, instant ADD, RENAME, DROP+CREATE after the
// checkpoint). INNOSCOPE_118_ALL=1 adds the others (data_directory, instant, clean, ...).
var on118 = map[string]bool{"dml": true, "ddl": true, "undo": true, "defaults": true}

// forServers runs f as a subtest named after each lab server's version ("servers/10.11",
// "servers/11.8"), the servers' subtests in parallel (on 2 cores one family's two servers take
// the time of the longer; what f shares across servers must be guarded); it returns when all
// have ended.
func forServers(t *testing.T, f func(t *testing.T, srv *lab.Server)) {
	t.Run("servers", func(t *testing.T) {
		for _, srv := range labServers {
			t.Run(srv.Version, func(t *testing.T) {
				t.Parallel()
				f(t, srv)
			})
		}
	})
}

// scenariosOn returns the scenarios of names a family runs on srv (see on118).
func scenariosOn(srv *lab.Server, names []string) []string {
	if srv != lab.MariaDB118 || os.Getenv("INNOSCOPE_118_ALL") == "1" {
		return names
	}
	var keep []string
	for _, n := range names {
		if on118[n] {
			keep = append(keep, n)
		}
	}
	return keep
}
