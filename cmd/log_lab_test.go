package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"innoscope/internal/lab"
	"innoscope/logformat"
)

// scenarios are the lab's crash scenarios (scripts/mariadb-lab.sh list).
var scenarios = []string{"dml", "ddl", "alter_force", "data_directory", "instant", "undo", "wrapped", "clean", "defaults"}

// run runs innoscope in-process and returns stdout, stderr and the exit code.
func run(args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := Run(append([]string{"innoscope"}, args...), &out, &errb)
	return out.String(), errb.String(), code
}

// runJSON runs a --json command that must succeed and decodes its output into v.
func runJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	out, errs, code := run(args...)
	if code != ExitClean {
		t.Fatalf("innoscope %v: exit %d\nstdout: %s\nstderr: %s", args, code, out, errs)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("innoscope %v: bad JSON: %v\n%s", args, err, out)
	}
}

// serverLines returns the recovery lines of a server error log, for the test output.
func serverLines(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, l := range strings.Split(string(b), "\n") {
		for _, k := range []string{"crash recovery", "End of log", "To recover", "FILE_CHECKPOINT", "[ERROR]", "corrupt", "doublewrite", "Restoring"} {
			if strings.Contains(l, k) {
				keep = append(keep, l)
				break
			}
		}
	}
	return strings.Join(keep, "\n")
}

// mustSee lists record kinds (type, or type/subtype) each scenario's real log is made to
// contain, so that every decoder is exercised on bytes the server wrote. What a crash's log
// holds after its checkpoint depends on when the server wrote that checkpoint (a late one leaves
// only a few mini-transactions), so a kind is required of the server's scenarios together.
var mustSee = map[string][]string{
	"dml": {"INIT_PAGE", "WRITE", "MEMSET", "MEMMOVE", "FILE_MODIFY", "FILE_CHECKPOINT",
		"EXTENDED/INIT_ROW_FORMAT_DYNAMIC", "EXTENDED/INIT_ROW_FORMAT_REDUNDANT", "EXTENDED/UNDO_INIT",
		"EXTENDED/UNDO_APPEND", "EXTENDED/INSERT_HEAP_DYNAMIC", "EXTENDED/INSERT_REUSE_DYNAMIC",
		"EXTENDED/INSERT_HEAP_REDUNDANT", "EXTENDED/DELETE_ROW_FORMAT_DYNAMIC",
		"EXTENDED/DELETE_ROW_FORMAT_REDUNDANT"}, // purge of db.t2, made durable by a later commit
	"ddl":         {"FILE_CREATE", "FILE_RENAME", "FILE_DELETE", "FILE_MODIFY"},
	"alter_force": {"FILE_CREATE", "FILE_RENAME", "FILE_DELETE", "FREE_PAGE"},
	"undo":        {"EXTENDED/TRIM_PAGES"},
}

var knownType = func() map[string]bool {
	m := map[string]bool{}
	for _, t := range logformat.Types {
		m[t.String()] = true
	}
	return m
}()

// TestLogAgainstServer compares header, stats and records with what mariadbd printed while
// recovering a copy of the same crashed directory, for every lab scenario.
func TestLogAgainstServer(t *testing.T) {
	forServers(t, func(t *testing.T, srv *lab.Server) {
		var mu sync.Mutex
		seenAll := map[string]bool{}
		defer func() {
			// Only the machine's own server makes every scenario; the others make a few, and
			// for them a missing kind is a note.
			if t.Failed() || t.Skipped() || srv != lab.MariaDB1011 {
				return
			}
			for _, name := range scenariosOn(srv, scenarios) {
				for _, k := range mustSee[name] {
					if !seenAll[k] {
						t.Errorf("no %s record in any scenario's log (%s is where it is expected)", k, name)
					}
				}
			}
		}()
		for _, name := range scenariosOn(srv, scenarios) {
			t.Run(name, func(t *testing.T) {
				s := srv.Get(t, name)
				v := s.Verdict
				t.Logf("server on a copy:\n%s", serverLines(t, v.ErrLog))
				before := lab.HashTree(t, s.Crashed)

				var h headerJSON
				runJSON(t, &h, "log", "header", "--json", s.Crashed)
				var st statsJSON
				runJSON(t, &st, "log", "stats", "--json", s.Crashed)
				t.Logf("innoscope: checkpoint %d end %d stop %s, %d mtrs, %d records %v",
					st.CheckpointLSN, st.EndLSN, st.StopReason, st.MTRCount, st.RecordCount, st.RecordsByType)

				if st.CrashRecovery != v.CrashRecovery {
					t.Errorf("crash_recovery = %v, server ran crash recovery: %v", st.CrashRecovery, v.CrashRecovery)
				}
				if v.CrashRecovery {
					if st.CheckpointLSN != v.CheckpointLSN || h.CheckpointLSN == nil || *h.CheckpointLSN != v.CheckpointLSN {
						t.Errorf("checkpoint_lsn = %d (header %v), server: Starting crash recovery from checkpoint LSN=%d",
							st.CheckpointLSN, h.CheckpointLSN, v.CheckpointLSN)
					}
				} else if st.PageRecords != 0 {
					t.Errorf("clean shutdown but %d page records to apply", st.PageRecords)
				}
				if st.EndLSN != v.EndLSN || v.EndLSN == 0 {
					t.Errorf("end_lsn = %d, server: End of log at LSN=%d", st.EndLSN, v.EndLSN)
				}
				if st.MalformedRecords != 0 || len(st.Findings) > 0 && st.Findings[0].Code != "UNCLEAN_SHUTDOWN" {
					t.Errorf("malformed %d, findings %+v", st.MalformedRecords, st.Findings)
				}
				for typ := range st.RecordsByType {
					if !knownType[typ] {
						t.Errorf("record type %s is unknown", typ)
					}
				}
				if st.StopReason != string(logformat.StopZero) && st.StopReason != string(logformat.StopSequenceBit) {
					t.Errorf("scan of a real log stopped by %s: %s", st.StopReason, st.StopDetail)
				}

				// Every record listed, each with a known type, the same count as the stats.
				out, _, code := run("log", "records", "--json", s.Crashed)
				if code != ExitClean {
					t.Fatalf("log records: exit %d", code)
				}
				n, seen := 0, map[string]bool{}
				sc := bufio.NewScanner(strings.NewReader(out))
				sc.Buffer(nil, 1<<20)
				for sc.Scan() {
					var r recordJSON
					if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
						t.Fatalf("record line %d: %v", n, err)
					}
					if !knownType[r.Type] || r.Malformed != "" {
						t.Errorf("record %+v", r)
					}
					seen[r.Type], seen[r.Type+"/"+r.Subtype] = true, true
					n++
				}
				for _, k := range mustSee[name] {
					if !seen[k] {
						t.Logf("no %s record in the %s scenario's log on this crash", k, name)
					}
				}
				mu.Lock()
				for k := range seen {
					seenAll[k] = true
				}
				mu.Unlock()
				if n != st.RecordCount {
					t.Errorf("log records printed %d records, stats counted %d", n, st.RecordCount)
				}

				if name == "wrapped" {
					start := logformat.StartOffset + int64((st.StartLSN-h.FirstLSN)%h.Capacity)
					if st.StopOffset >= start {
						t.Errorf("wrapped: the scan from file offset %d to %d did not cross the end of the ring", start, st.StopOffset)
					}
				}
				if after := lab.HashTree(t, s.Crashed); !reflect.DeepEqual(before, after) {
					t.Errorf("the source directory changed")
				}
			})
		}
	})
}

// flipInLog copies the scenario's crashed directory and flips one byte of its ib_logfile0 at
// the LSN chosen by pick (given the opened log and the checkpoint LSN); it returns the copy.
func flipInLog(t *testing.T, s *lab.Scenario, pick func(*logformat.Log, uint64) uint64) (string, uint64) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "copy")
	lab.CopyDir(t, s.Crashed, dir)
	f, l := openLog(t, dir, os.O_RDWR)
	defer f.Close()
	cp, _ := l.Checkpoint()
	lsn := pick(l, cp.LSN)
	b := make([]byte, 1)
	off := l.FileOffset(lsn)
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0x40
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
	return dir, lsn
}

// openLog opens the MariaDB 10.8+ ib_logfile0 of dir with flag (os.O_RDONLY, os.O_RDWR): the
// file (for the caller to close) and the log read from it.
func openLog(t *testing.T, dir string, flag int) (*os.File, *logformat.Log) {
	t.Helper()
	p := filepath.Join(dir, "ib_logfile0")
	f, err := os.OpenFile(p, flag, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	l, _, err := logformat.Open(f, fi.Size(), p)
	if err != nil {
		f.Close()
		t.Fatal(err)
	}
	return f, l
}

// TestCorruptMTRAgainstServer flips a data byte inside a mini-transaction in the middle of the
// log: the scan must end at that mini-transaction with a checksum mismatch, as the server does.
func TestCorruptMTRAgainstServer(t *testing.T) {
	s := lab.Get(t, "dml")
	var mtrLSN uint64
	dir, _ := flipInLog(t, s, func(l *logformat.Log, cp uint64) uint64 {
		b, m := midLogWrite(t, l, cp) // the last data byte of a WRITE: framing unchanged
		mtrLSN = m
		return b
	})
	var st statsJSON
	out, _, code := run("log", "stats", "--json", dir)
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if st.EndLSN != mtrLSN || st.StopReason != string(logformat.StopChecksum) {
		t.Errorf("end %d (%s: %s), want %d (checksum)", st.EndLSN, st.StopReason, st.StopDetail, mtrLSN)
	}
	// Whole mini-transactions follow the damaged one, far more than a 4 KiB block of them: the
	// server starts and silently loses them (an error: TestLogDamagedSeverity).
	if code != ExitFindings || !strings.Contains(out, "LOG_DAMAGED") {
		t.Errorf("log stats: exit %d, no LOG_DAMAGED error", code)
	}
	server := filepath.Join(t.TempDir(), "server")
	lab.CopyDir(t, dir, server)
	v := s.ServerVerdict(t, server)
	t.Logf("server on the flipped copy:\n%s", serverLines(t, v.ErrLog))
	if !v.Started || v.EndLSN != st.EndLSN {
		t.Errorf("server started=%v, End of log at LSN=%d; innoscope end %d", v.Started, v.EndLSN, st.EndLSN)
	}
}

// fileCheckpointLSNByte is the LSN of the low byte of the checkpoint LSN in the FILE_CHECKPOINT
// record for checkpoint cp (flipping it makes the server refuse the log).
func fileCheckpointLSNByte(t *testing.T, l *logformat.Log, cp uint64) uint64 {
	t.Helper()
	sc := l.Scan(cp, logformat.ScanOptions{})
	for sc.Next() {
		for _, r := range sc.MTR().Records {
			if r.Type == logformat.FileCheckpoint && r.CheckpointLSN == cp {
				return sc.MTR().LSN + uint64(r.Pos+r.Len-1)
			}
		}
	}
	t.Fatal("no FILE_CHECKPOINT for the checkpoint")
	return 0
}

// TestCorruptFileCheckpointAgainstServer damages the FILE_CHECKPOINT mini-transaction that the
// checkpoint points at: innoscope reports MISSING_FILE_CHECKPOINT (error, exit 1), and the
// server must refuse to start.
func TestCorruptFileCheckpointAgainstServer(t *testing.T) {
	s := lab.Get(t, "dml")
	dir, _ := flipInLog(t, s, func(l *logformat.Log, cp uint64) uint64 { return fileCheckpointLSNByte(t, l, cp) })
	out, _, code := run("log", "stats", "--json", dir)
	var st statsJSON
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	codes := []string{}
	for _, f := range st.Findings {
		codes = append(codes, f.Code)
	}
	if code != ExitFindings || !strings.Contains(strings.Join(codes, ","), "MISSING_FILE_CHECKPOINT") {
		t.Errorf("exit %d, findings %v; want exit 1 with MISSING_FILE_CHECKPOINT", code, codes)
	}
	server := filepath.Join(t.TempDir(), "server")
	lab.CopyDir(t, dir, server)
	v := s.ServerVerdict(t, server)
	t.Logf("server on the copy:\n%s", serverLines(t, v.ErrLog))
	if v.Started {
		t.Errorf("the server started, though innoscope said it would refuse")
	}
}
