package cmd

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"innoscope/finding"
	"innoscope/internal/lab"
	"innoscope/logformat"
	"innoscope/replay"
)

// midLogWrite picks the last data byte of a WRITE record in the middle of the part of the log
// after the end the checkpoint promises (the framing stays whole: the mini-transaction fails its
// checksum) and returns its mini-transaction. Damage before that end makes the server refuse the
// log instead; where the checkpoint was written on a crash decides how much log lies after it,
// so the test is skipped when less than 8 KiB of whole mini-transactions would follow the damage.
func midLogWrite(t *testing.T, l *logformat.Log, cp uint64) (byteLSN, mtrLSN uint64) {
	t.Helper()
	ck, _ := l.Checkpoint()
	sc := l.Scan(cp, logformat.ScanOptions{})
	var after []logformat.MTR
	var end uint64
	for sc.Next() {
		m := *sc.MTR()
		end = m.EndLSN
		if m.LSN <= ck.EndLSN { // up to its FILE_CHECKPOINT the server refuses the log instead
			continue
		}
		m.Records = append([]logformat.Record(nil), m.Records...)
		after = append(after, m)
	}
	for _, m := range after[len(after)/2:] {
		for _, r := range m.Records {
			if r.Type == logformat.Write && len(r.Data) >= 2 {
				if end-m.EndLSN < 8<<10 {
					t.Skipf("on this crash only %d bytes of log follow the checkpoint's end LSN %d: too few whole mini-transactions would follow a damage in their middle", end-ck.EndLSN, ck.EndLSN)
				}
				return m.LSN + uint64(r.Pos+r.Len-1), m.LSN
			}
		}
	}
	t.Skipf("on this crash no WRITE record lies in the second half of the log after the checkpoint's end LSN %d", ck.EndLSN)
	return 0, 0
}

// zeroLogFrom overwrites the log of dir with zeros from LSN from to end (the log cut there).
func zeroLogFrom(t *testing.T, dir string, from, end uint64) {
	f, l := openLog(t, dir, os.O_RDWR)
	defer f.Close()
	for lsn := from; lsn < end; lsn++ {
		if _, err := f.WriteAt([]byte{0}, l.FileOffset(lsn)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSalvageDamagedLog: a byte flipped inside a mini-transaction in the middle of a real
// crash's log, after the end the checkpoint promises. The real server starts and silently stops
// at the damaged mini-transaction, losing the whole ones after it; diagnose reports LOG_DAMAGED
// (an error: more than a 4 KiB block of whole mini-transactions follows, which no crash leaves,
// so committed work is lost; where, how many bytes and mini-transactions follow) and a verdict
// that the server starts and loses committed work; plain recover refuses naming the salvage;
// `recover --salvage` recovers up to the damage and declares log_truncated
// with the LSN range; the server on the copy runs no crash recovery, logs no error and gives
// every table the CHECK TABLE and CHECKSUM TABLE of its own recovery of the log cut at the
// damage.
func TestSalvageDamagedLog(t *testing.T) {
	s := lab.Get(t, "dml")
	var mtrLSN uint64
	dir, _ := flipInLog(t, s, func(l *logformat.Log, cp uint64) uint64 {
		b, m := midLogWrite(t, l, cp)
		mtrLSN = m
		return b
	})
	d := &damaged{s: s, base: t.TempDir(), dir: dir}
	server := filepath.Join(d.base, "server")
	lab.CopyDir(t, dir, server)
	d.server = s.ServerVerdict(t, server)
	t.Logf("server on the damaged log:\n%s", serverLines(t, d.server.ErrLog))
	if !d.server.Started || d.server.EndLSN != mtrLSN {
		t.Fatalf("the server: started=%v, end of log %d; the damaged mini-transaction is at %d", d.server.Started, d.server.EndLSN, mtrLSN)
	}
	j, code := d.diagnose(t)
	fs := findings(j, "LOG_DAMAGED")
	if code != ExitFindings || len(fs) != 1 || fs[0].LSN == nil || *fs[0].LSN != mtrLSN || fs[0].Severity != finding.Error {
		t.Fatalf("diagnose: exit %d, LOG_DAMAGED %+v; want one error at LSN %d (the server starts and loses committed work)", code, fs, mtrLSN)
	}
	t.Logf("diagnose: %s", fs[0].Message)
	if strings.Contains(fs[0].Message, "unfinished tail") {
		t.Errorf("damage in the middle of the log called a possible unfinished tail: %s", fs[0].Message)
	}
	if table, _, _ := run("diagnose", d.dir); !strings.HasPrefix(table, "mariadbd will start, but its recovery stops early and loses committed work: LOG_DAMAGED") {
		t.Errorf("verdict: %.200s", table)
	}
	sv := runSalvage(t, d, salvageCase{want: map[string]int{replay.SalvageLogTruncated: 1}})
	var cut uint64
	for _, a := range sv.j.Salvage {
		if a.Action == replay.SalvageLogTruncated {
			if a.LSN != mtrLSN || a.EndLSN <= a.LSN || a.Records == 0 || !strings.Contains(fs[0].Message, "to "+strconv.FormatUint(a.EndLSN, 10)) {
				t.Errorf("log_truncated %+v; the damage is at %d; diagnose: %s", a, mtrLSN, fs[0].Message)
			}
			cut = a.EndLSN
		}
	}
	if sv.j.Result == nil || sv.j.Result.EndLSN != mtrLSN {
		t.Errorf("recovered to %+v, want the damage's LSN %d", sv.j.Result, mtrLSN)
	}
	cutDir := filepath.Join(d.base, "cut")
	lab.CopyDir(t, s.Crashed, cutDir)
	zeroLogFrom(t, cutDir, mtrLSN, cut)
	v := s.ServerVerdict(t, cutDir)
	t.Logf("server on the log cut at the damage: started=%v end=%d tables_ok=%v\n%s", v.Started, v.EndLSN, v.TablesOK, serverLines(t, v.ErrLog))
	if !v.Started || v.EndLSN != mtrLSN {
		t.Fatalf("the server on the cut log: started=%v end %d", v.Started, v.EndLSN)
	}
	judgeCopy(t, s, sv, v.Checksums)
}

// TestSalvageMissingFileCheckpoint: the checkpoint block's end LSN (CRC valid) points past the
// FILE_CHECKPOINT record, and a copy of a table's file lies beside it. The real server refuses
// ("Missing FILE_CHECKPOINT"); recover refuses before copying and names the salvage; `recover
// --salvage` replays the log from the checkpoint, moves the copy out as ignored_duplicate (the
// file the log names wins), and the server on the copy gives every table its CHECK TABLE and the
// CHECKSUM TABLE of its own recovery of the unmutated crash.
func TestSalvageMissingFileCheckpoint(t *testing.T) {
	s := lab.Get(t, "dml")
	var h headerJSON
	runJSON(t, &h, "log", "header", "--json", s.Crashed)
	var st statsJSON
	runJSON(t, &st, "log", "stats", "--json", s.Crashed)
	var sel checkpointJSON
	for _, c := range h.Checkpoints {
		if c.Selected {
			sel = c
		}
	}
	if st.FileCheckpointEndLSN == nil {
		t.Fatal("no FILE_CHECKPOINT in the scenario's log")
	}
	d := damage(t, "dml", func(t *testing.T, dir string) {
		patchCheckpointEnd(t, dir, sel.Offset, *st.FileCheckpointEndLSN)
		cp(t, filepath.Join(dir, "db/t1.ibd"), filepath.Join(dir, "db/t1_copy.ibd"))
	})
	if d.server.Started || !missingFCP.MatchString(d.errLog) {
		t.Fatalf("the server started or did not say Missing FILE_CHECKPOINT")
	}
	sv := runSalvage(t, d, salvageCase{want: map[string]int{replay.SalvageIgnoredDuplicate: 1}})
	judgeCopy(t, s, sv, s.Checksums(t))
}

// TestSalvageDamageBeforeCheckpointEnd: the wrapped crash's checkpoint promises an end LSN past
// its checkpoint LSN; a byte flipped inside a mini-transaction between the two makes the real
// server refuse the log ("The log was only scanned up to"). diagnose says LOG_DAMAGED (before the
// promised end) and that the salvage cannot help, recover refuses, and `recover --salvage` refuses too, before
// copying: pages of the system tablespace carry LSNs after the damage (the server flushed them
// before the crash), so recovery up to the damage is not a consistent point. (Without that check
// the salvaged copy was started by the server with 40 errors, "log sequence number ... is in the
// future", and db.t failed CHECK TABLE.)
func TestSalvageDamageBeforeCheckpointEnd(t *testing.T) {
	s := lab.Get(t, "wrapped")
	// The damage goes before the newest page the server flushed to ibdata1 before the crash
	// (how far that is differs from one generation of the lab crash to the next). The
	// doublewrite buffer's copies are pages of other tablespaces and do not count (CI run of
	// stop 38: a copy of a db/t.ibd page was the newest, so the salvage rightly quarantined
	// db/t.ibd instead of refusing).
	sysNewest := pagesOf(t, "--verify", "--summary", filepath.Join(s.Crashed, "ibdata1")).MaxLSN
	var mtrLSN, promised uint64
	dir, _ := flipInLog(t, s, func(l *logformat.Log, cp uint64) uint64 {
		c, _ := l.Checkpoint()
		promised = c.EndLSN
		sc := l.Scan(cp, logformat.ScanOptions{})
		var cands [][2]uint64
		for sc.Next() {
			m := sc.MTR()
			if m.EndLSN >= c.EndLSN || m.EndLSN >= sysNewest {
				break
			}
			for _, r := range m.Records {
				if r.Type == logformat.Write && len(r.Data) >= 2 {
					cands = append(cands, [2]uint64{m.LSN + uint64(r.Pos+r.Len-1), m.LSN})
					break
				}
			}
		}
		if len(cands) == 0 {
			t.Skipf("no WRITE record before the promised end %d and ibdata1's newest page LSN %d in this generation of the crash", c.EndLSN, sysNewest)
		}
		mtrLSN = cands[len(cands)/2][1]
		return cands[len(cands)/2][0]
	})
	d := &damaged{s: s, base: t.TempDir(), dir: dir}
	server := filepath.Join(d.base, "server")
	lab.CopyDir(t, dir, server)
	d.server = s.ServerVerdict(t, server)
	t.Logf("server on the damaged log (damage at %d, promised end %d):\n%s", mtrLSN, promised, serverLines(t, d.server.ErrLog))
	if d.server.Started {
		t.Fatal("the server started")
	}
	j, code := d.diagnose(t)
	fs := findings(j, "LOG_DAMAGED")
	if code != ExitFindings || len(fs) != 1 || *fs[0].LSN != mtrLSN || !strings.Contains(fs[0].Message, "refuses") {
		t.Fatalf("diagnose: exit %d, LOG_DAMAGED %+v", code, fs)
	}
	// It names no salvage the salvage then refuses (new-user trial: it said `recover --salvage`
	// recovers up to the damage).
	if !strings.Contains(fs[0].Message, "cannot help") || !strings.Contains(fs[0].Message, "ibdata1") {
		t.Errorf("LOG_DAMAGED does not say the salvage cannot help (ibdata1's pages after the damage): %s", fs[0].Message)
	}
	before := lab.HashTree(t, d.dir)
	copyDir := filepath.Join(d.base, "copy")
	_, errs, code := run("recover", d.dir, "--into", copyDir)
	if code != ExitError || !strings.Contains(errs, "--salvage") {
		t.Errorf("recover: exit %d, %s", code, errs)
	}
	_, errs, code = run("recover", "--salvage", d.dir, "--into", copyDir)
	t.Logf("recover --salvage: exit %d: %s", code, errs)
	if code != ExitError || !strings.Contains(errs, "ibdata1") || !strings.Contains(errs, "not a consistent point") {
		t.Errorf("recover --salvage: exit %d, %s; want a refusal naming ibdata1's pages after the damage", code, errs)
	}
	if _, err := os.Stat(copyDir); err == nil {
		t.Error("the refused salvage created the copy")
	}
	if after := lab.HashTree(t, d.dir); !mapsEqual(before, after) {
		t.Error("the source changed")
	}
}

// TestLogDamagedFraming: the termination byte of a mini-transaction in the middle of a real
// crash's log flipped (the framing itself is damaged). The real
// server silently stops there; diagnose's LOG_DAMAGED finds the next whole mini-transaction by
// trying each LSN past the damage, and names the one that really follows.
func TestLogDamagedFraming(t *testing.T) {
	s := lab.Get(t, "dml")
	var at, next uint64
	dir, _ := flipInLog(t, s, func(l *logformat.Log, cp uint64) uint64 {
		ck, _ := l.Checkpoint()
		sc := l.Scan(cp, logformat.ScanOptions{})
		var all [][2]uint64
		for sc.Next() {
			if sc.MTR().LSN > ck.EndLSN { // up to its FILE_CHECKPOINT the server refuses the log instead
				all = append(all, [2]uint64{sc.MTR().LSN, sc.MTR().EndLSN})
			}
		}
		if len(all) < 3 {
			t.Skipf("on this crash %d mini-transactions follow the checkpoint's end LSN %d: none in the middle to damage", len(all), ck.EndLSN)
		}
		at, next = all[len(all)/2][0], all[len(all)/2][1]
		return next - 5 // its termination byte: the record lengths walk on into the next one
	})
	serverEndsAt(t, s, dir, at)
	d := &damaged{s: s, base: t.TempDir(), dir: dir}
	j, code := d.diagnose(t)
	fs := findings(j, "LOG_DAMAGED")
	// Error: far more than a 4 KiB block of whole mini-transactions follows (TestLogDamagedSeverity).
	if code != ExitFindings || len(fs) != 1 || fs[0].Severity != finding.Error || *fs[0].LSN != at || !strings.Contains(fs[0].Message, "follow from LSN "+strconv.FormatUint(next, 10)+" ") {
		t.Fatalf("diagnose: exit %d, LOG_DAMAGED %+v; want the damage at %d and whole ones from %d", code, fs, at, next)
	}
	t.Logf("diagnose: %s", fs[0].Message)
}

// TestSalvageDamagedCheckpointRecord: a data byte of the FILE_CHECKPOINT record the checkpoint
// block names flipped (its mini-transaction fails its checksum; every one after it is whole).
// The real server refuses ("Missing FILE_CHECKPOINT"); diagnose says so and that the salvage
// loses nothing; plain recover refuses naming the salvage; `recover --salvage` replays every
// mini-transaction after the damaged one (checkpoint_record_skipped, not a loss: exit 0) and the
// server on the copy runs no crash recovery and gives every table its CHECK TABLE and the
// CHECKSUM TABLE of its own recovery of the undamaged crash.
func TestSalvageDamagedCheckpointRecord(t *testing.T) {
	s := lab.Get(t, "dml")
	var cpLSN uint64
	dir, _ := flipInLog(t, s, func(l *logformat.Log, cp uint64) uint64 {
		if c, _ := l.Checkpoint(); c.EndLSN != c.LSN {
			t.Skipf("the checkpoint's end LSN %d is past its LSN %d in this generation of the crash", c.EndLSN, c.LSN)
		}
		sc := l.Scan(cp, logformat.ScanOptions{})
		if !sc.Next() || sc.MTR().EndLSN-sc.MTR().LSN != logformat.FileCheckpointMTRSize {
			t.Fatalf("no FILE_CHECKPOINT mini-transaction alone at the checkpoint LSN %d", cp)
		}
		cpLSN = cp
		return cp + 6 // a byte of the record's LSN field: the framing stays whole
	})
	d := &damaged{s: s, base: t.TempDir(), dir: dir}
	server := filepath.Join(d.base, "server")
	lab.CopyDir(t, dir, server)
	d.server = s.ServerVerdict(t, server)
	b, _ := os.ReadFile(d.server.ErrLog)
	t.Logf("server on the damaged log:\n%s", serverLines(t, d.server.ErrLog))
	if d.server.Started || !missingFCP.Match(b) {
		t.Fatalf("the server started (%v) or did not say Missing FILE_CHECKPOINT", d.server.Started)
	}
	j, code := d.diagnose(t)
	fs := findings(j, "LOG_DAMAGED")
	if code != ExitFindings || len(fs) != 1 || fs[0].LSN == nil || *fs[0].LSN != cpLSN || !strings.Contains(fs[0].Message, "loses nothing") {
		t.Fatalf("diagnose: exit %d, LOG_DAMAGED %+v; want the damage at the checkpoint LSN %d and the salvage losing nothing", code, fs, cpLSN)
	}
	t.Logf("diagnose: %s", fs[0].Message)
	if code, errs := d.recover(t); code != ExitError || !strings.Contains(errs, "lose nothing") {
		t.Errorf("recover: exit %d, %s; want a refusal saying the salvage loses nothing", code, errs)
	}
	sv := runSalvage(t, d, salvageCase{want: map[string]int{replay.SalvageCheckpointSkipped: 1}})
	for _, a := range sv.j.Salvage {
		if a.LSN != cpLSN || a.EndLSN != cpLSN+logformat.FileCheckpointMTRSize {
			t.Errorf("%s at LSN %d-%d; the damaged mini-transaction is %d-%d", a.Action, a.LSN, a.EndLSN, cpLSN, cpLSN+logformat.FileCheckpointMTRSize)
		}
	}
	var st statsJSON
	runJSON(t, &st, "log", "stats", "--json", s.Crashed)
	if sv.j.Result == nil || sv.j.Result.EndLSN != st.EndLSN {
		t.Errorf("salvage recovered to %+v; the undamaged crash's log ends at %d", sv.j.Result, st.EndLSN)
	}
	judgeCopy(t, s, sv, s.Checksums(t))
}

// TestLogDamagedLastMTR: the termination byte of the last mini-transaction of a real crash's log
// flipped. The real server stops at that mini-transaction. The whole mini-transactions found
// after it lie past the end of the undamaged log (where the server's own recovery of it ended):
// the stale log buffer bytes that fill the rest of the crash's last write block, a copy of older
// log. They were reported as LOG_DAMAGED (a warning saying they may be that tail); they are no
// log written on past the damage, so diagnose reports no LOG_DAMAGED, only where the log ends
// (TestLogStaleTailAfterDamagedEnd checks the server's rows and the changes too).
func TestLogDamagedLastMTR(t *testing.T) {
	s := lab.Get(t, "dml")
	if _, k := staleTailCopy(t, s, s.Verdict.EndLSN); k == 0 {
		t.Skip("no stale copy of older log past the end of this generation of the crash")
	}
	var last uint64
	dir, _ := flipInLog(t, s, func(l *logformat.Log, cp uint64) uint64 {
		sc := l.Scan(cp, logformat.ScanOptions{})
		var end uint64
		for sc.Next() {
			last, end = sc.MTR().LSN, sc.MTR().EndLSN
		}
		return end - 5 // its termination byte
	})
	serverEndsAt(t, s, dir, last)
	d := &damaged{s: s, base: t.TempDir(), dir: dir}
	j, code := d.diagnose(t)
	if fs := findings(j, "LOG_DAMAGED"); code != ExitClean || len(fs) != 0 {
		t.Fatalf("diagnose: exit %d, LOG_DAMAGED %+v: the whole mini-transactions after the last one are stale bytes past the log's end", code, fs)
	}
	for _, f := range findings(j, "LOG_END_DAMAGED") {
		if f.LSN == nil || *f.LSN != last {
			t.Errorf("LOG_END_DAMAGED %+v; the log ends at %d", f, last)
		}
	}
}

// serverEndsAt starts the real server on a copy of dir and fails the test unless it starts and
// its recovery ends the log at lsn (the damaged mini-transaction's start).
func serverEndsAt(t *testing.T, s *lab.Scenario, dir string, lsn uint64) {
	t.Helper()
	f, l := openLog(t, dir, os.O_RDONLY)
	ck, _ := l.Checkpoint()
	f.Close()
	if lsn <= ck.EndLSN {
		t.Skipf("on this crash the damaged mini-transaction (LSN %d) is not after the FILE_CHECKPOINT at the end LSN %d the checkpoint promises: the server refuses the log (TestSalvageDamageBeforeCheckpointEnd's and TestSalvageDamagedCheckpointRecord's cases)", lsn, ck.EndLSN)
	}
	server := filepath.Join(t.TempDir(), "server")
	lab.CopyDir(t, dir, server)
	if v := s.ServerVerdict(t, server); !v.Started || v.EndLSN != lsn {
		t.Fatalf("the server: started=%v, end of log %d; the damaged mini-transaction is at %d", v.Started, v.EndLSN, lsn)
	}
}

// TestLogDamagedSeverity: a data byte flipped inside a mini-transaction of a real crash's log,
// past the end the checkpoint promises, at two places chosen from the log: the last
// mini-transaction whose whole successors (to the log's end) fill more than one 4 KiB block,
// and the first whose successors fill at most one. The real server starts on each and silently
// stops at the damaged one (its end of log), short of its own recovery of the undamaged crash.
// A crash leaves whole mini-transactions after a damaged one only inside the block of its last
// write: more than a block of them is LOG_DAMAGED as an error (committed work is lost: exit 1);
// within a block it stays a warning (exit 0). It was a warning at both places.
func TestLogDamagedSeverity(t *testing.T) {
	s := lab.Get(t, "dml")
	// Every mini-transaction from the checkpoint: its LSN, and the last data byte of its first
	// record when that is a WRITE (0: not one to flip).
	var all [][2]uint64
	f, l := openLog(t, s.Crashed, os.O_RDONLY)
	defer f.Close()
	cp, _ := l.Checkpoint()
	for sc := l.Scan(cp.LSN, logformat.ScanOptions{}); sc.Next(); {
		if m := sc.MTR(); len(m.Records) > 0 && m.Records[0].Type == logformat.Write && len(m.Records[0].Data) >= 2 {
			r := m.Records[0]
			all = append(all, [2]uint64{m.LSN, m.LSN + uint64(r.Pos+r.Len-1)})
		} else {
			all = append(all, [2]uint64{m.LSN, 0})
		}
	}
	var st statsJSON
	runJSON(t, &st, "log", "stats", "--json", s.Crashed)
	// The successors of the mini-transaction at index i end at the end of the log; they start
	// at all[i+1].
	var over, within int = -1, -1
	for i := 0; i+1 < len(all); i++ {
		if all[i][1] == 0 {
			continue
		}
		if all[i][0] < cp.EndLSN {
			continue // before the end the checkpoint promises: the server refuses (TestSalvageDamageBeforeCheckpointEnd)
		}
		if st.EndLSN-all[i+1][0] > 4096 {
			over = i
		} else if within < 0 {
			within = i
		}
	}
	if over < 0 || within < 0 {
		t.Skipf("on this crash no WRITE mini-transaction after the checkpoint's end LSN %d lies on each side of the last 4 KiB of the log (end %d)", cp.EndLSN, st.EndLSN)
	}
	for _, c := range []struct {
		name string
		i    int
		sev  finding.Severity
		code int
	}{{"more than a block follows", over, finding.Error, ExitFindings}, {"at most a block follows", within, finding.Warning, ExitClean}} {
		t.Run(c.name, func(t *testing.T) {
			m := all[c.i]
			dir, _ := flipInLog(t, s, func(*logformat.Log, uint64) uint64 { return m[1] })
			serverEndsAt(t, s, dir, m[0])
			d := &damaged{s: s, base: t.TempDir(), dir: dir}
			j, code := d.diagnose(t)
			fs := findings(j, "LOG_DAMAGED")
			if len(fs) != 1 || fs[0].Severity != c.sev || *fs[0].LSN != m[0] || code != c.code {
				t.Fatalf("diagnose: exit %d, LOG_DAMAGED %+v; want one %s at LSN %d (whole ones follow to %d, the end of the log)", code, fs, c.sev, m[0], st.EndLSN)
			}
			t.Logf("diagnose: %s", fs[0].Message)
		})
	}
}
