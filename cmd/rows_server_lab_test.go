package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"innoscope/discovery"
	"innoscope/internal/lab"
)

// The throw-away server of the rows tests (rows_lab_test.go) and some of their subtests.

// rowsQuery is the server's query for a table of rowsTables ("t#P#p" is partition p of t,
// "t#P#p#SP#s" its subpartition s).
func rowsQuery(name, order string) string {
	q := "SELECT * FROM db.`" + name + "`"
	if t, p, ok := strings.Cut(name, "#P#"); ok {
		if _, sp, ok := strings.Cut(p, "#SP#"); ok {
			p = sp
		}
		q = "SELECT * FROM db.`" + t + "` PARTITION (" + p + ")"
	}
	if order != "" {
		q += " ORDER BY " + order
	}
	return q
}

// rowsServer is a throw-away mariadbd on a data directory of its own.
type rowsServer struct {
	srv       *lab.Server
	dir, sock string
	done      chan error
	proc      *exec.Cmd
	exited    bool
}

// newRowsServer installs a data directory under base and starts the server on it with its
// time zone fixed to UTC.
func newRowsServer(t *testing.T, base string, opts ...string) *rowsServer {
	t.Helper()
	return newRowsServerOn(t, lab.MariaDB1011, base, opts...)
}

// newRowsServerOn is newRowsServer with the lab server srv.
func newRowsServerOn(t *testing.T, srv *lab.Server, base string, opts ...string) *rowsServer {
	t.Helper()
	srv.Require(t)
	dir := filepath.Join(base, "data")
	var out []byte
	var err error
	for try := 0; try < 3; try++ { // mariadb-install-db sometimes dies (see mariadb-lab.sh)
		os.RemoveAll(dir)
		out, err = srv.Command("mariadb-install-db", append([]string{"--no-defaults", "--datadir=" + dir, "--user=root",
			"--auth-root-authentication-method=normal", "--skip-test-db"}, opts...)...).CombinedOutput()
		if err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	return startRowsServerOn(t, srv, dir, opts...)
}

func startRowsServer(t *testing.T, dir string, opts ...string) *rowsServer {
	t.Helper()
	return startRowsServerOn(t, lab.MariaDB1011, dir, opts...)
}

// startRowsServerOn starts the lab server v on dir with its time zone fixed to UTC.
func startRowsServerOn(t *testing.T, v *lab.Server, dir string, opts ...string) *rowsServer {
	t.Helper()
	srv, sock, errLog, done := launchServerOn(t, v, dir, append([]string{"--default-time-zone=+00:00", "--innodb-log-file-size=16M"}, opts...)...)
	for i := 0; i < 600; i++ {
		if answers(sock) {
			rs := &rowsServer{srv: v, dir: dir, sock: sock, done: done, proc: srv}
			t.Cleanup(rs.kill) // a test that fails before the shutdown leaves no server behind
			return rs
		}
		select {
		case err := <-done:
			b, _ := os.ReadFile(errLog)
			t.Fatalf("mariadbd on %s exited: %v\n%s", dir, err, b)
		case <-time.After(100 * time.Millisecond):
		}
	}
	srv.Process.Kill()
	t.Fatalf("mariadbd on %s did not answer", dir)
	return nil
}

// sql runs statements through the client (utf8mb4) and returns its --batch output.
func (s *rowsServer) sql(t *testing.T, stmts string, args ...string) []byte {
	t.Helper()
	cmd := s.srv.Command("mariadb", append([]string{"--no-defaults", "-S", s.sock, "-uroot", "-D", "mysql",
		"--default-character-set=utf8mb4", "--batch", "--skip-column-names"}, args...)...)
	cmd.Stdin = strings.NewReader(stmts)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("mariadb: %v\n%s", err, stderr.String())
	}
	return out
}

// session starts a client on database db that runs stmts, which print one line and then hold
// the session (a transaction left open: SELECT SLEEP(600) last), and returns that line once it
// is printed. The client is killed when the test ends.
func (s *rowsServer) session(t *testing.T, db, stmts string) string {
	t.Helper()
	cmd := s.srv.Command("mariadb", "--no-defaults", "--unbuffered", "--batch", "--skip-column-names", "-S", s.sock, "-uroot", "-D", db)
	cmd.Stdin = strings.NewReader(stmts)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the held session printed %q: %v", line, err)
	}
	return strings.TrimSuffix(line, "\n")
}

// kill stops the server with SIGKILL unless it has exited.
func (s *rowsServer) kill() {
	if s.proc.ProcessState == nil && !s.exited {
		s.proc.Process.Kill()
		<-s.done
		s.exited = true
	}
}

// shutdown stops the server cleanly and waits for it to exit.
func (s *rowsServer) shutdown(t *testing.T) {
	t.Helper()
	if out, err := exec.Command("mariadb-admin", "--no-defaults", "-S", s.sock, "-uroot", "shutdown").CombinedOutput(); err != nil {
		t.Fatalf("mariadb-admin shutdown: %v\n%s", err, out)
	}
	select {
	case <-s.done:
		s.exited = true
	case <-time.After(2 * time.Minute):
		s.proc.Process.Kill()
		t.Fatal("mariadbd did not shut down")
	}
}

// rowsSQL: the --format sql output of every table, loaded into the emptied table by the
// real server, gives back the same SELECT output; --format json has one object per row.
func rowsSQL(t *testing.T, srv *lab.Server, dir string, want map[string][]byte) {
	stmts := map[string]string{}
	tables := rowsTablesOn(srv)
	for _, tb := range tables {
		out, errs, code := run("rows", "--format", "sql", dir, "db."+tb.name)
		if code != ExitClean {
			t.Fatalf("rows --format sql db.%s: exit %d, %s", tb.name, code, errs)
		}
		stmts[tb.name] = out
		js, errs, code := run("rows", "--format", "json", dir, "db."+tb.name)
		n := 0
		for _, l := range strings.Split(strings.TrimSuffix(js, "\n"), "\n") {
			var m map[string]any
			if l != "" && json.Unmarshal([]byte(l), &m) == nil {
				n++
			}
		}
		if code != ExitClean || n != bytes.Count(want[tb.name], []byte("\n")) {
			t.Errorf("rows --format json db.%s: exit %d, %d objects, %s", tb.name, code, n, errs)
		}
	}
	cp := filepath.Join(t.TempDir(), "data")
	lab.CopyDir(t, dir, cp)
	s := startRowsServerOn(t, srv, cp)
	defer s.shutdown(t)
	// TIMESTAMPs in another time zone, as the server shows them in a session of that zone.
	tz := s.sql(t, "SET time_zone = '+05:30'; SELECT * FROM db.t_time ORDER BY id")
	if out, errs, code := run("rows", "--time-zone", "+05:30", dir, "db.t_time"); code != ExitClean || out != string(tz) {
		t.Errorf("rows --time-zone +05:30 db.t_time: exit %d, %s\n%s", code, errs, firstDiff(string(tz), out))
	}
	for _, tb := range tables {
		if strings.Contains(tb.name, "#P#") {
			continue
		}
		got := s.sql(t, "SET autocommit=0;\nDELETE FROM db.`"+tb.name+"`;\n"+stmts[tb.name]+"COMMIT;\n"+rowsQuery(tb.name, tb.order))
		if !bytes.Equal(got, want[tb.name]) {
			t.Errorf("db.%s loaded from rows --format sql:\n%s", tb.name, firstDiff(string(want[tb.name]), string(got)))
		}
	}
}

// rowsPageRecords: `pages --page N --records` on the root of t_big lists node pointers; on the
// leaf the first one points to, its live records are the server's first rows; on the leftmost
// leaf of t_inst2, the metadata record comes first.
func rowsPageRecords(t *testing.T, dir string, want map[string][]byte) {
	type rec struct {
		Status   string    `json:"status"`
		Deleted  bool      `json:"deleted"`
		Metadata bool      `json:"metadata"`
		Values   []*string `json:"values"`
		Child    *uint32   `json:"child_page"`
		Error    string    `json:"error"`
	}
	recs := func(file string, page uint32) []rec {
		var rs []rec
		runJSON(t, &rs, "pages", filepath.Join(dir, "db", file), "--page", fmt.Sprint(page), "--records", "--json")
		return rs
	}
	root := recs("t_big.ibd", 3)
	if len(root) < 2 || root[0].Status != "node_ptr" || root[0].Child == nil {
		t.Fatalf("root of t_big: %+v", root)
	}
	var lines []string
	for _, r := range recs("t_big.ibd", *root[0].Child) {
		if r.Error != "" {
			t.Fatalf("leaf record: %s", r.Error)
		}
		if r.Deleted {
			continue
		}
		var f []string
		for _, v := range r.Values {
			if v == nil {
				f = append(f, "NULL")
			} else {
				f = append(f, *v)
			}
		}
		lines = append(lines, strings.Join(f, "\t")+"\n")
	}
	if len(lines) == 0 || !strings.HasPrefix(string(want["t_big"]), strings.Join(lines, "")) {
		t.Errorf("the records of t_big's first leaf are not the server's first rows:\n%s", strings.Join(lines, ""))
	}
	if m := recs("t_inst2.ibd", 3); len(m) == 0 || !m[0].Metadata || !m[0].Deleted || m[0].Status != "instant" {
		t.Errorf("t_inst2's first record is not the metadata record of an instant DROP: %+v", m)
	}
}

// rowsDamagedBlob flips a byte in the first BLOB page of t_long in a copy: the row whose value
// it holds is reported lost (1 row), every other row is printed, exit 1.
func rowsDamagedBlob(t *testing.T, dir string, want []byte) {
	cp := filepath.Join(t.TempDir(), "data")
	lab.CopyDir(t, dir, cp)
	path := filepath.Join(cp, "db", "t_long.ibd")
	f, err := discovery.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blob int64 = -1
	f.EachPage(0, f.Pages(), func(no int64, p []byte) error {
		if h, _ := discovery.ParseFilHeader(p); h.Type == 10 && blob < 0 { // FIL_PAGE_TYPE_BLOB
			blob = no
		}
		return nil
	})
	ps := int64(f.Physical)
	f.Close()
	if blob < 0 {
		t.Fatal("t_long has no BLOB page")
	}
	flip(t, path, ps, blob, 500)
	out, errs, code := run("rows", cp, "db.t_long")
	if code != ExitFindings || !strings.Contains(errs, fmt.Sprintf("BLOB page %d: checksum", blob)) || !strings.Contains(errs, "1 rows lost") {
		t.Fatalf("rows with BLOB page %d of t_long damaged: exit %d, %s", blob, code, errs)
	}
	w, g := strings.SplitAfter(string(want), "\n"), strings.SplitAfter(out, "\n")
	i, missing := 0, 0
	for _, l := range g {
		for i < len(w) && w[i] != l {
			i, missing = i+1, missing+1
		}
		if i == len(w) {
			t.Fatal("a printed row is not the server's (or out of order)")
		}
		i++
	}
	if missing += len(w) - i; missing != 1 {
		t.Errorf("%d rows missing, want 1", missing)
	}
}

// rowsVirtual: db.t_virt has VIRTUAL columns (one added by an instant ALTER, one in a secondary
// index) between its stored ones. `rows` prints the stored columns, as the server's SELECT of
// them (want[0]) gives them, and names the VIRTUAL ones it left out on stderr; `--format sql`
// names the stored columns, and loaded into a copy by the server gives every column of SELECT *
// (want[1]: the server computes the VIRTUAL ones); `--index kw` (on a VIRTUAL column) is refused.
func rowsVirtual(t *testing.T, srv *lab.Server, dir string, want [2][]byte) {
	out, errs, code := run("rows", dir, "db.t_virt")
	if code != ExitClean || out != string(want[0]) || !strings.Contains(errs, "VIRTUAL columns x, v, w") || !strings.Contains(errs, "id, a, b, s") {
		t.Errorf("rows db.t_virt: exit %d, %s\n%s", code, errs, firstDiff(string(want[0]), out))
	}
	stmts, errs, code := run("rows", "--format", "sql", dir, "db.t_virt")
	if code != ExitClean {
		t.Fatalf("rows --format sql db.t_virt: exit %d, %s", code, errs)
	}
	cp := filepath.Join(t.TempDir(), "data")
	lab.CopyDir(t, dir, cp)
	s := startRowsServerOn(t, srv, cp)
	defer s.shutdown(t)
	got := s.sql(t, "SET autocommit=0;\nDELETE FROM db.t_virt;\n"+stmts+"COMMIT;\nSELECT * FROM db.t_virt ORDER BY id")
	if !bytes.Equal(got, want[1]) || bytes.Count(got, []byte("\n")) != 300 {
		t.Errorf("db.t_virt loaded from rows --format sql:\n%s", firstDiff(string(want[1]), string(got)))
	}
	if _, errs, code := run("rows", "--index", "kw", dir, "db.t_virt"); code != ExitError || !strings.Contains(errs, "index kw of db.t_virt holds a VIRTUAL column") {
		t.Errorf("rows --index kw (a VIRTUAL column): exit %d, %s", code, errs)
	}
}
