package cmd

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"innoscope/finding"
	"innoscope/internal/lab"
	"innoscope/logformat"
	"innoscope/replay"
)

// damaged is a real crashed directory after one damaging file operation on a copy, and what the
// real server said when started on another copy.
type damaged struct {
	s      *lab.Scenario
	base   string // temporary directory holding dir
	dir    string // the damaged copy innoscope reads
	server lab.Verdict
	errLog string // the server's error log
}

// damage copies scenario's crashed directory, applies mutate, hashes the copy, and starts the
// real server on a second copy of the result.
func damage(t *testing.T, scenario string, mutate func(t *testing.T, dir string)) *damaged {
	t.Helper()
	return damageOn(t, lab.MariaDB1011, scenario, mutate)
}

// damageOn is damage with a crash of the lab server srv, which judges it.
func damageOn(t *testing.T, srv *lab.Server, scenario string, mutate func(t *testing.T, dir string)) *damaged {
	t.Helper()
	s := srv.Get(t, scenario)
	base := t.TempDir()
	d := &damaged{s: s, base: base, dir: filepath.Join(base, "data")}
	lab.CopyDir(t, s.Crashed, d.dir)
	mutate(t, d.dir)
	server := filepath.Join(base, "server")
	lab.CopyDir(t, d.dir, server)
	d.server = s.ServerVerdict(t, server)
	b, err := os.ReadFile(d.server.ErrLog)
	if err != nil {
		t.Fatal(err)
	}
	d.errLog = string(b)
	t.Logf("server: started=%v tables_ok=%v\n%s", d.server.Started, d.server.TablesOK, serverLines(t, d.server.ErrLog))
	return d
}

// serverLost: the server refused to start or some table failed CHECK TABLE.
func (d *damaged) serverLost() bool { return !d.server.Started || !d.server.TablesOK }

// diagnose runs `diagnose --json` on the damaged copy (checking that it is not written) and
// returns the report and the exit status.
func (d *damaged) diagnose(t *testing.T, args ...string) (diagnoseJSON, int) {
	t.Helper()
	before := lab.HashTree(t, d.dir)
	out, errs, code := run(append([]string{"diagnose", "--json", d.dir}, args...)...)
	var j diagnoseJSON
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("diagnose: exit %d: %v\n%s", code, err, errs)
	}
	var doc any
	json.Unmarshal([]byte(out), &doc)
	if err := compileSchema(t).Validate(doc); err != nil {
		t.Errorf("JSON does not match the schema: %v", err)
	}
	for _, f := range j.Findings {
		if f.Severity >= finding.Warning {
			t.Logf("innoscope: %s %s space %v %s: %s", f.Severity, f.Code, deref(f.SpaceID), f.File, f.Message)
		}
	}
	if after := lab.HashTree(t, d.dir); !mapsEqual(before, after) {
		t.Error("diagnose changed the directory")
	}
	if (j.Summary["error"] > 0) != (code == ExitFindings) {
		t.Errorf("diagnose: exit %d with %d errors", code, j.Summary["error"])
	}
	return j, code
}

// recover runs `recover` into a new directory and returns its exit status and stderr.
func (d *damaged) recover(t *testing.T) (int, string) {
	t.Helper()
	_, errs, code := run("recover", d.dir, "--into", filepath.Join(d.base, "copy"))
	return code, errs
}

// findings returns the findings with code.
func findings(j diagnoseJSON, code string) []finding.Finding {
	var out []finding.Finding
	for _, f := range j.Findings {
		if f.Code == code {
			out = append(out, f)
		}
	}
	return out
}

// patchCheckpointEnd sets the end LSN of the checkpoint block at off of the 10.8+ log in dir
// and recomputes its CRC-32C as the server does (my_crc32c of bytes 0..59).
func patchCheckpointEnd(t *testing.T, dir string, off int64, end uint64) {
	p := filepath.Join(dir, "ib_logfile0")
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 64)
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	binary.BigEndian.PutUint64(b[8:], end)
	binary.BigEndian.PutUint32(b[60:], logformat.CRC32C(b[:60]))
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

var missingFCP = regexp.MustCompile(`Missing FILE_CHECKPOINT\(\d+\) at \d+`)

// TestCheckpointEndLSNAgainstServer: a checkpoint block whose end LSN (valid CRC) is not where
// its FILE_CHECKPOINT record is. MariaDB 10.11 parses from the end LSN first and refuses to start
// ("Missing FILE_CHECKPOINT(N) at M"); innoscope reported 0 errors and `verify` said OK. Now
// diagnose and log stats report MISSING_FILE_CHECKPOINT quoting the server's own line, recover
// refuses (exit 2) and verify fails. The end LSN is moved to places read off the log itself:
// the next mini-transaction, the middle of the FILE_CHECKPOINT one, and the end of the log.
func TestCheckpointEndLSNAgainstServer(t *testing.T) {
	s := lab.Get(t, "dml")
	var h headerJSON
	runJSON(t, &h, "log", "header", "--json", s.Crashed)
	var cp checkpointJSON
	for _, c := range h.Checkpoints {
		if c.Selected {
			cp = c
		}
	}
	var st statsJSON
	runJSON(t, &st, "log", "stats", "--json", s.Crashed)
	// The FILE_CHECKPOINT record lies at the end LSN: at the checkpoint LSN itself when the
	// checkpoint was forced on an idle server, later when the server wrote it in the background
	// while the workload ran (which depends on the crash).
	if st.FileCheckpointEndLSN == nil {
		t.Fatalf("checkpoint %+v: no FILE_CHECKPOINT record found at its end LSN", cp)
	}
	for name, end := range map[string]uint64{
		"next mini-transaction":  *st.FileCheckpointEndLSN,
		"inside FILE_CHECKPOINT": cp.EndLSN + 1,
		"end of the log":         st.EndLSN,
	} {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			d := damage(t, "dml", func(t *testing.T, dir string) { patchCheckpointEnd(t, dir, cp.Offset, end) })
			want := missingFCP.FindString(d.errLog)
			if d.server.Started || want == "" {
				t.Fatalf("the server started or did not say Missing FILE_CHECKPOINT: %+v", d.server)
			}
			j, code := d.diagnose(t)
			fs := findings(j, "MISSING_FILE_CHECKPOINT")
			if code != ExitFindings || len(fs) != 1 || fs[0].Severity != finding.Error || !strings.Contains(fs[0].Message, want) {
				t.Errorf("diagnose: exit %d, MISSING_FILE_CHECKPOINT %+v; the server says %q", code, fs, want)
			}
			out, _, code := run("log", "stats", "--json", d.dir)
			if code != ExitFindings || !strings.Contains(out, want) {
				t.Errorf("log stats: exit %d, no %q", code, want)
			}
			if code, errs := d.recover(t); code != ExitError || !strings.Contains(errs, want) {
				t.Errorf("recover: exit %d: %s", code, errs)
			}
			vout, verrs, vcode := run("verify", "--json", "--tmpdir", d.base, d.dir)
			var vj replay.Verification
			if err := json.Unmarshal([]byte(vout), &vj); err != nil || vj.OK || vcode != ExitFindings {
				t.Errorf("verify: exit %d ok=%v %v\n%s", vcode, vj.OK, err, verrs)
			}
		})
	}
}

// zeroBytes overwrites n bytes at off of the file p with zeros (n < 0: the whole file).
func zeroBytes(t *testing.T, p string, off, n int64) {
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n < 0 {
		fi, _ := f.Stat()
		n = fi.Size()
	}
	if _, err := f.WriteAt(make([]byte, n), off); err != nil {
		t.Fatal(err)
	}
}

// TestZeroPage0AgainstServer: a datafile whose first page is all zero (torn, the log does not
// rebuild it) is one fault. Before, `recover` replayed the log into a table with a zero page 0
// and said "recovered" (the server on the copy had lost the table) while the server refused the
// source; diagnose gave one error per page checked against the flags page 0 no longer has
// (2,062 CORRUPT_PAGE_NEEDED in one case), none on page 0 of ibdata1, and an all-zero ibdata1
// was "0 errors". Now each such file gets one SPACE_ID_MISMATCH quoting what the server says,
// with the dependent pages counted in its message and no finding of their own; innoscope has an
// error exactly when the server refuses or a table fails CHECK TABLE; recover refuses (exit 2,
// naming the file and page 0) exactly when the server refuses to start.
//
// Unless the doublewrite buffer holds page 0: crash recovery then writes the copy back ("Recovered
// page [page id: space=0, page number=0] to './ibdata1' from the doublewrite buffer." for the
// system tablespace, silently for a table) and starts. Whether it holds one depends on the crash
// (page 0 written after the checkpoint): innoscope said "refuse to start: SPACE_ID_MISMATCH"
// whatever the crash, so the system tablespace case failed on a fresh machine. Each case now
// asserts what the server did with its crash, from its error log; the dblwr_page0 scenario (the
// server killed as it was about to write page 0 of ibdata1) always has the copy. Where the
// server restored page 0, diagnose has a CORRUPT_PAGE_NEEDED warning saying so and no error,
// verify passes, and recover and recover --salvage exit 0 with a copy the server starts on
// without crash recovery, every table passing CHECK TABLE with the CHECKSUM TABLE of the
// server's own recovery of the same damaged directory.
func TestZeroPage0AgainstServer(t *testing.T) {
	// A table's zero page 0 is refused when the log must be applied to the file, and makes the
	// table unusable when the server starts without touching it: which one depends on the crash
	// (stop 38, loaded run: dblwr_page0's db/t1.ibd started with "Expected tablespace id").
	const tableLost = `Cannot apply log to \[page id: space=\d+, page number=\d+\] of corrupted file '[^']+'|Expected tablespace id \d+ but found 0 in the file \S+`
	const sysLost = `The data file '[^']+' has the wrong space ID\. It should be 0, but 0 was found`
	restored := regexp.MustCompile(`Recovered page \[page id: space=0, page number=0\] to '[^']+' from the doublewrite buffer\.`)
	cases := []struct {
		name, scenario, file string
		whole                bool   // zero the whole file, not only its first page
		server               string // what the server says when it cannot use the file (a regular expression)
		copyWanted           bool   // the scenario guarantees a doublewrite copy of page 0
	}{
		{"table the log changes", "wrapped", "db/t.ibd", false, tableLost, false},
		{"table whose page 0 the log changes", "dml", "db/t1.ibd", false, tableLost, false},
		{"table the log does not change", "formats_default", "db/dyn.ibd", false, tableLost, false},
		{"system tablespace page 0", "dml", "ibdata1", false, sysLost, false},
		{"system tablespace page 0 in the doublewrite buffer", "dblwr_page0", "ibdata1", false, sysLost, true},
		{"table page 0 the doublewrite buffer may hold", "dblwr_page0", "db/t1.ibd", false, tableLost, false},
		{"all-zero system tablespace", "dml", "ibdata1", true, sysLost, false},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			d := damage(t, c.scenario, func(t *testing.T, dir string) {
				n := int64(16384)
				if c.whole {
					n = -1
				}
				zeroBytes(t, filepath.Join(dir, c.file), 0, n)
			})
			said := regexp.MustCompile(c.server).FindString(d.errLog)
			if said == "" && !d.server.Started {
				t.Fatalf("the server refused without saying %s", c.server)
			}
			if c.copyWanted && said != "" {
				t.Fatalf("the server did not restore page 0 from the doublewrite buffer: %q", said)
			}
			j, _ := d.diagnose(t)
			path := filepath.Join(d.dir, c.file)
			var root, fromCopy []finding.Finding
			for _, f := range j.Findings {
				if f.File != path {
					continue
				}
				switch {
				case f.Code == "SPACE_ID_MISMATCH":
					root = append(root, f)
				case f.Code == "CORRUPT_PAGE_NEEDED" && f.Severity == finding.Warning && strings.Contains(f.Message, "doublewrite buffer"):
					fromCopy = append(fromCopy, f)
				case f.Code == "CORRUPT_PAGE" || f.Code == "CORRUPT_PAGE_NEEDED":
					t.Errorf("a page finding derived from page 0: %s %s", f.Code, f.Message)
				}
			}
			if (j.Summary["error"] > 0) != d.serverLost() {
				t.Errorf("innoscope: %d errors; server: started=%v, tables ok=%v", j.Summary["error"], d.server.Started, d.server.TablesOK)
			}
			if said == "" { // the server restored page 0 from the doublewrite buffer
				t.Logf("the server restored page 0 from the doublewrite buffer (to recover: %d pages; innoscope: %d)", d.server.ToRecoverPages, j.ToRecoverPages)
				if c.file == "ibdata1" {
					said = restored.FindString(d.errLog)
				}
				if len(root) != 0 || len(fromCopy) != 1 || !strings.Contains(fromCopy[0].Message, said) {
					t.Errorf("want one CORRUPT_PAGE_NEEDED warning on the doublewrite copy (quoting %q) and no SPACE_ID_MISMATCH, got %+v, %+v", said, fromCopy, root)
				}
				if d.server.ToRecoverPages >= 0 && j.ToRecoverPages != d.server.ToRecoverPages {
					t.Errorf("verdict: apply %d pages; the server: To recover: %d pages", j.ToRecoverPages, d.server.ToRecoverPages)
				}
				zeroPage0Restored(t, d)
				return
			}
			if len(root) != 1 || root[0].Severity != finding.Error || !strings.Contains(root[0].Message, said) || len(fromCopy) != 0 {
				t.Errorf("want one SPACE_ID_MISMATCH error quoting %q, got %+v (doublewrite: %+v)", said, root, fromCopy)
			}
			if c.whole {
				// SYS_TABLES is unreadable: one finding says so, not an ORPHAN_FILE per file.
				if o := findings(j, "ORPHAN_FILE"); len(o) != 0 || len(findings(j, "ORPHANS_NOT_CHECKED")) != 1 {
					t.Errorf("ORPHAN_FILE %d, ORPHANS_NOT_CHECKED %v", len(o), findings(j, "ORPHANS_NOT_CHECKED"))
				}
			}
			code, errs := d.recover(t)
			if refused := code == ExitError; refused != !d.server.Started {
				t.Errorf("recover: exit %d (%s); the server started=%v", code, errs, d.server.Started)
			} else if refused && (!strings.Contains(errs, filepath.Base(c.file)) || !strings.Contains(errs, "page 0")) {
				t.Errorf("recover's refusal does not name %s and page 0: %s", c.file, errs)
			} else if _, err := os.Stat(filepath.Join(d.base, "copy")); refused && err == nil {
				t.Errorf("recover refused only after it had made the copy: %s", errs)
			}
		})
	}
}

// zeroPage0Restored checks verify, recover and recover --salvage on a directory whose zeroed
// page 0 the server restored from the doublewrite buffer: verify passes, both recoveries exit 0
// (the salvage with nothing to do), and the server starts on each copy without crash recovery,
// with every table passing CHECK TABLE and the CHECKSUM TABLE of its own recovery of d.
func zeroPage0Restored(t *testing.T, d *damaged) {
	t.Helper()
	vout, verrs, vcode := run("verify", "--json", "--tmpdir", d.base, d.dir)
	var vj replay.Verification
	if err := json.Unmarshal([]byte(vout), &vj); err != nil || !vj.OK || vcode != ExitClean {
		t.Errorf("verify: exit %d ok=%v %v\n%s", vcode, vj.OK, err, verrs)
	}
	for _, salvage := range []bool{false, true} {
		copyDir := filepath.Join(d.base, fmt.Sprintf("copy-salvage-%v", salvage))
		args := []string{"recover", "--json", d.dir, "--into", copyDir}
		if salvage {
			args = append(args, "--salvage")
		}
		out, errs, code := run(args...)
		var j recoverJSON
		if err := json.Unmarshal([]byte(out), &j); err != nil || code != ExitClean || len(j.Salvage) != 0 {
			t.Errorf("%v: exit %d, %d salvage actions, %v: %s", args, code, len(j.Salvage), err, errs)
			continue
		}
		if j.Result == nil || j.Result.PagesFromDblwr < 1 {
			t.Errorf("%v: no page taken from the doublewrite buffer: %+v", args, j.Result)
		}
		v := d.s.ServerVerdict(t, copyDir)
		if !v.Started || v.CrashRecovery || !v.TablesOK || v.Errors != 0 || v.Checksums != d.server.Checksums || v.Checksums == "" {
			t.Errorf("server on the copy of %v: started=%v crash_recovery=%v tables_ok=%v errors=%d\n%s\nCHECKSUM TABLE:\n%s\nthe server's own recovery:\n%s",
				args, v.Started, v.CrashRecovery, v.TablesOK, v.Errors, serverLines(t, v.ErrLog), v.Checksums, d.server.Checksums)
		}
	}
}

// TestUnusableLogAgainstServer: a redo log innoscope cannot use. An ib_logfile0 whose 512-byte
// header block is all zero (beside valid checkpoint blocks: what an interrupted --initialize
// leaves) made every command exit 2 with "unknown format identifier 0x00000000", and diagnose
// gave no report at all, as with no redo log at all. Now the log commands say it is format 0
// and that the servers refuse it; diagnose reports the files, their pages and the dictionary
// and adds one LOG_UNREADABLE error; the server refuses each of these directories.
func TestUnusableLogAgainstServer(t *testing.T) {
	cases := []struct {
		name, want string
		mutate     func(t *testing.T, dir string)
	}{
		{"zero header block", "format identifier 0", func(t *testing.T, dir string) {
			zeroBytes(t, filepath.Join(dir, "ib_logfile0"), 0, logformat.HeaderSize)
		}},
		{"no redo log", "no redo log", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "ib_logfile0")); err != nil {
				t.Fatal(err)
			}
		}},
		{"copied datafiles only", "no redo log", func(t *testing.T, dir string) {
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				if e.Name() != "db" {
					os.RemoveAll(filepath.Join(dir, e.Name()))
				}
			}
			for _, f := range []string{"db/t1.frm", "db/t2.frm", "db/db.opt"} {
				os.Remove(filepath.Join(dir, f))
			}
		}},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			d := damage(t, "dml", c.mutate)
			if d.server.Started {
				t.Fatalf("the server started: %+v", d.server)
			}
			j, code := d.diagnose(t)
			fs := findings(j, "LOG_UNREADABLE")
			if code != ExitFindings || len(fs) != 1 || fs[0].Severity != finding.Error || !strings.Contains(fs[0].Message, c.want) {
				t.Fatalf("diagnose: exit %d, LOG_UNREADABLE %+v", code, fs)
			}
			// The rest of the report is there: the files were read (their page 0 and pages).
			if c.name != "copied datafiles only" && len(j.Dictionary) == 0 {
				t.Errorf("no dictionary in the report")
			}
			if o := findings(j, "ORPHAN_FILE"); c.name == "copied datafiles only" && (len(o) != 0 || len(findings(j, "ORPHANS_NOT_CHECKED")) != 1) {
				t.Errorf("without a dictionary: ORPHAN_FILE %d, ORPHANS_NOT_CHECKED %v", len(o), findings(j, "ORPHANS_NOT_CHECKED"))
			}
			for _, sub := range [][]string{{"log", "header"}, {"log", "stats"}, {"log", "records"}, {"map"}} {
				_, errs, code := run(append(sub, d.dir)...)
				if code != ExitError || !strings.Contains(errs, c.want) || strings.Contains(errs, "unknown format identifier") {
					t.Errorf("%v: exit %d: %s", sub, code, errs)
				}
			}
			if code, errs := d.recover(t); code != ExitError {
				t.Errorf("recover: exit %d: %s", code, errs)
			}
		})
	}
}

// TestFileAheadOfMySQLLog: FILE_AHEAD_OF_LOG named ib_logfile0 whatever the log was. Beside the
// real MySQL 8.0.33 #innodb_redo/#ib_redo10 (end LSN read by `log stats`), a real datafile whose
// pages carry larger LSNs (the undo scenario's db/big.ibd) is newer than that log, and the
// finding names the #innodb_redo directory.
func TestFileAheadOfMySQLLog(t *testing.T) {
	redo := peerFixture(t, "mysql-8.0.33-docker-sample/#ib_redo10")
	s := lab.Get(t, "undo")
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "#innodb_redo"), 0o755)
	os.MkdirAll(filepath.Join(dir, "db"), 0o755)
	cp(t, redo, filepath.Join(dir, "#innodb_redo", "#ib_redo10"))
	cp(t, filepath.Join(s.Crashed, "db", "big.ibd"), filepath.Join(dir, "db", "big.ibd"))
	var st statsJSON
	runJSON(t, &st, "log", "stats", "--json", dir)
	out, errs, _ := run("diagnose", "--json", dir)
	var j diagnoseJSON
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	fs := findings(j, "FILE_AHEAD_OF_LOG")
	if len(fs) != 1 || !strings.Contains(fs[0].Message, filepath.Join(dir, "#innodb_redo")) || strings.Contains(fs[0].Message, "ib_logfile0") {
		t.Fatalf("log ends at %d: FILE_AHEAD_OF_LOG %+v", st.EndLSN, fs)
	}
	t.Log(fs[0].Message)
}

// TestContradictingOptionsAgainstServer: options that contradict the files were accepted
// silently; the server refuses to start with each. Now innoscope refuses too (exit 2, one line
// naming the option, what the files say, and the server's own words, read off its error log),
// and accepts what the server accepts.
func TestContradictingOptionsAgainstServer(t *testing.T) {
	s := lab.Get(t, "dml")
	refusal := regexp.MustCompile(`\[ERROR\] InnoDB: ((Data file|The data file|The Auto-extending data file|Unable to parse) .*)`)
	for _, opt := range []string{"--innodb-page-size=65536", "--innodb-page-size=4k", "--innodb-data-file-path=garbage",
		"--innodb-data-file-path=ibdata1:10M", "--innodb-data-file-path=ibdata1:20M:autoextend",
		"--innodb-data-file-path=ibdata1:12M:autoextend:max:x", "--innodb-data-file-path=ibdata1:5M:autoextend",
		"--innodb-data-file-path=ibdata1:12288K:autoextend:max:100M"} {
		t.Run(opt, func(t *testing.T) {
			server := filepath.Join(t.TempDir(), "server")
			lab.CopyDir(t, s.Crashed, server)
			v := (&lab.Scenario{Options: append(append([]string{}, s.Options...), opt)}).ServerVerdict(t, server)
			b, _ := os.ReadFile(v.ErrLog)
			_, errs, code := run("diagnose", s.Crashed, opt)
			if v.Started {
				if code == ExitError {
					t.Errorf("the server starts with %s; innoscope refuses: %s", opt, errs)
				}
				return
			}
			m := refusal.FindSubmatch(b)
			if m == nil {
				t.Fatalf("the server refused %s without a line about it:\n%s", opt, serverLines(t, v.ErrLog))
			}
			name, _, _ := strings.Cut(strings.TrimPrefix(opt, "--"), "=")
			if code != ExitError || !strings.Contains(errs, name) || !strings.Contains(errs, string(m[1])) {
				t.Errorf("innoscope: exit %d: %s\nthe server: %s", code, errs, m[1])
			}
		})
	}
}
