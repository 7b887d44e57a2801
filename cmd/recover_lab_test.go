package cmd

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/internal/lab"
	"innoscope/replay"
)

// recoverScenarios are the crash scenarios recover is checked on (compressed: crc32 checksums,
// 4 KiB pages, ROW_FORMAT=COMPRESSED and PAGE_COMPRESSED tables; pages64k: the dml workload
// with 64 KiB pages; layout: the same with undo, system (two files) and log files in
// directories of their own; ddl_churn: EXCHANGE PARTITION, ADD PARTITION, copying ALTERs,
// RENAME swaps, DROP+CREATE and a RENAME across databases, of tables from before and after the
// checkpoint, with stale .isl files and a copying ALTER cut by the crash; compressed_new*: COMPRESSED,
// PAGE_COMPRESSED and REDUNDANT tables created after the checkpoint, page 0 still blank).
var recoverScenarios = append(append([]string{}, scenarios...), "compressed", "pages64k", "layout", "ddl_churn", "compressed_new", "compressed_new_4k")

// sourceTrees are the directories of a scenario that recover reads: the crashed data directory
// and the directories outside it as the crash left them (DATA DIRECTORY files, undo, system and
// log files).
func sourceTrees(s *lab.Scenario) []string {
	more, _ := filepath.Glob(filepath.Join(s.Dir, "*-crashed"))
	return append([]string{s.Crashed}, more...)
}

// splitOptions splits a scenario's server options into the directory options innoscope is
// given too, and the options for the server on a recovered copy, where the files of those
// directories are in the copy's root.
func splitOptions(opts []string) (where, onCopy []string) {
	for _, o := range opts {
		switch name, _, _ := strings.Cut(o, "="); name {
		case "--innodb-undo-directory", "--innodb-data-home-dir", "--innodb-log-group-home-dir":
			where = append(where, o)
		case "--innodb-data-file-path":
			where, onCopy = append(where, o), append(onCopy, o)
		default:
			onCopy = append(onCopy, o)
		}
	}
	return where, onCopy
}

// recoverInto runs `recover --json` of the scenario's directory dir (with its directory
// options and extra flags) into a new copy, and returns the result, the copy and the scenario
// as the server must be started on the copy.
func recoverInto(t *testing.T, s *lab.Scenario, dir string, extra ...string) (recoverJSON, string, *lab.Scenario) {
	t.Helper()
	where, onCopy := splitOptions(s.Options)
	copyDir := filepath.Join(t.TempDir(), "copy")
	var j recoverJSON
	runJSON(t, &j, append(append([]string{"recover", "--json", dir, "--into", copyDir}, where...), extra...)...)
	sc := *s
	sc.Options = onCopy
	return j, copyDir, &sc
}

// pageDiff compares the pages recovery changed in our file (their LSN differs from the crashed
// file's) with the server's recovered file: every such page that carries the same LSN in both
// (the server's recovery wrote it and nothing changed it afterwards) must be byte for byte the
// same. page_compressed pages are compared after inflating the server's copy (innoscope writes
// them uncompressed).
func pageDiff(t *testing.T, ours, crashed, theirs string) (compared int, diffs []string) {
	t.Helper()
	a, err := discovery.OpenFile(ours)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := os.Open(theirs)
	if err != nil {
		return 0, nil
	}
	defer b.Close()
	c, err := os.Open(crashed)
	if err != nil {
		return 0, nil
	}
	defer c.Close()
	fl := a.FSP.Flags
	buf, old := make([]byte, a.Physical), make([]byte, a.Physical)
	a.EachPage(0, -1, func(no int64, p []byte) error {
		if n, _ := b.ReadAt(buf, no*int64(a.Physical)); n < len(buf) {
			return nil
		}
		if n, _ := c.ReadAt(old, no*int64(a.Physical)); n == len(old) && bytes.Equal(old[16:24], p[16:24]) {
			return nil // not changed by recovery
		}
		q, end := buf, len(p)
		if discovery.IsPageCompressed(q, fl) {
			var err error
			if q, err = discovery.Decompress(q, fl, fl.PageSize); err != nil {
				diffs = append(diffs, filepath.Base(theirs)+": "+err.Error())
				return nil
			}
			if fl.FullCRC32 {
				// The server compresses its frame as it is: the checksum it writes is that of
				// the compressed image, and the last 4 bytes of the frame are not one (they
				// repeat the LSN). Our uncompressed page must carry its CRC-32C there.
				end -= 4
			}
		}
		lsn := binary.BigEndian.Uint64(p[16:])
		if lsn != binary.BigEndian.Uint64(q[16:]) {
			return nil
		}
		compared++
		if !bytes.Equal(p[:end], q[:end]) {
			i := 0
			for i < len(p) && p[i] == q[i] {
				i++
			}
			diffs = append(diffs, fmt.Sprintf("%s page %d: first difference at byte %d", ours, no, i))
		}
		return nil
	})
	return compared, diffs
}

// TestRecoverAgainstServer: for every crash scenario, `recover --into` exits 0 and leaves the
// source untouched; the copy's pages are valid for the server's rule and for innochecksum; every
// page the server's own recovery left with the same LSN as ours is byte-identical; and the real
// server started on the copy runs no crash recovery, logs no error, passes CHECK TABLE, and gives
// the same CHECKSUM TABLE as its own crash recovery of the same directory.
func TestRecoverAgainstServer(t *testing.T) {
	applied := map[string]int{}
	trimmed, ran := 0, 0
	var mu sync.Mutex // the servers' subtests run in parallel
	forServers(t, func(t *testing.T, srv *lab.Server) {
		for _, name := range scenariosOn(srv, recoverScenarios) {
			t.Run(name, func(t *testing.T) {
				if srv == lab.MariaDB1011 {
					mu.Lock()
					ran++ // the check of the record types below needs every 10.11 scenario
					mu.Unlock()
				}
				s := srv.Get(t, name)
				var before []map[string]string
				for _, d := range sourceTrees(s) {
					before = append(before, lab.HashTree(t, d))
				}
				j, copyDir, onCopy := recoverInto(t, s, s.Crashed)
				for i, d := range sourceTrees(s) {
					if !mapsEqual(before[i], lab.HashTree(t, d)) {
						t.Errorf("recover changed the source %s", d)
					}
				}
				r := j.Result
				mu.Lock()
				for k, n := range r.Applied {
					applied[k] += n
				}
				for _, sp := range r.Spaces {
					if sp.TrimmedTo > 0 {
						trimmed++
					}
				}
				mu.Unlock()
				t.Logf("recover: checkpoint %d, end %d, %d mtrs, %d records applied, %d skipped, %d pages read, %d applied, %d freed",
					r.CheckpointLSN, r.EndLSN, r.MTRs, r.RecordsApplied, r.RecordsSkipped, r.PagesRead, r.PagesApplied, r.PagesFreed)
				if s.Verdict.CrashRecovery && (r.CheckpointLSN != s.Verdict.CheckpointLSN || r.EndLSN != s.Verdict.EndLSN) {
					t.Errorf("replayed %d..%d, the server recovered %d..%d", r.CheckpointLSN, r.EndLSN,
						s.Verdict.CheckpointLSN, s.Verdict.EndLSN)
				}
				if s.Verdict.CrashRecovery && r.PagesApplied == 0 {
					t.Error("a crash scenario with no page applied")
				}
				if _, err := os.Stat(filepath.Join(copyDir, replay.IncompleteMarker)); err == nil {
					t.Error("the finished copy is still marked incomplete")
				}
				compared := 0
				for _, f := range datafiles(t, copyDir) {
					pj := pagesOf(t, "--verify", "--summary", f)
					ic, _ := innochecksumBad(t, f)
					if len(pj.Corrupt) != 0 || !reflect.DeepEqual(pj.InnochecksumCorrupt, ic) {
						t.Errorf("%s: corrupt %v (%v); innochecksum reports %v, innoscope's model %v", f, pj.Corrupt, pj.Reasons, ic, pj.InnochecksumCorrupt)
					}
					for _, no := range ic {
						if !strings.Contains(pj.Reasons[no], "doublewrite") {
							t.Errorf("%s page %d: innochecksum rejects it: %s", f, no, pj.Reasons[no])
						}
					}
					rel, _ := filepath.Rel(copyDir, f)
					n, diffs := pageDiff(t, f, filepath.Join(s.Crashed, rel), filepath.Join(s.Dir, "server", rel))
					compared += n
					for _, d := range diffs {
						t.Errorf("differs from the server's recovery: %s", d)
					}
				}
				t.Logf("%d of the %d pages recovery changed are byte-identical to the server's own recovery (the others changed again after it)",
					compared, r.PagesApplied)
				if s.Verdict.CrashRecovery && compared == 0 {
					// Every page the replay changed was changed again by the server after its
					// recovery (rollback, purge, DDL recovery) in this generation of the crash (seen
					// on ddl_churn): the server's verdict on the copy below is the judge then.
					t.Logf("no page to compare byte for byte with the server's recovery")
				}
				// Batches: with a 1 MiB page cache the replay writes and re-reads pages many times
				// over; the copy must come out byte for byte the same.
				j2, copy2, _ := recoverInto(t, s, s.Crashed, "--cache-mib", "1")
				h1, h2 := lab.HashTree(t, copyDir), lab.HashTree(t, copy2)
				if len(h1) != len(h2) {
					t.Errorf("%d files with one batch, %d with small batches", len(h1), len(h2))
				}
				for p, h := range h1 {
					rel, _ := filepath.Rel(copyDir, p)
					if strings.HasSuffix(rel, ".isl") {
						continue // names its copy's own external directory
					}
					if h2[filepath.Join(copy2, rel)][:64] != h[:64] {
						t.Errorf("%s differs between one batch and %d batches", rel, j2.Result.Batches)
					}
				}
				t.Logf("%d batches with a 1 MiB cache: same copy", j2.Result.Batches)
				v := onCopy.ServerVerdict(t, copyDir) // the copy is disposable: the server writes to it
				t.Logf("server on the copy: started=%v crash_recovery=%v tables_ok=%v (%d checked), %d errors\n%s",
					v.Started, v.CrashRecovery, v.TablesOK, v.TablesChecked, v.Errors, serverLines(t, v.ErrLog))
				if !v.Started || v.CrashRecovery || !v.TablesOK || v.Errors != 0 {
					t.Errorf("server on the recovered copy: started=%v crash_recovery=%v tables_ok=%v errors=%d\n%s",
						v.Started, v.CrashRecovery, v.TablesOK, v.Errors, v.Checks)
				}
				if want := s.Checksums(t); v.Checksums != want || want == "" {
					t.Errorf("CHECKSUM TABLE on the copy:\n%s\nafter the server's own recovery:\n%s", v.Checksums, want)
				}
				if want := s.Checks(t); v.Checks != want || want == "" {
					t.Errorf("CHECK TABLE on the copy:\n%s\nafter the server's own recovery:\n%s", v.Checks, want)
				}
			})
		}
	})
	// Every page operation a release server logs was applied somewhere (TRIM_PAGES: an undo
	// tablespace was cut to its new size).
	if ran != len(recoverScenarios) {
		return // -run chose some scenarios only
	}
	t.Logf("applied records by type: %v; %d undo tablespaces truncated", applied, trimmed)
	for _, k := range []string{"INIT_PAGE", "FREE_PAGE", "WRITE", "MEMSET", "MEMMOVE",
		"INIT_ROW_FORMAT_REDUNDANT", "INIT_ROW_FORMAT_DYNAMIC", "UNDO_INIT", "UNDO_APPEND",
		"INSERT_HEAP_REDUNDANT", "INSERT_REUSE_REDUNDANT", "INSERT_HEAP_DYNAMIC", "INSERT_REUSE_DYNAMIC",
		"DELETE_ROW_FORMAT_REDUNDANT", "DELETE_ROW_FORMAT_DYNAMIC"} {
		if applied[k] == 0 {
			t.Errorf("no %s record was applied in any scenario", k)
		}
	}
	if trimmed == 0 {
		t.Error("no undo tablespace truncation was replayed")
	}
}

// recoverAndStart recovers dir into a new copy, starts the real server on the copy and checks
// that it runs no crash recovery, logs no error, and gives want as CHECKSUM TABLE.
func recoverAndStart(t *testing.T, s *lab.Scenario, dir, want string) *replay.RecoverResult {
	t.Helper()
	j, copyDir, onCopy := recoverInto(t, s, dir)
	v := onCopy.ServerVerdict(t, copyDir)
	if !v.Started || v.CrashRecovery || !v.TablesOK || v.Errors != 0 || v.Checksums != want {
		t.Errorf("server on the copy: started=%v crash_recovery=%v tables_ok=%v errors=%d\n%s\nCHECKSUM TABLE:\n%s\nwant:\n%s",
			v.Started, v.CrashRecovery, v.TablesOK, v.Errors, serverLines(t, v.ErrLog), v.Checksums, want)
	}
	return j.Result
}

// TestRecoverFileAndPageRepairs: recover replays a rename the crash left undone (the server's
// own recovery does it too), binds files whose names several tablespaces had as the server does,
// and restores a torn page recovery needs from the doublewrite buffer; the server agrees with
// the result.
func TestRecoverFileAndPageRepairs(t *testing.T) {
	t.Run("pending rename", func(t *testing.T) {
		s := lab.Get(t, "ddl")
		dir := filepath.Join(t.TempDir(), "data")
		lab.CopyDir(t, s.Crashed, dir)
		mv(t, filepath.Join(dir, "db/new_name.ibd"), filepath.Join(dir, "db/old_name.ibd"))
		r := recoverAndStart(t, s, dir, s.Checksums(t))
		renamed := false
		for _, sp := range r.Spaces {
			if sp.RenamedFrom != "" {
				renamed = true
				if filepath.Base(sp.RenamedFrom) != "old_name.ibd" || filepath.Base(sp.Path) != "new_name.ibd" {
					t.Errorf("renamed %s -> %s", sp.RenamedFrom, sp.Path)
				}
			}
		}
		if !renamed {
			t.Errorf("no rename replayed: %+v", r.Spaces)
		}
	})
	t.Run("names shared by blank files", func(t *testing.T) {
		// ddl_churn without its stale .isl files: the log gives one name to several
		// tablespaces in turn (EXCHANGE PARTITION, RENAME swaps, the #sql-alter name of two
		// copying ALTERs, ADD PARTITION) and the files created after the checkpoint have a
		// blank page 0; each belongs to the tablespace whose record named it last.
		s := lab.Get(t, "ddl_churn")
		dir := filepath.Join(t.TempDir(), "data")
		lab.CopyDir(t, s.Crashed, dir)
		stale, _ := filepath.Glob(filepath.Join(dir, "*", "*.isl"))
		removed := 0
		for _, l := range stale {
			b, _ := os.ReadFile(l)
			if _, err := os.Stat(strings.TrimSpace(string(b))); err != nil {
				os.Remove(l)
				removed++
			}
		}
		if removed == 0 {
			t.Fatal("ddl_churn left no stale .isl")
		}
		recoverAndStart(t, s, dir, s.Checksums(t))
	})
	t.Run("torn page with a doublewrite copy", func(t *testing.T) {
		s := lab.Get(t, "wrapped")
		dir := filepath.Join(t.TempDir(), "data")
		lab.CopyDir(t, s.Crashed, dir)
		flip(t, filepath.Join(dir, "db/t.ibd"), 16384, int64(doublewritePage(t, dir, 5, true)), 300)
		if r := recoverAndStart(t, s, dir, s.Checksums(t)); r.PagesFromDblwr != 1 {
			t.Errorf("%d pages taken from the doublewrite buffer, want 1", r.PagesFromDblwr)
		}
	})
}

// TestRecoverRefusals: recover writes only into a new or empty directory away from the source
// (an empty one needs no --force), and --dry-run writes nothing.
func TestRecoverRefusals(t *testing.T) {
	s := lab.Get(t, "ddl")
	base := t.TempDir()
	full := filepath.Join(base, "full")
	os.MkdirAll(full, 0o755)
	os.WriteFile(filepath.Join(full, "x"), []byte("x"), 0o644)
	before := lab.HashTree(t, s.Crashed)
	for _, c := range []struct {
		into, want string
		force      bool
	}{
		{full, "is not empty", true},
		{full, "is not empty", false},
		{filepath.Join(s.Crashed, "sub"), "overlaps the source", false},
		{s.Crashed, "overlaps the source", true},
	} {
		args := []string{"recover", s.Crashed, "--into", c.into}
		if c.force {
			args = append(args, "--force")
		}
		_, errs, code := run(args...)
		if code != ExitError || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 with %q", args, code, errs, c.want)
		}
	}
	out, errs, code := run("recover", "--dry-run", "--json", s.Crashed)
	var j recoverJSON
	if err := json.Unmarshal([]byte(out), &j); err != nil || code != ExitClean || j.Plan == nil {
		t.Fatalf("dry run: exit %d %v\n%s", code, err, errs)
	}
	m := mapOf(t, s.Crashed)
	if len(j.Plan.FileEvents) != len(m) || j.Plan.EndLSN != s.Verdict.EndLSN || len(j.Plan.PagesBySpace) == 0 {
		t.Errorf("dry-run plan %+v; map has %d spaces, the server's end of log is %d", j.Plan, len(m), s.Verdict.EndLSN)
	}
	if after := lab.HashTree(t, s.Crashed); !mapsEqual(before, after) {
		t.Error("the source changed")
	}
	if ents, _ := os.ReadDir(full); len(ents) != 1 {
		t.Error("a refused run wrote into the target")
	}
}

// startCLI runs innoscope as a child process.
func startCLI(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	c := exec.Command(os.Args[0], append([]string{"--"}, args...)...)
	c.Env = append(os.Environ(), "INNOSCOPE_AS_CLI=1")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRecoverInterrupted kills recover with SIGKILL while it copies and while it applies: the
// copy stays marked incomplete, the server refuses to start on it, a second run refuses it, and --force starts again and gives a
// copy the server starts on without crash recovery, with the same table contents as its own
// recovery.
func TestRecoverInterrupted(t *testing.T) {
	s := lab.Get(t, "undo") // the largest scenario: about 100 MB to copy, 220,000 mini-transactions
	before := lab.HashTree(t, s.Crashed)
	base := t.TempDir()
	start := time.Now()
	runJSON(t, &recoverJSON{}, "recover", "--json", s.Crashed, "--into", filepath.Join(base, "whole"))
	full := time.Since(start)
	var killed []string
	for i, at := range []time.Duration{0, full / 2} {
		copyDir := filepath.Join(base, fmt.Sprint("killed", i))
		marker := filepath.Join(copyDir, replay.IncompleteMarker)
		c := startCLI(t, "recover", s.Crashed, "--into", copyDir)
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			if _, err := os.Stat(marker); err == nil {
				break
			}
			time.Sleep(time.Millisecond)
		}
		time.Sleep(at)
		c.Process.Kill()
		err := c.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != -1 {
			t.Logf("kill %d after %v came too late: the run had ended (%v)", i, at, err)
			continue
		}
		if _, err := os.Stat(marker); err != nil {
			// After the copy is finished (its log valid, the marker removed) recover still
			// diagnoses it: a kill then leaves a finished copy, which must check clean.
			var faults []string
			replay.CheckCopy(copyDir, discovery.Layout{Datadir: copyDir}, s.Verdict.EndLSN, func(code, file, msg string) {
				faults = append(faults, code+" "+file+": "+msg)
			})
			if len(faults) > 0 {
				t.Fatalf("killed %v after the marker appeared: the copy is not marked incomplete, and not finished: %v", at, faults)
			}
			t.Logf("kill %d after %v came after the copy was finished (recover was diagnosing it)", i, at)
			continue
		}
		// The server refuses the half-made copy (its redo log is not valid until the end).
		_, onCopy := splitOptions(s.Options)
		if started, errLog := tryServer(t, copyDir, onCopy...); started {
			t.Errorf("killed %v after the marker appeared: the server started on the half-made copy", at)
		} else {
			t.Logf("server on the copy killed after %v: %s", at, lastLines(errLog, "ERROR", 1))
		}
		_, errs, code := run("recover", s.Crashed, "--into", copyDir)
		if code != ExitError || !strings.Contains(errs, "interrupted recovery") {
			t.Errorf("second run on an interrupted copy: exit %d, %s", code, errs)
		}
		_, errs, code = run("verify", "--keep", copyDir, s.Crashed)
		if code != ExitError && code != ExitFindings {
			t.Errorf("verify --keep into an interrupted copy: exit %d %s", code, errs)
		}
		killed = append(killed, copyDir)
	}
	t.Logf("an uninterrupted run took %v; killed runs: %d", full, len(killed))
	if len(killed) == 0 {
		t.Fatal("no run was killed before it ended")
	}
	copyDir := killed[len(killed)-1]
	runJSON(t, &recoverJSON{}, "recover", "--json", "--force", s.Crashed, "--into", copyDir)
	if _, err := os.Stat(filepath.Join(copyDir, replay.IncompleteMarker)); err == nil {
		t.Error("the restarted copy is still marked incomplete")
	}
	v := s.ServerVerdict(t, copyDir)
	if !v.Started || v.CrashRecovery || !v.TablesOK || v.Errors != 0 || v.Checksums != s.Checksums(t) {
		t.Errorf("server on the restarted copy: started=%v crash_recovery=%v tables_ok=%v errors=%d\n%s\n%s",
			v.Started, v.CrashRecovery, v.TablesOK, v.Errors, v.Checksums, serverLines(t, v.ErrLog))
	}
	if !mapsEqual(before, lab.HashTree(t, s.Crashed)) {
		t.Error("the source changed")
	}
}

// TestRecoverRefusesEncrypted: a table created ENCRYPTED=YES (file_key_management, key version
// 1) that the log changes makes recover refuse before copying anything, naming the file; the
// server, which has the key, recovers it (its verdict in the lab). The page-level readers agree
// with what the server wrote: scheme 1 on the encrypted table's page 0, key version 1 on its
// pages, nothing on the plain table. diagnose reports ENCRYPTED_TABLESPACE (info) for it, which
// the server started without its key management plugin confirms by refusing the directory.
func TestRecoverRefusesEncrypted(t *testing.T) {
	s := lab.Get(t, "encrypted")
	if !s.Verdict.CrashRecovery {
		t.Fatal("the scenario should need crash recovery")
	}
	before := lab.HashTree(t, s.Crashed)
	copyDir := filepath.Join(t.TempDir(), "copy")
	_, errs, code := run("recover", s.Crashed, "--into", copyDir)
	if code != ExitError || !strings.Contains(errs, "secret.ibd") || !strings.Contains(errs, "encrypted") {
		t.Errorf("exit %d: %s", code, errs)
	}
	if _, err := os.Stat(copyDir); err == nil {
		t.Error("a refused recovery created the copy")
	}
	if !mapsEqual(before, lab.HashTree(t, s.Crashed)) {
		t.Error("the source changed")
	}
	for name, want := range map[string]bool{"secret.ibd": true, "plain.ibd": false} {
		f, err := discovery.OpenFile(filepath.Join(s.Crashed, "db", name))
		if err != nil {
			t.Fatal(err)
		}
		scheme, ok := discovery.EncryptionScheme(f.Page0(), f.FSP.Flags)
		versions := map[uint32]int{}
		f.EachPage(1, -1, func(no int64, p []byte) error {
			if !discovery.IsZero(p) {
				versions[discovery.KeyVersion(p, f.FSP.Flags, uint32(no))]++
			}
			return nil
		})
		f.Close()
		if (ok && scheme == discovery.CryptScheme1) != want || (versions[1] > 0) != want || versions[0] == 0 && !want {
			t.Errorf("%s: encryption scheme %d (found %v), key versions of its pages %v", name, scheme, ok, versions)
		}
	}
	// diagnose says so beforehand, for the encrypted table only; and that the server needs its
	// key: started without the key management plugin, it refuses the directory.
	fs, _ := findingCodes(t, "diagnose", "--json", s.Crashed)
	if f, ok := fs["ENCRYPTED_TABLESPACE"]; !ok || !strings.HasSuffix(f.File, "secret.ibd") || f.Severity != finding.Info {
		t.Errorf("diagnose: ENCRYPTED_TABLESPACE %v %+v", ok, f)
	}
	var noPlugin []string
	for _, o := range s.Options {
		if !strings.Contains(o, "key") {
			noPlugin = append(noPlugin, o)
		}
	}
	cp := filepath.Join(t.TempDir(), "nokey")
	lab.CopyDir(t, s.Crashed, cp)
	if up, log := tryServer(t, cp, noPlugin...); up || !strings.Contains(log, "Encryption key is not found for ./db/secret.ibd") {
		t.Errorf("the server without its key plugin: started %v, log:\n%s", up, log)
	}
}
