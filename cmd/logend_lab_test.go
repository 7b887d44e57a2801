package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/internal/lab"
	"innoscope/logformat"
)

// staleTailCopy reads, in the undamaged crash s, the bytes mariadbd left after the zero byte
// that ends its log (at end) up to the end of that 4 KiB block, and returns how many write
// blocks (512 bytes) back the same bytes lie in the log before end: the stale bytes of the log
// buffer that fill the rest of the last block of every log write. 0: no such bytes or no copy.
func staleTailCopy(t *testing.T, s *lab.Scenario, end uint64) (n int, blocks uint64) {
	t.Helper()
	f, l := openLog(t, s.Crashed, os.O_RDONLY)
	defer f.Close()
	off := l.FileOffset(end)
	tail := make([]byte, 4096-off%4096-1)
	if len(tail) < 64 {
		return len(tail), 0
	}
	if err := l.ReadAt(tail, end+1); err != nil {
		t.Fatal(err)
	}
	older := make([]byte, len(tail))
	for k := uint64(1); k*512 <= end+1-l.Header.FirstLSN && k < 1<<17; k++ {
		if l.ReadAt(older, end+1-k*512) == nil && bytes.Equal(older, tail) {
			return len(tail), k
		}
	}
	return len(tail), 0
}

// TestLogStaleTailAfterDamagedEnd: the last mini-transaction of a real crash's log damaged (a
// data byte, the framing whole; or its termination byte). mariadbd fills the rest of the last
// block of every log write with stale bytes of its log buffer, an older part of its log, so
// whole mini-transactions lie past the end of every crash's log. The server starts, logs no
// [ERROR], and its recovery stops at the damaged mini-transaction; a copy innoscope recovers
// gives its CHECKSUM TABLE. innoscope called those stale copies log written on past the damage:
// LOG_DAMAGED ("N whole mini-transactions follow ... recover --salvage declares them lost"),
// and `log changes --past-damage` listed their row changes (old UPDATEs of db.t2 rows, from
// LSNs after the damage) as if they came after it. Now: no LOG_DAMAGED, LOG_END_DAMAGED at the
// damaged one (when the scan stopped on its checksum), and no change past it. Each crash is
// checked to hold such a tail (a copy of older log whole write blocks back) first.
func TestLogStaleTailAfterDamagedEnd(t *testing.T) {
	for _, srv := range []*lab.Server{lab.MariaDB1011, lab.MariaDB118} {
		for _, c := range []struct {
			name string
			// pick: the byte of the last mini-transaction (LSN m, end e, records r) to flip
			pick func(m *logformat.MTR) uint64
		}{
			{"data byte", func(m *logformat.MTR) uint64 {
				for i := len(m.Records) - 1; i >= 0; i-- {
					if r := m.Records[i]; r.Type == logformat.Write && len(r.Data) >= 2 {
						return m.LSN + uint64(r.Pos+r.Len-1)
					}
				}
				return 0
			}},
			{"termination byte", func(m *logformat.MTR) uint64 { return m.EndLSN - 5 }},
		} {
			t.Run(srv.Version+"/"+c.name, func(t *testing.T) {
				s := srv.Get(t, "dml")
				n, k := staleTailCopy(t, s, s.Verdict.EndLSN)
				if k == 0 {
					t.Skipf("this crash's last log write leaves %d bytes after its end (LSN %d) that are no copy of older log: not this test's case", n, s.Verdict.EndLSN)
				}
				t.Logf("the %d bytes after the end of the undamaged log (LSN %d) are its bytes %d write blocks earlier", n, s.Verdict.EndLSN, k)
				var last uint64
				checkpointMTR := false // the last mini-transaction is the checkpoint's own
				dir, _ := flipInLog(t, s, func(l *logformat.Log, cp uint64) uint64 {
					var m logformat.MTR
					for sc := l.Scan(cp, logformat.ScanOptions{}); sc.Next(); {
						m = *sc.MTR()
						m.Records = append([]logformat.Record(nil), m.Records...)
					}
					last = m.LSN
					for _, r := range m.Records {
						checkpointMTR = checkpointMTR || r.Type == logformat.FileCheckpoint
					}
					b := c.pick(&m)
					if b == 0 {
						t.Skip("the last mini-transaction of this crash holds no WRITE record to damage")
					}
					return b
				})
				server := filepath.Join(t.TempDir(), "server")
				lab.CopyDir(t, dir, server)
				v := s.ServerVerdict(t, server)
				t.Logf("server: started=%v end=%d errors=%d\n%s", v.Started, v.EndLSN, v.Errors, serverLines(t, v.ErrLog))
				if checkpointMTR {
					// The crash's last mini-transaction holds the FILE_CHECKPOINT record recovery
					// looks for (11.8 ends a checkpoint's log there): its damage is no stale tail
					// case, the server refuses ("Missing FILE_CHECKPOINT"), and diagnose must say so.
					d := &damaged{s: s, base: t.TempDir(), dir: dir}
					j, code := d.diagnose(t)
					if v.Started || code != ExitFindings || j.Summary["error"] == 0 {
						t.Fatalf("damaged FILE_CHECKPOINT mini-transaction at %d: server started=%v; diagnose exit %d, findings %+v", last, v.Started, code, j.Findings)
					}
					t.Skipf("the last mini-transaction (LSN %d) is the checkpoint's own: the server refuses and diagnose agrees; no stale tail to judge", last)
				}
				if !v.Started || v.EndLSN != last || v.Errors != 0 || !v.TablesOK {
					t.Fatalf("the server: started=%v, end of log %d, %d [ERROR] lines, tables ok %v; the damaged mini-transaction is at %d", v.Started, v.EndLSN, v.Errors, v.TablesOK, last)
				}
				d := &damaged{s: s, base: t.TempDir(), dir: dir}
				j, code := d.diagnose(t)
				for _, f := range j.Findings {
					t.Logf("diagnose: %s %s: %s", f.Severity, f.Code, f.Message)
				}
				if fs := findings(j, "LOG_DAMAGED"); code != ExitClean || len(fs) != 0 {
					t.Errorf("diagnose: exit %d, LOG_DAMAGED %+v: the whole mini-transactions past the damaged last one are stale bytes after the log's end", code, fs)
				}
				if c.name == "data byte" {
					// The stale bytes after the end do not always hold a whole mini-transaction
					// (they may start inside one); when the finding names some, it says why
					// they are no log.
					if fs := findings(j, "LOG_END_DAMAGED"); len(fs) != 1 || fs[0].LSN == nil || *fs[0].LSN != last ||
						strings.Contains(fs[0].Message, "whole mini-transactions at LSN") && !strings.Contains(fs[0].Message, "byte copy of the log") {
						t.Errorf("LOG_END_DAMAGED %+v; the log ends on the damaged mini-transaction at %d, the whole ones after it a stale copy", fs, last)
					}
				}
				var lc struct {
					Transactions []struct {
						ID      uint64 `json:"trx_id"`
						Changes []struct {
							LSN   uint64 `json:"lsn"`
							Table string `json:"table"`
						} `json:"changes"`
					} `json:"transactions"`
				}
				runJSON(t, &lc, "log", "changes", "--json", "--past-damage", dir)
				for _, x := range lc.Transactions {
					for _, ch := range x.Changes {
						if ch.LSN >= last {
							t.Errorf("log changes --past-damage: trx %d changes %s at LSN %d, past the damaged last mini-transaction at %d (stale bytes)", x.ID, ch.Table, ch.LSN, last)
						}
					}
				}
				copyDir := filepath.Join(d.base, "copy")
				if _, errs, code := run("recover", dir, "--into", copyDir); code != ExitClean {
					t.Fatalf("recover: exit %d: %s", code, errs)
				}
				cv := s.ServerVerdict(t, copyDir)
				if !cv.Started || cv.CrashRecovery || cv.Errors != 0 || cv.Checksums != v.Checksums {
					t.Errorf("server on the copy: started=%v crash_recovery=%v errors=%d checksums\n%s\nits own recovery's\n%s", cv.Started, cv.CrashRecovery, cv.Errors, cv.Checksums, v.Checksums)
				}
			})
		}
	}
}
