package cmd

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// TestFromLSNInsideMTR: on real crashes of MariaDB 10.11 and 10.5, a --from-lsn inside a
// mini-transaction below the checkpoint (one byte after the start of one that `log records`
// lists) is refused by log stats, log records and map (exit 2, naming the LSN and what was read
// there), where they reported the healthy log as damaged ("the server refuses to start") or as
// ending there; the mini-transaction's own start is read. Which bytes follow a start depends on
// the crash: a first record of space 0 (the FILE_CHECKPOINT at the log's first LSN, a page of
// the system tablespace) puts a zero byte there, which read as the end of the log ("end of log",
// 0 bytes, exit 0: the test failed on a fresh machine whose older checkpoint block's
// mini-transaction was a lone FILE_CHECKPOINT). The test tries both kinds the crash has and
// says which. Above the checkpoint the log is read from it, so a --from-lsn inside a
// mini-transaction starts at the next one, the same for the three commands (log stats counted
// from the checkpoint instead), one past the end of the log is refused, and one at the end
// reads nothing. Whatever the range (--from-lsn, --to-lsn), log stats says crash recovery is
// needed exactly when the server ran it on the same directory.
func TestFromLSNInsideMTR(t *testing.T) {
	for _, c := range []struct {
		name string
		s    func(t *testing.T) *lab.Scenario
	}{
		{"dml", func(t *testing.T) *lab.Scenario { return lab.Get(t, "dml") }},
		{"dml105", func(t *testing.T) *lab.Scenario { return lab.MariaDB105.Get(t, "dml105") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := c.s(t)
			var st statsJSON
			runJSON(t, &st, "log", "stats", "--json", s.Crashed)
			var h headerJSON
			runJSON(t, &h, "log", "header", "--json", s.Crashed)
			// Mini-transactions below the checkpoint: from the log's first LSN (when the ring
			// still holds it) and from each older valid checkpoint block's LSN.
			froms := []uint64{h.FirstLSN}
			for _, cp := range h.Checkpoints {
				if cp.Valid && cp.LSN < st.CheckpointLSN {
					froms = append(froms, cp.LSN)
				}
			}
			var zero, other *recordJSON
			for _, from := range froms {
				rs, _, code := records105(t, s.Crashed, "--from-lsn", fmt.Sprint(from), "--to-lsn", fmt.Sprint(st.CheckpointLSN))
				if code != ExitClean {
					continue // overwritten by a later pass through the ring
				}
				for i := range rs {
					r := &rs[i]
					if r.Index != 0 || r.MTREndLSN-r.MTRLSN < 3 || r.MTRLSN >= st.CheckpointLSN {
						continue
					}
					// The byte after the start: the space id of a first record whose length fits
					// its type byte (10.8 encoding), 0 for space 0.
					if r.Space == 0 && !r.SamePage && zero == nil {
						zero = r
					} else if r.Space != 0 && other == nil {
						other = r
					}
				}
			}
			if zero == nil && other == nil {
				t.Fatalf("no mini-transaction of 3 bytes or more below the checkpoint %d (from %v)", st.CheckpointLSN, froms)
			}
			t.Logf("a mini-transaction whose first record is of space 0: %v; of another space: %v", zero != nil, other != nil)
			var start uint64
			for _, r := range []*recordJSON{zero, other} {
				if r == nil {
					continue
				}
				start = r.MTRLSN
				in := r.MTRLSN + 1
				if c.name == "dml105" && (in%512 < 12 || in%512 >= 508) {
					// 10.5's 512-byte blocks: the byte after the start is the block's checksum
					// (seen on a loaded run); that LSN is refused for what it is, and the test
					// moves to the mini-transaction's first byte in the next block.
					_, errs, code := run("log", "stats", s.Crashed, "--from-lsn", fmt.Sprint(in))
					if code != ExitError || !strings.Contains(errs, "where no record byte lies") {
						t.Errorf("log stats --from-lsn %d (in a block's header or checksum): exit %d: %s", in, code, errs)
					}
					in += (512 - in%512 + 12) % 512
					if in%512 < 12 {
						in += 12
					}
					if in >= r.MTREndLSN {
						continue
					}
				}
				inside := fmt.Sprint(in)
				for _, cmd := range [][]string{{"log", "stats"}, {"log", "records"}, {"map"}} {
					out, errs, code := run(append(cmd, s.Crashed, "--from-lsn", inside)...)
					if code != ExitError || out != "" || !strings.Contains(errs, "no mini-transaction starts at LSN "+inside+" (read from there: ") {
						t.Errorf("%v --from-lsn %s (inside the %s mini-transaction %d-%d): exit %d\nstdout %.300q\nstderr %q", cmd, inside, r.Type, r.MTRLSN, r.MTREndLSN, code, out, errs)
					}
				}
			}
			out, errs, code := run("log", "stats", "--json", s.Crashed, "--from-lsn", fmt.Sprint(start))
			var got statsJSON
			if err := json.Unmarshal([]byte(out), &got); err != nil || code == ExitError {
				t.Fatalf("log stats --from-lsn %d: exit %d: %v\n%s", start, code, err, errs)
			}
			if got.StartLSN != start || got.CrashRecovery != s.Verdict.CrashRecovery || got.EndLSN != st.EndLSN {
				t.Errorf("log stats --from-lsn %d: start %d, end %d (from the checkpoint %d), crash recovery %v; the server's: %v",
					start, got.StartLSN, got.EndLSN, st.EndLSN, got.CrashRecovery, s.Verdict.CrashRecovery)
			}
			fromLSNAboveCheckpoint(t, s, st)
		})
	}
}

// fromLSNAboveCheckpoint is TestFromLSNInsideMTR's check of --from-lsn after the checkpoint of
// the scenario s, whose log from the checkpoint is st.
func fromLSNAboveCheckpoint(t *testing.T, s *lab.Scenario, st statsJSON) {
	t.Helper()
	rs, _, _ := records105(t, s.Crashed)
	var mid *recordJSON
	for i := len(rs) / 2; i < len(rs); i++ {
		if r := &rs[i]; r.MTREndLSN-r.MTRLSN > 2 && r.MTRLSN > st.CheckpointLSN {
			mid = r
			break
		}
	}
	if mid == nil {
		t.Fatalf("no mini-transaction of 3 bytes or more after the checkpoint %d", st.CheckpointLSN)
	}
	inside := fmt.Sprint(mid.MTRLSN + 1)
	note := fmt.Sprintf("LSN %s is inside the mini-transaction from LSN %d to %d: reading from LSN %d", inside, mid.MTRLSN, mid.MTREndLSN, mid.MTREndLSN)
	var got statsJSON
	out, errs, code := run("log", "stats", "--json", s.Crashed, "--from-lsn", inside)
	if err := json.Unmarshal([]byte(out), &got); err != nil || code == ExitError || got.StartLSN != mid.MTREndLSN || got.EndLSN != st.EndLSN ||
		got.CrashRecovery != s.Verdict.CrashRecovery || !strings.Contains(errs, note) {
		t.Errorf("log stats --from-lsn %s (inside %d-%d): exit %d, start %d, end %d, crash recovery %v (the server: %v)\n%s",
			inside, mid.MTRLSN, mid.MTREndLSN, code, got.StartLSN, got.EndLSN, got.CrashRecovery, s.Verdict.CrashRecovery, errs)
	}
	if from, errs, _ := records105(t, s.Crashed, "--from-lsn", inside); len(from) == 0 || from[0].MTRLSN != mid.MTREndLSN || !strings.Contains(errs, note) {
		t.Errorf("log records --from-lsn %s: starts at %v, want %d\n%s", inside, from[:min(1, len(from))], mid.MTREndLSN, errs)
	}
	if _, errs, code := run("map", "--json", s.Crashed, "--from-lsn", inside); code == ExitError || !strings.Contains(errs, note) {
		t.Errorf("map --from-lsn %s: exit %d\n%s", inside, code, errs)
	}
	past := fmt.Sprint(st.EndLSN + 1)
	for _, cmd := range [][]string{{"log", "stats"}, {"log", "records"}, {"map"}} {
		out, errs, code := run(append(cmd, s.Crashed, "--from-lsn", past)...)
		if code != ExitError || out != "" || !strings.Contains(errs, "--from-lsn "+past+" is past the end of the log") {
			t.Errorf("%v --from-lsn %s (the log ends at %d): exit %d\nstdout %.300q\nstderr %q", cmd, past, st.EndLSN, code, out, errs)
		}
	}
	runJSON(t, &got, "log", "stats", "--json", s.Crashed, "--from-lsn", fmt.Sprint(st.EndLSN))
	if got.MTRCount != 0 || got.EndLSN != st.EndLSN || got.CrashRecovery != s.Verdict.CrashRecovery {
		t.Errorf("log stats --from-lsn %d (the end of the log): %d mini-transactions, end %d, crash recovery %v", st.EndLSN, got.MTRCount, got.EndLSN, got.CrashRecovery)
	}
	runJSON(t, &got, "log", "stats", "--json", s.Crashed, "--to-lsn", fmt.Sprint(st.CheckpointLSN+1))
	if got.CrashRecovery != s.Verdict.CrashRecovery {
		t.Errorf("log stats --to-lsn %d: crash recovery %v; the server's: %v", st.CheckpointLSN+1, got.CrashRecovery, s.Verdict.CrashRecovery)
	}
}

// TestRecordsRefusedStartPrintsNoTable: `log records --from-lsn` below the log's first LSN is
// refused (exit 2) with nothing on stdout; the table's head was printed before the error
// (new-user trial).
func TestRecordsRefusedStartPrintsNoTable(t *testing.T) {
	s := lab.Get(t, "dml")
	out, errs, code := run("log", "records", "--from-lsn", "100", s.Crashed)
	if code != ExitError || out != "" || !strings.Contains(errs, "LSN 100") {
		t.Errorf("log records --from-lsn 100: exit %d, stdout %q, stderr %s", code, out, errs)
	}
}
