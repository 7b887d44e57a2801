package cmd

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"innoscope/finding"
	"innoscope/internal/lab"
)

// TestSweep1810InstantMetadataCut is crash-sweep seed 1810: the crash cut ALTER TABLE ... DROP
// COLUMN c1, ALGORITHM=INSTANT of a partitioned table whose partitions had no instant ALTER
// metadata yet. InnoDB had inserted the metadata record into p0's clustered index (one
// mini-transaction, which the log holds) and had not written the BLOB that record points to
// (the next one): the record's BLOB reference is all zero bytes. The server loads the
// partition at startup, before it rolls the ALTER's transaction back, logs "[ERROR] InnoDB:
// Table `db1`.`s2t27` /* Partition `p0` */ contains unrecognizable instant ALTER metadata",
// marks it corrupted, its rollback skips it, and CHECK TABLE fails. diagnose reported only
// info findings.
//
// The same crash, made deterministic: the real server runs the ALTER with an LD_PRELOAD
// library (instantKillC) that, when the BLOB's page allocation extends the partition's file,
// waits for the server's once-a-second log write (which makes the record's insert durable) and
// kills the server. The judge is the server's own crash recovery of a copy: diagnose reports
// INSTANT_METADATA_UNRECOGNIZED (error) for exactly the tables the server logs that error for,
// quoting its [ERROR] line, and the server then fails CHECK TABLE. Negative controls: the same
// kill in the same statement on a table that already had a metadata record (InnoDB updates it
// and writes the BLOB in one mini-transaction, which the kill cuts: the log has none of it),
// and the lab's committed instant ALTER crash: the server logs no such error and diagnose
// reports nothing of the kind.
func TestSweep1810InstantMetadataCut(t *testing.T) {
	const cols = "(id INT PRIMARY KEY, a INT, v VARCHAR(200), c1 INT NOT NULL DEFAULT 5, KEY(a)) ENGINE=InnoDB"
	const rows = "INSERT INTO db.t (id, a, v) SELECT seq, seq % 40, REPEAT('x', 100) FROM seq_1_to_%N%; INSERT INTO db.t (id, a, v) SELECT seq, seq % 40, REPEAT('y', 100) FROM seq_2000_to_2050;"
	for _, c := range []struct {
		name, create, n, pre, file string
		want                       bool
	}{
		{"partition (seed 1810)", "CREATE TABLE db.t " + cols + " PAGE_COMPRESSED=1 PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN (1000), PARTITION p1 VALUES LESS THAN (1000000))", "50", "", "/db/t#P#p0.ibd", true},
		{"table of two levels", "CREATE TABLE db.t " + cols, "100", "", "/db/t.ibd", true},
		{"redundant", "CREATE TABLE db.t " + cols + " ROW_FORMAT=REDUNDANT", "50", "", "/db/t.ibd", true},
		{"already instant", "CREATE TABLE db.t " + cols, "50", "ALTER TABLE db.t ADD COLUMN c2 INT NOT NULL DEFAULT 7, ALGORITHM=INSTANT;", "/db/t.ibd", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			setup := "CREATE DATABASE db; " + c.create + "; " + strings.ReplaceAll(rows, "%N%", c.n) + c.pre +
				" CREATE TABLE db.keep (a INT PRIMARY KEY) ENGINE=InnoDB; INSERT INTO db.keep SELECT seq FROM seq_1_to_100;"
			base, crashed := killAtExtend(t, setup, "ALTER TABLE db.t DROP COLUMN c1, ALGORITHM=INSTANT", c.file)
			judgeInstantMetadata(t, base, crashed, c.want)
		})
	}
	t.Run("lab instant", func(t *testing.T) {
		s := lab.Get(t, "instant")
		if bad := instantServerTables(t, s.Verdict.ErrLog); len(bad) > 0 {
			t.Fatalf("the server's own recovery of the lab's instant crash rejects %v", bad)
		}
		for _, f := range diagnoseJSONOf(t, s.Crashed).Findings {
			if f.Code == "INSTANT_METADATA_UNRECOGNIZED" {
				t.Errorf("diagnose: %s %s: %s", f.Code, f.File, f.Message)
			}
		}
	})
}

// instantKillC is an LD_PRELOAD library: once the file $LAB_ARM exists, the first time the
// server extends (ftruncate, fallocate) a file whose name ends with $LAB_KILL_AT_EXTEND it
// sleeps 3 seconds, long enough for the server's background log write, and kills itself
// with SIGKILL.
const instantKillC = `#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
static void maybe(int fd) {
  const char *w = getenv("LAB_KILL_AT_EXTEND"), *arm = getenv("LAB_ARM");
  char l[64], p[4096];
  if (!w || !arm || access(arm, F_OK)) return;
  snprintf(l, sizeof l, "/proc/self/fd/%d", fd);
  ssize_t m = readlink(l, p, sizeof p - 1);
  if (m <= 0) return;
  p[m] = 0;
  size_t n = strlen(w);
  if ((size_t)m < n || strcmp(p + m - n, w)) return;
  sleep(3);
  kill(getpid(), SIGKILL);
}
#define HOOK(ret, name, params, args) \
ret name params { static ret (*next) params; if (!next) next = (ret (*) params)dlsym(RTLD_NEXT, #name); maybe(fd); return next args; }
HOOK(int, ftruncate, (int fd, off_t len), (fd, len))
HOOK(int, ftruncate64, (int fd, off64_t len), (fd, len))
HOOK(int, fallocate, (int fd, int mode, off_t o, off_t len), (fd, mode, o, len))
HOOK(int, fallocate64, (int fd, int mode, off64_t o, off64_t len), (fd, mode, o, len))
HOOK(int, posix_fallocate, (int fd, off_t o, off_t len), (fd, o, len))
HOOK(int, posix_fallocate64, (int fd, off64_t o, off64_t len), (fd, o, len))
`

// killAtExtend starts a fresh server with instantKillC, runs setup, arms the library for the
// file whose name ends with file and runs stmt, during which the server kills itself. It
// returns the test's directory and the crashed data directory.
func killAtExtend(t *testing.T, setup, stmt, file string) (string, string) {
	t.Helper()
	base, so := preloadLib(t, "instant", instantKillC)
	arm := filepath.Join(base, "arm")
	d := killedBy(t, base, []string{"LD_PRELOAD=" + so, "LAB_KILL_AT_EXTEND=" + file, "LAB_ARM=" + arm}, setup, func() {
		if err := os.WriteFile(arm, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}, stmt, "the extension of "+file)
	return base, d
}

// instantServerRE matches the server's error for a table whose instant ALTER metadata it rejects.
var instantServerRE = regexp.MustCompile(`\[ERROR\] (InnoDB: Table (.*) contains unrecognizable instant ALTER metadata)`)

// instantServerTables are the tables (as the server spells them) the error log errLog says
// contain unrecognizable instant ALTER metadata.
func instantServerTables(t *testing.T, errLog string) []string {
	t.Helper()
	b, err := os.ReadFile(errLog)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range instantServerRE.FindAllStringSubmatch(string(b), -1) {
		seen[m[2]] = true
	}
	var out []string
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// judgeInstantMetadata diagnoses crashed, then starts the real server on a copy and compares:
// INSTANT_METADATA_UNRECOGNIZED (error) for exactly the tables whose instant ALTER metadata the
// server rejects, quoting the [ERROR] line it logged, naming an existing file; CHECK TABLE
// fails when it does. want: the crash was made for the server to reject a table.
func judgeInstantMetadata(t *testing.T, base, crashed string, want bool) {
	t.Helper()
	j, v := diagnoseThenServer(t, base, crashed, &lab.Scenario{Options: ddlFailOptions})
	if !v.Started || !v.CrashRecovery {
		t.Fatalf("the server's own recovery: started=%v crash_recovery=%v", v.Started, v.CrashRecovery)
	}
	rejected := instantServerTables(t, v.ErrLog)
	if (len(rejected) > 0) != want {
		t.Fatalf("the server rejects the instant ALTER metadata of %v; the crash was made for that: %v", rejected, want)
	}
	if len(rejected) > 0 && v.TablesOK {
		t.Errorf("the server rejects %v and still passes CHECK TABLE", rejected)
	}
	serverErrs := errorMessages(t, v.ErrLog)
	quoted := regexp.MustCompile(`"\[ERROR\] ([^"]*)"`)
	var named []string
	for _, f := range j.Findings {
		if f.Code != "INSTANT_METADATA_UNRECOGNIZED" {
			continue
		}
		t.Logf("diagnose: %s %s: %s", f.Code, f.File, f.Message)
		if f.Severity != finding.Error {
			t.Errorf("INSTANT_METADATA_UNRECOGNIZED is %s, want error", f.Severity)
		}
		var m []string
		if q := quoted.FindStringSubmatch(f.Message); q != nil {
			m = instantServerRE.FindStringSubmatch("[ERROR] " + q[1])
		}
		if m == nil {
			t.Errorf("INSTANT_METADATA_UNRECOGNIZED quotes no server error: %s", f.Message)
			continue
		}
		if !serverErrs[m[1]] {
			t.Errorf("INSTANT_METADATA_UNRECOGNIZED quotes %q; the server logged no such [ERROR]:\n%s", m[1], serverLines(t, v.ErrLog))
		}
		named = append(named, m[2])
		if _, err := os.Stat(f.File); err != nil || f.LSN == nil || f.SpaceID == nil {
			t.Errorf("INSTANT_METADATA_UNRECOGNIZED names file %s (%v), LSN %v, space %v", f.File, err, f.LSN, f.SpaceID)
		}
	}
	sort.Strings(named)
	if !reflect.DeepEqual(named, rejected) && (len(named) > 0 || len(rejected) > 0) {
		t.Errorf("diagnose: INSTANT_METADATA_UNRECOGNIZED for %v; the server rejects %v", named, rejected)
	}
}
