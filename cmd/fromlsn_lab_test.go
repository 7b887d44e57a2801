package cmd

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// TestFromLSNInsideMTR: on real crashes of MariaDB 10.11 and 10.5, a --from-lsn inside a
// mini-transaction (one byte after the start of one that `log records` lists below the
// checkpoint) is refused by log stats, log records and map (exit 2, naming the LSN and what was
// read there), where they reported the healthy log as damaged ("the server refuses to start")
// or as ending there; the mini-transaction's own start is read. And from that start, log stats
// says crash recovery is needed exactly when the server ran it on the same directory (the
// 10.5 path said false for any start but the checkpoint).
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
			// An MTR below the checkpoint: the first one from the oldest checkpoint block's
			// LSN, or (one checkpoint block) from the log's first LSN.
			from := uint64(0)
			var h headerJSON
			runJSON(t, &h, "log", "header", "--json", s.Crashed)
			for _, cp := range h.Checkpoints {
				if cp.Valid && cp.LSN < st.CheckpointLSN && (from == 0 || cp.LSN < from) {
					from = cp.LSN
				}
			}
			if from == 0 {
				from = h.FirstLSN
			}
			rs, _, _ := records105(t, s.Crashed, "--from-lsn", fmt.Sprint(from), "--to-lsn", fmt.Sprint(st.CheckpointLSN))
			var start, end uint64
			for _, r := range rs {
				if r.MTREndLSN-r.MTRLSN > 2 && r.MTRLSN < st.CheckpointLSN {
					start, end = r.MTRLSN, r.MTREndLSN
					break
				}
			}
			if start == 0 {
				t.Fatalf("no mini-transaction of 3 bytes or more from LSN %d to the checkpoint %d", from, st.CheckpointLSN)
			}
			inside := fmt.Sprint(start + 1)
			for _, cmd := range [][]string{{"log", "stats"}, {"log", "records"}, {"map"}} {
				out, errs, code := run(append(cmd, s.Crashed, "--from-lsn", inside)...)
				if code != ExitError || out != "" || !strings.Contains(errs, "no mini-transaction starts at LSN "+inside+" (read from there: ") {
					t.Errorf("%v --from-lsn %s (inside the mini-transaction %d-%d): exit %d\nstdout %.300q\nstderr %q", cmd, inside, start, end, code, out, errs)
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
		})
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
