package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"innoscope/internal/lab"
)

// cliResult is what one innoscope process printed and how it ended.
type cliResult struct {
	stdout, stderr string
	code           int
}

// cliIn runs innoscope as a child process (the test binary with INNOSCOPE_AS_CLI=1, see
// TestMain) in the working directory dir, and fails the test when it runs longer than limit
// (a hang). argv0 is the command that runs the test binary (nil: the test binary itself; e.g.
// setpriv ... BINARY).
func cliIn(t *testing.T, dir string, limit time.Duration, argv0 []string, args ...string) cliResult {
	t.Helper()
	if argv0 == nil {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		argv0 = []string{exe}
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	argv := append(append(append([]string{}, argv0...), "--"), args...)
	c := exec.CommandContext(ctx, argv[0], argv[1:]...)
	c.Dir = dir
	c.Env = append(os.Environ(), "INNOSCOPE_AS_CLI=1", "NO_COLOR=1")
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	if ctx.Err() != nil {
		t.Fatalf("innoscope %v (in %s) still running after %v: it hangs", args, dir, limit)
	}
	r := cliResult{out.String(), errb.String(), 0}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("innoscope %v: %v", args, err)
	}
	return r
}

// replaceAll replaces each key of repl by its value in s, longest keys first (so that a path
// is replaced before a prefix of it).
func replaceAll(s string, repl map[string]string) string {
	keys := make([]string, 0, len(repl))
	for k := range repl {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	for _, k := range keys {
		s = strings.ReplaceAll(s, k, repl[k])
	}
	return s
}

// withoutSeconds drops recover's timings (the only part of its JSON that differs between two
// identical runs).
func withoutSeconds(t *testing.T, out string) string {
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		return out
	}
	delete(m, "seconds")
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPathSpellings: every command gives the same result, byte for byte once the spelled path
// is replaced, for every spelling of the data directory (relative, ./relative, trailing slash,
// through a parent, absolute, through a symbolic link, --datadir, a --defaults-file with a
// relative datadir), run from another working directory than the test's. Relative spellings
// gave MISSING_FILE for every tablespace and ORPHAN_FILE for every file (paths joined to the
// datadir twice). A relative --into gives a copy whose .isl files hold absolute paths, and the
// server started on it finds the DATA DIRECTORY table (CHECK TABLE OK).
func TestPathSpellings(t *testing.T) {
	s := lab.Get(t, "data_directory")
	base := t.TempDir()
	work := filepath.Join(base, "work")
	d1 := filepath.Join(work, "d1")
	lab.CopyDir(t, s.Crashed, d1)
	if err := os.Symlink(d1, filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	cnf := "[mysqld]\ndatadir=d1\n"
	if err := os.WriteFile(filepath.Join(work, "my.cnf"), []byte(cnf), 0o644); err != nil {
		t.Fatal(err)
	}
	before := lab.HashTree(t, d1)
	ext := lab.HashTree(t, filepath.Join(s.Dir, "ext-crashed"))
	spellings := [][]string{{d1}, {"d1"}, {"./d1"}, {"d1/"}, {"../work/d1"}, {"./d1/../d1//"},
		{filepath.Join(base, "link")}, {"../link"}, {"--datadir", "d1"}, {"--datadir", "./d1/"},
		{"--defaults-file", "my.cnf"}}
	commands := [][]string{{"log", "header", "--json"}, {"log", "records", "--json"}, {"log", "stats", "--json"},
		{"spaces", "--json"}, {"map", "--json"}, {"diagnose", "--json"}, {"verify", "--json"}, {"recover", "--json"},
		{"pages", "--json", "--verify"}}
	want := map[string]cliResult{}
	for i, sp := range spellings {
		into := "copy" + string(rune('a'+i))
		repl := map[string]string{d1: "DIR", filepath.Join(base, "link"): "DIR", filepath.Join(work, into): "INTO"}
		if r, err := filepath.EvalSymlinks(d1); err == nil {
			repl[r] = "DIR"
		}
		for _, cmd := range commands {
			args := append(append([]string{}, cmd...), sp...)
			switch cmd[0] {
			case "recover":
				args = append(args, "--into", into)
			case "pages":
				if strings.HasPrefix(sp[0], "--") {
					continue
				}
				args = append(append([]string{}, cmd...), filepath.Join(sp[0], "db", "local.ibd"))
			}
			r := cliIn(t, work, 5*time.Minute, nil, args...)
			if cmd[0] == "recover" {
				r.stdout = withoutSeconds(t, r.stdout)
			}
			r.stdout = replaceAll(r.stdout, repl)
			r.stderr = ""
			key := strings.Join(cmd, " ")
			w, ok := want[key]
			if !ok {
				if r.code != ExitClean {
					t.Errorf("innoscope %v (absolute): exit %d\n%s", args, r.code, r.stdout)
				}
				want[key] = r
				continue
			}
			if r != w {
				t.Errorf("innoscope %v: exit %d, output differs from the absolute spelling's (exit %d):\n%s\nwant:\n%s",
					args, r.code, w.code, r.stdout, w.stdout)
			}
		}
	}
	if !mapsEqual(before, lab.HashTree(t, d1)) || !mapsEqual(ext, lab.HashTree(t, filepath.Join(s.Dir, "ext-crashed"))) {
		t.Errorf("a command changed the source")
	}
	// The copy made with a relative --into: absolute .isl targets inside its external
	// directory, and the server on it opens the DATA DIRECTORY table.
	copyDir := filepath.Join(work, "copyb")
	b, err := os.ReadFile(filepath.Join(copyDir, "db", "remote.isl"))
	if err != nil {
		t.Fatal(err)
	}
	target := strings.TrimSpace(string(b))
	if !filepath.IsAbs(target) || !strings.HasPrefix(target, copyDir) {
		t.Errorf("the copy's db/remote.isl names %q: want an absolute path in the copy's external directory", target)
	}
	_, onCopy := splitOptions(s.Options)
	sc := *s
	sc.Options = onCopy
	v := sc.ServerVerdict(t, copyDir)
	if !v.Started || !v.TablesOK || !strings.Contains(v.Checks, "db.remote\tOK") {
		t.Errorf("server on the copy made with --into copyb: started=%v tables_ok=%v\n%s\n%s",
			v.Started, v.TablesOK, v.Checks, serverLines(t, v.ErrLog))
	}
}

// linkedLayout copies the scenario's crashed directory to dir and moves either db/t2.ibd or
// the whole db directory to the directory elsewhere, leaving a symbolic link in its place.
func linkedLayout(t *testing.T, s *lab.Scenario, dir, elsewhere string, wholeDB bool) {
	t.Helper()
	lab.CopyDir(t, s.Crashed, dir)
	from, to := filepath.Join(dir, "db", "t2.ibd"), filepath.Join(elsewhere, "t2.ibd")
	if wholeDB {
		from, to = filepath.Join(dir, "db"), filepath.Join(elsewhere, "db")
	}
	if err := os.MkdirAll(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	mv(t, from, to)
	if err := os.Symlink(to, from); err != nil {
		t.Fatal(err)
	}
}

// TestSymlinkedDatafiles: a datafile (db/t2.ibd) or a database directory (db) that is a
// symbolic link to a real one elsewhere. The server started on such a copy recovers it and
// CHECK TABLE passes; innoscope must find the file (spaces), report no error (diagnose), and
// recover a copy the server starts on with its own recovery's table contents. The scan
// skipped links: diagnose said MISSING_FILE and spaces omitted the file.
func TestSymlinkedDatafiles(t *testing.T) {
	s := lab.Get(t, "dml")
	for _, wholeDB := range []bool{false, true} {
		name := map[bool]string{false: "file", true: "directory"}[wholeDB]
		t.Run(name, func(t *testing.T) {
			base := t.TempDir()
			src, srv := filepath.Join(base, "src"), filepath.Join(base, "srv")
			linkedLayout(t, s, src, filepath.Join(base, "src-elsewhere"), wholeDB)
			linkedLayout(t, s, srv, filepath.Join(base, "srv-elsewhere"), wholeDB)
			v := s.ServerVerdict(t, srv)
			serverOK := v.Started && v.TablesOK && v.TablesChecked == 2
			if !serverOK {
				t.Fatalf("the server on a copy with a linked %s: started=%v tables_ok=%v\n%s", name, v.Started, v.TablesOK, serverLines(t, v.ErrLog))
			}
			before := lab.HashTree(t, filepath.Join(base, "src-elsewhere"))
			found := false
			for _, x := range spacesOf(t, src) {
				if x.Path == filepath.Join(src, "db", "t2.ibd") && x.SpaceID == 6 && x.Error == "" && x.Location == "known" {
					found = true
				}
			}
			if !found {
				t.Errorf("spaces does not list %s as space 6 in a known location", filepath.Join(src, "db", "t2.ibd"))
			}
			var d diagnoseJSON
			out, errs, code := run("diagnose", "--json", src)
			if err := json.Unmarshal([]byte(out), &d); err != nil || code != ExitClean || d.Summary["error"] != 0 {
				t.Errorf("diagnose of a directory the server recovers: exit %d, %v\n%s%s", code, err, out, errs)
			}
			want := s.Checksums(t)
			recoverAndStart(t, s, src, want)
			if !mapsEqual(before, lab.HashTree(t, filepath.Join(base, "src-elsewhere"))) {
				t.Errorf("the linked files changed")
			}
		})
	}
}

// TestDiagnoseNamesPathsAsSpelled: through a symbolic link to the data directory, every file a
// finding names is under the link as the user spelled it; none names the link's target (the
// MISSING_FILE of a file the dictionary names, deleted here, resolved the link).
func TestDiagnoseNamesPathsAsSpelled(t *testing.T) {
	s := lab.Get(t, "dml")
	base := t.TempDir()
	real := filepath.Join(base, "real")
	lab.CopyDir(t, s.Crashed, real)
	gone, err := filepath.Glob(filepath.Join(real, "db", "*.ibd"))
	if err != nil || len(gone) == 0 {
		t.Fatalf("no datafile in %s/db: %v", real, err)
	}
	if err := os.Remove(gone[0]); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	j := diagnoseFindings(t, link)
	missing := 0
	for _, f := range j.Findings {
		if f.Code == "MISSING_FILE" {
			missing++
		}
		if strings.HasPrefix(f.File, real) {
			t.Errorf("%s names the link's target %s; want the path as spelled, under %s", f.Code, f.File, link)
		}
	}
	if missing == 0 {
		t.Fatalf("no MISSING_FILE for the deleted %s; the case is not made: %+v", gone[0], j.Findings)
	}
}

// TestDefaultsFileOtherDatadir: DIR given with a --defaults-file whose datadir is another
// directory (a copy read with the production my.cnf) is read as DIR with a note, and refused
// (exit 2, naming the setting) when that my.cnf places the redo log outside the data directory
// by an absolute path: the server's own log would have been read with the copy's datafiles.
func TestDefaultsFileOtherDatadir(t *testing.T) {
	s := lab.Get(t, "dml")
	base := t.TempDir()
	d := filepath.Join(base, "copy")
	lab.CopyDir(t, s.Crashed, d)
	prod := filepath.Join(base, "production")
	lab.CopyDir(t, s.Crashed, prod) // a log of its own where the my.cnf points
	plain := filepath.Join(base, "plain.cnf")
	logs := filepath.Join(base, "logs.cnf")
	if err := os.WriteFile(plain, []byte("[mysqld]\ndatadir="+prod+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(logs, []byte("[mysqld]\ndatadir="+prod+"\ninnodb_log_group_home_dir="+prod+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want, _, code := run("diagnose", "--json", d)
	if code == ExitError {
		t.Fatalf("diagnose %s: exit %d", d, code)
	}
	out, errs, code2 := run("diagnose", "--json", d, "--defaults-file", plain)
	if out != want || code2 != code || !strings.Contains(errs, "note: reading DIR "+d+", not the datadir "+prod) {
		t.Errorf("with a my.cnf of another datadir: exit %d (want %d), stderr %q; output equal: %v", code2, code, errs, out == want)
	}
	out, errs, code2 = run("diagnose", d, "--defaults-file", logs)
	if code2 != ExitError || out != "" || !strings.Contains(errs, "innodb_log_group_home_dir="+prod) {
		t.Errorf("with a my.cnf whose log directory is absolute: exit %d, stdout %q, stderr %q", code2, out, errs)
	}
}
