package cmd

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"innoscope/internal/lab"
	"innoscope/logformat"
	"innoscope/replay"
)

// firstLogWrite is the last data byte of the first WRITE record after the checkpoint's
// mini-transaction: flipped, it cuts the log before everything the workload did after the
// checkpoint.
func firstLogWrite(t *testing.T, l *logformat.Log, cp uint64) uint64 {
	sc := l.Scan(cp, logformat.ScanOptions{})
	for sc.Next() {
		m := sc.MTR()
		for _, r := range m.Records {
			if r.Type == logformat.Write && len(r.Data) >= 2 && m.LSN > cp {
				return m.LSN + uint64(r.Pos+r.Len-1)
			}
		}
	}
	t.Fatal("no WRITE record after the checkpoint")
	return 0
}

// failingChecks are the tables whose CHECK TABLE does not say OK, sorted (db.t).
func failingChecks(checks string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(checks), "\n") {
		if tbl, res, ok := strings.Cut(l, "\t"); ok && res != "OK" {
			out = append(out, tbl)
		}
	}
	sort.Strings(out)
	return out
}

// TestSalvageLostDDL (issue 29, item 7): the log of a real crash cut right after its checkpoint
// (a byte flipped before the end the checkpoint promises), so that `recover --salvage` recovers
// up to the checkpoint and loses the DDL after it: an instant ADD COLUMN (instant: the .frm has
// two columns more than InnoDB's dictionary), a CREATE TABLE and a RENAME TABLE (ddl: .frm files
// InnoDB does not have). The server on the salvaged copy starts and CHECK TABLE fails on those
// tables; the copy's diagnosis names every table that fails (FRM_COLUMNS_MISMATCH,
// FRM_NOT_IN_ENGINE) and no other but one the server's error log names (db.doomed, dropped after
// the checkpoint: its .frm is gone, its dictionary entry back, MISSING_FILE), where before it said "will start: nothing to recover" for
// instant and named only db.doomed (MISSING_FILE) of ddl's three.
func TestSalvageLostDDL(t *testing.T) {
	for _, c := range []struct {
		scenario string
		codes    []string
	}{
		{"instant", []string{"FRM_COLUMNS_MISMATCH"}},
		{"ddl", []string{"FRM_NOT_IN_ENGINE", "MISSING_FILE"}},
	} {
		t.Run(c.scenario, func(t *testing.T) {
			s := lab.Get(t, c.scenario)
			dir, lsn := flipInLog(t, s, func(l *logformat.Log, cp uint64) uint64 { return firstLogWrite(t, l, cp) })
			t.Logf("byte flipped at LSN %d", lsn)
			before := lab.HashTree(t, dir)
			copyDir := filepath.Join(t.TempDir(), "copy")
			var j recoverJSON
			out, errs, code := run("recover", "--json", "--salvage", dir, "--into", copyDir)
			if err := jsonUnmarshalString(out, &j); err != nil || code != ExitFindings {
				t.Fatalf("recover --salvage: exit %d: %v\n%s", code, err, errs)
			}
			truncated := false
			for _, a := range j.Salvage {
				truncated = truncated || a.Action == replay.SalvageLogTruncated
			}
			if !truncated || j.OnCopy == nil {
				t.Fatalf("no log_truncated action or no copy diagnosis: %+v", j.Salvage)
			}
			var named []string
			codes := map[string]bool{}
			for _, f := range j.OnCopy.FailingTables {
				named = append(named, f.Table)
				codes[f.Code] = true
			}
			sort.Strings(named)
			v := s.ServerVerdict(t, copyDir)
			if !v.Started || v.CrashRecovery {
				t.Fatalf("the server on the salvaged copy: started %v, crash recovery %v", v.Started, v.CrashRecovery)
			}
			// Every table CHECK TABLE fails on is named; a named table CHECK TABLE does not list
			// (no .frm: invisible to SQL) is one the server's error log names, or one its InnoDB
			// dictionary holds while the copy has no file of it (the log cut before a DROP: the
			// server names it only when something opens it, which depends on timing).
			failing := failingChecks(v.Checks)
			log, _ := os.ReadFile(v.ErrLog)
			dict := strings.Fields(v.SysTables)
			isNamed := map[string]bool{}
			for _, n := range named {
				isNamed[n] = true
				slash := strings.Replace(n, ".", "/", 1)
				_, statErr := os.Stat(filepath.Join(copyDir, slash+".ibd"))
				if !slices.Contains(failing, n) && !strings.Contains(string(log), slash) && !(slices.Contains(dict, slash) && os.IsNotExist(statErr)) {
					t.Errorf("the copy's diagnosis names %s, which CHECK TABLE passes, the server's log does not name and its dictionary does not hold without a file", n)
				}
			}
			for _, f := range failing {
				if !isNamed[f] {
					t.Errorf("CHECK TABLE fails on %s; the copy's diagnosis names %v\n%s", f, named, v.Checks)
				}
			}
			if len(failing) == 0 {
				t.Error("no table fails CHECK TABLE on the salvaged copy: the test loses nothing")
			}
			for _, code := range c.codes {
				if !codes[code] {
					t.Errorf("no failing table for %s: %+v", code, j.OnCopy.FailingTables)
				}
			}
			if !strings.HasPrefix(j.OnCopy.Verdict.Sentence, "mariadbd will start, but tables will fail") {
				t.Errorf("the copy's verdict: %q", j.OnCopy.Verdict.Sentence)
			}
			t.Logf("CHECK TABLE fails on %v; the server's dictionary holds %v; the copy's diagnosis: %q, %v", failing, dict, j.OnCopy.Verdict.Sentence, j.OnCopy.FailingTables)
			if !mapsEqual(before, lab.HashTree(t, dir)) {
				t.Error("the source changed")
			}
		})
	}
}

// TestVerdictStartsOnDictionaryMismatch: two table files of a cleanly shut down directory
// swapped. The server starts (nothing to recover) and both tables fail; the SPACE_ID_MISMATCH
// findings say so, and the verdict, which said "mariadbd will refuse to start: SPACE_ID_MISMATCH"
// before issue 29, says it starts.
func TestVerdictStartsOnDictionaryMismatch(t *testing.T) {
	d := damage(t, "formats_default", func(t *testing.T, dir string) { swapFiles(t, dir, "db/dyn.ibd", "db/red.ibd") })
	if !d.server.Started || d.server.TablesOK {
		t.Fatalf("the server on the swapped files: started %v, tables ok %v", d.server.Started, d.server.TablesOK)
	}
	j, code := d.diagnose(t)
	if code != ExitFindings || len(findings(j, "SPACE_ID_MISMATCH")) != 2 {
		t.Fatalf("diagnose: exit %d, %d SPACE_ID_MISMATCH", code, len(findings(j, "SPACE_ID_MISMATCH")))
	}
	out, _, _ := run("diagnose", d.dir)
	if first := strings.SplitN(out, "\n", 2)[0]; !strings.HasPrefix(first, "mariadbd will start, but tables will fail: SPACE_ID_MISMATCH") {
		t.Errorf("verdict %q; the server started", first)
	}
}
