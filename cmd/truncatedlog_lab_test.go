package cmd

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"innoscope/finding"
	"innoscope/internal/lab"
	"innoscope/logformat"
)

// truncCrashScript makes, in W, a crash whose log runs several MiB past its checkpoint (a large
// log, no adaptive flushing): t1's pages are flushed (FLUSH TABLES FOR EXPORT) after 6 MiB of
// inserts, 6 MiB more follow, then a committed UPDATE of t2, whose LSN before it goes to
// W/lsn_before_update. W/crashed is the data directory as SIGKILL left it.
const truncCrashScript = `set -euo pipefail
w=$1 lab=$2; shift 2
source "$lab" functions
opts=("$@")
trap '[ -f "$w/data/lab.pid" ] && kill -9 "$(cat "$w/data/lab.pid")" 2>/dev/null; true' ERR
fresh_server "$w" "${opts[@]}"
s=$w/lab.sock
sql "$s" "CREATE DATABASE db;
CREATE TABLE db.t1 (id INT PRIMARY KEY, v VARCHAR(200)) ENGINE=InnoDB;
CREATE TABLE db.t2 (id INT PRIMARY KEY, v VARCHAR(200)) ENGINE=InnoDB;
INSERT INTO db.t2 VALUES (1, 'before');
SET GLOBAL innodb_log_checkpoint_now=1;"
sql "$s" "INSERT INTO db.t1 SELECT seq, REPEAT('a', 150) FROM seq_1_to_30000;
FLUSH TABLES db.t1 FOR EXPORT; UNLOCK TABLES;"
# One session, no idle second between the inserts and the UPDATE for the page cleaner to
# flush everything and checkpoint in.
sql "$s" "INSERT INTO db.t1 SELECT seq, REPEAT('b', 150) FROM seq_30001_to_60000;
SHOW GLOBAL STATUS LIKE 'Innodb_lsn_current';
UPDATE db.t2 SET v = 'committed after' WHERE id = 1" -N | cut -f2 >"$w/lsn_before_update"
crash "$w/data"
mv "$w/data" "$w/crashed"
`

// truncVerdictScript is the lab's verdict (scripts/mariadb-lab.sh verdict) for a server that may
// refuse to start and then hang: MariaDB 10.11 aborting its crash recovery over a page from the
// future stays up after "Starting shutdown..." (seen in TestTruncatedLog), which the lab's start
// waits a minute for and leaves running. Here the server is killed by its pid as soon as its
// error log says the initialisation was aborted.
const truncVerdictScript = `set -euo pipefail
d=$1 out=$2 lab=$3; shift 3
source "$lab" functions
s=$(mktemp -u /tmp/innoscope-trunc-XXXXXX.sock)
mariadbd --no-defaults --datadir="$d" --user=root --socket="$s" --skip-networking \
  --pid-file="$d/lab.pid" --log-error="$out.err" --innodb-fast-shutdown=1 "$@" >/dev/null 2>&1 &
pid=$!
for i in $(seq 1 1200); do
  if mariadb --no-defaults -S "$s" -uroot -e "select 1" >/dev/null 2>&1; then
    checksums "$s" >"$out.checksums"
    { echo started=1; verdict "$out.err"; echo "errors=$(grep -c '\[ERROR\]' "$out.err" || true)"; } >"$out.txt"
    stop_clean "$d" "$s"
    exit 0
  fi
  if ! kill -0 "$pid" 2>/dev/null || grep -q 'Plugin initialization aborted\|\[ERROR\] Aborting' "$out.err" 2>/dev/null; then
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    { echo started=0; verdict "$out.err"; echo "errors=$(grep -c '\[ERROR\]' "$out.err" || true)"; } >"$out.txt"
    exit 0
  fi
  sleep 0.1
done
kill -9 "$pid"
exit 1
`

// truncVerdict starts the server (with the crash's options) on dir, a disposable copy.
func truncVerdict(t *testing.T, s *lab.Scenario, dir string) lab.Verdict {
	t.Helper()
	out := filepath.Join(t.TempDir(), "verdict")
	args := append([]string{"-c", truncVerdictScript, "verdict", dir, out, filepath.Join(lab.Root(), "scripts", "mariadb-lab.sh")}, s.Options...)
	if b, err := exec.Command("bash", args...).CombinedOutput(); err != nil {
		t.Fatalf("the server on %s: %v\n%s", dir, err, b)
	}
	v, err := lab.ReadVerdict(out + ".txt")
	if err != nil {
		t.Fatal(err)
	}
	v.ErrLog = out + ".err"
	if b, err := os.ReadFile(out + ".checksums"); err == nil {
		v.Checksums = string(b)
	}
	return v
}

// truncCrash makes the crash of truncCrashScript with the server options opts.
func truncCrash(t *testing.T, opts []string) (*lab.Scenario, uint64) {
	t.Helper()
	lab.Require(t)
	w := filepath.Join(t.TempDir(), "w")
	if err := os.Mkdir(w, 0o755); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-c", truncCrashScript, "trunc", w, filepath.Join(lab.Root(), "scripts", "mariadb-lab.sh")}, opts...)
	if b, err := exec.Command("bash", args...).CombinedOutput(); err != nil {
		t.Fatalf("making the crash: %v\n%s", err, b)
	}
	b, err := os.ReadFile(filepath.Join(w, "lsn_before_update"))
	if err != nil {
		t.Fatal(err)
	}
	before, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return &lab.Scenario{Name: "truncated", Dir: w, Crashed: filepath.Join(w, "crashed"), Options: opts}, before
}

// pageLSNs is the largest page LSN (FIL_PAGE_LSN) of every 16 KiB-page datafile under dir,
// read from the bytes.
func pageLSNs(t *testing.T, dir string) map[string]uint64 {
	t.Helper()
	out := map[string]uint64{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if n := d.Name(); !strings.HasSuffix(n, ".ibd") && n != "ibdata1" && !strings.HasPrefix(n, "undo") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for off := 0; off+16384 <= len(b); off += 16384 {
			out[p] = max(out[p], binary.BigEndian.Uint64(b[off+16:]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTruncatedLog: ib_logfile0 of real crashes cut short (truncate -s), as a copy that stopped
// early or a smaller file put in its place leave it. MariaDB 10.8+ records no log size: the server
// reads the shorter file as a smaller ring, stops where the log's bytes run past the file's end
// into the ring's oldest data, and starts without a word about it, losing the committed work
// after that point (its error log is kept in the test log); diagnose said 0 warnings and verify
// OK. Each cut is chosen from the crash: after the FILE_CHECKPOINT the checkpoint block names
// (the server must find it) and before the committed UPDATE; in one case after every page the
// datafiles hold (nothing on disk is newer than the cut log: LOG_TRUNCATED is a warning), in the
// other before some (a small buffer pool flushed pages past the cut: LOG_TRUNCATED is an error,
// and the server's verdict is what it did with those pages). LOG_TRUNCATED names ib_logfile0,
// the LSN where the server's recovery ended, the file offset and the file's size, in diagnose
// and log stats; the uncut crash has no such finding.
func TestTruncatedLog(t *testing.T) {
	base := []string{"--innodb-log-file-size=256M", "--innodb-adaptive-flushing=OFF", "--innodb-max-dirty-pages-pct=99", "--innodb-io-capacity=100"}
	for _, c := range []struct {
		name  string
		opts  []string
		ahead bool // cut before some page the datafiles hold
	}{
		{"no page past the cut", base, false},
		{"pages past the cut", append(append([]string{}, base...), "--innodb-buffer-pool-size=8M"), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, beforeUpdate := truncCrash(t, c.opts)
			var h headerJSON
			runJSON(t, &h, "log", "header", "--json", s.Crashed)
			var whole statsJSON
			runJSON(t, &whole, "log", "stats", "--json", s.Crashed)
			for _, f := range whole.Findings {
				if strings.HasPrefix(f.Code, "LOG_") {
					t.Errorf("the uncut crash: %s %s", f.Code, f.Message)
				}
			}
			var sel checkpointJSON
			for _, cp := range h.Checkpoints {
				if cp.Selected {
					sel = cp
				}
			}
			pages := pageLSNs(t, s.Crashed)
			var newest uint64
			for _, l := range pages {
				newest = max(newest, l)
			}
			// The cut: the ring's end, an LSN W (file size 12288 + W - first LSN, whole 4 KiB).
			lo, hi := max(sel.LSN, sel.EndLSN)+4096, beforeUpdate
			if c.ahead {
				hi = min(hi, newest)
			} else {
				lo = max(lo, newest+4096)
			}
			size := (logformat.StartOffset + (lo+hi)/2 - h.FirstLSN) / 4096 * 4096
			w := h.FirstLSN + size - logformat.StartOffset
			t.Logf("checkpoint %d (end %d), newest page LSN %d, before the UPDATE %d, end of log %d: cut at %d bytes (LSN %d)",
				sel.LSN, sel.EndLSN, newest, beforeUpdate, whole.EndLSN, size, w)
			if w <= lo-4096 || w >= hi {
				t.Skipf("this crash leaves no cut between LSN %d and %d", lo-4096, hi)
			}
			cut := filepath.Join(t.TempDir(), "cut")
			lab.CopyDir(t, s.Crashed, cut)
			if err := os.Truncate(filepath.Join(cut, "ib_logfile0"), int64(size)); err != nil {
				t.Fatal(err)
			}
			ref := filepath.Join(t.TempDir(), "ref")
			lab.CopyDir(t, s.Crashed, ref)
			uncut := truncVerdict(t, s, ref)
			server := filepath.Join(t.TempDir(), "server")
			lab.CopyDir(t, cut, server)
			v := truncVerdict(t, s, server)
			t.Logf("the server on the cut log: started=%v, end of log %d (uncut: %d), %d [ERROR] lines, same CHECKSUM TABLE as the uncut crash's: %v\n%s",
				v.Started, v.EndLSN, uncut.EndLSN, v.Errors, v.Checksums == uncut.Checksums, serverLines(t, v.ErrLog))
			if v.EndLSN == 0 || v.EndLSN >= uncut.EndLSN {
				t.Fatalf("the server's recovery of the cut log ended at %d, the uncut one's at %d: nothing was cut", v.EndLSN, uncut.EndLSN)
			}
			var ahead []string
			for p, l := range pages {
				if l > v.EndLSN {
					ahead = append(ahead, p)
				}
			}
			if (len(ahead) > 0) != c.ahead {
				t.Fatalf("datafiles with pages newer than the server's end of log %d: %v", v.EndLSN, ahead)
			}
			before := lab.HashTree(t, cut)
			out, errs, code := run("diagnose", "--json", cut)
			var j diagnoseJSON
			if err := json.Unmarshal([]byte(out), &j); err != nil {
				t.Fatalf("diagnose: exit %d: %v\n%s", code, err, errs)
			}
			fs := findings(j, "LOG_TRUNCATED")
			want, wantCode := finding.Warning, ExitClean
			if c.ahead {
				want, wantCode = finding.Error, ExitFindings
			}
			logFile := filepath.Join(cut, "ib_logfile0")
			if len(fs) != 1 || fs[0].Severity != want || fs[0].File != logFile || fs[0].LSN == nil || *fs[0].LSN != v.EndLSN ||
				!strings.Contains(fs[0].Message, fmt.Sprintf("(%d bytes)", size)) || !strings.Contains(fs[0].Message, "file offset") || code != wantCode {
				t.Fatalf("diagnose: exit %d, LOG_TRUNCATED %+v; want one %s naming %s, LSN %d, %d bytes", code, fs, want, logFile, v.EndLSN, size)
			}
			t.Logf("diagnose: %s", fs[0].Message)
			table, _, _ := run("diagnose", cut)
			verdict := strings.SplitN(table, "\n", 2)[0]
			t.Logf("verdict: %s", verdict)
			if v.Started == strings.Contains(verdict, "refuse to start") {
				t.Errorf("the server started=%v; the verdict: %s", v.Started, verdict)
			}
			var st statsJSON
			sout, _, _ := run("log", "stats", "--json", cut)
			if err := json.Unmarshal([]byte(sout), &st); err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range st.Findings {
				found = found || f.Code == "LOG_TRUNCATED" && f.LSN != nil && *f.LSN == v.EndLSN
			}
			if !found || st.EndLSN != v.EndLSN {
				t.Errorf("log stats: end %d, findings %+v", st.EndLSN, st.Findings)
			}
			if !mapsEqual(before, lab.HashTree(t, cut)) {
				t.Error("the source changed")
			}
		})
	}
}

// TestLogEndDamaged: a data byte of the last mini-transaction of a real crash's log flipped, and
// the stale bytes the crash's last write left past the end of the log zeroed, so that no whole
// mini-transaction follows: the log ends on a checksum failure, not on its end marker. The real
// server starts and stops at that mini-transaction without a word; diagnose and log stats said
// nothing (0 warnings): LOG_END_DAMAGED, a warning naming the file, the LSN where the server's
// recovery ended and the file offset.
func TestLogEndDamaged(t *testing.T) {
	s := lab.Get(t, "dml")
	var last uint64
	dir, _ := flipInLog(t, s, func(l *logformat.Log, cp uint64) uint64 {
		var pick uint64
		for sc := l.Scan(cp, logformat.ScanOptions{}); sc.Next(); {
			m := sc.MTR()
			last, pick = m.LSN, m.LSN+1 // its first record's second byte: the framing may change
			for _, r := range m.Records {
				if r.Type == logformat.Write && len(r.Data) >= 2 {
					pick = m.LSN + uint64(r.Pos+r.Len-1) // a data byte: the framing stays whole
					break
				}
			}
		}
		return pick
	})
	zeroLogFrom(t, dir, s.Verdict.EndLSN, s.Verdict.EndLSN+8192)
	serverEndsAt(t, s, dir, last)
	d := &damaged{s: s, base: t.TempDir(), dir: dir}
	j, code := d.diagnose(t)
	fs := findings(j, "LOG_END_DAMAGED")
	logFile := filepath.Join(dir, "ib_logfile0")
	if code != ExitClean || len(fs) != 1 || fs[0].Severity != finding.Warning || fs[0].File != logFile || fs[0].LSN == nil || *fs[0].LSN != last ||
		!strings.Contains(fs[0].Message, fmt.Sprintf("file offset %d", last)) || len(findings(j, "LOG_DAMAGED")) != 0 {
		t.Fatalf("diagnose: exit %d, findings %+v; want one LOG_END_DAMAGED warning at LSN %d", code, j.Findings, last)
	}
	t.Logf("diagnose: %s", fs[0].Message)
	var st statsJSON
	runJSON(t, &st, "log", "stats", "--json", dir)
	found := false
	for _, f := range st.Findings {
		found = found || f.Code == "LOG_END_DAMAGED"
	}
	if !found || st.EndLSN != last {
		t.Errorf("log stats: end %d, findings %+v", st.EndLSN, st.Findings)
	}
}
