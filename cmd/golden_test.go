package cmd

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// update makes TestGolden rewrite its files: go test ./cmd -run TestGolden -update
var update = flag.Bool("update", false, "rewrite the golden files under cmd/testdata/golden")

// goldenCase is one command line run on one fixture, compared with testdata/golden/NAME.golden.
// In args, $CRASH is the committed fixture directory, $PEER the peer fixtures' directory and $TMP
// an empty directory; files lists what the command left in $TMP.
type goldenCase struct {
	name  string
	args  []string
	files bool
}

// goldenCrash runs every command on fixtures/mariadb-10.11-crash (a redo log only: diagnose and
// report say LOG_ONLY, recover, verify and spaces refuse). The full JSON of `log records` is
// kept (about 230 KB); its table is kept for LSN ranges and filters.
var goldenCrash = []goldenCase{
	{name: "crash/log-header.table", args: []string{"log", "header", "$CRASH"}},
	{name: "crash/log-header.json", args: []string{"log", "header", "--json", "$CRASH"}},
	{name: "crash/log-header-logfile.json", args: []string{"log", "header", "$CRASH/ib_logfile0", "--json"}},
	{name: "crash/log-stats.table", args: []string{"log", "stats", "$CRASH"}},
	{name: "crash/log-stats.json", args: []string{"log", "stats", "--json", "$CRASH"}},
	{name: "crash/log-stats-logfile.json", args: []string{"log", "stats", "$CRASH/ib_logfile0", "--json"}},
	{name: "crash/log-stats-range.table", args: []string{"log", "stats", "--from-lsn", "122567", "--to-lsn", "124216", "$CRASH"}},
	{name: "crash/log-stats-range.json", args: []string{"log", "stats", "--json", "--from-lsn", "122567", "--to-lsn", "124216", "$CRASH"}},
	{name: "crash/log-stats-page-size.json", args: []string{"log", "stats", "--json", "--innodb-page-size", "4k", "$CRASH"}},
	{name: "crash/log-records-all.json", args: []string{"log", "records", "--json", "$CRASH"}},
	{name: "crash/log-records-to-103000.table", args: []string{"log", "records", "--to-lsn", "103000", "$CRASH"}},
	{name: "crash/log-records-122000-125000.table", args: []string{"log", "records", "--from-lsn", "122000", "--to-lsn", "125000", "$CRASH"}},
	{name: "crash/log-records-122000-125000.json", args: []string{"log", "records", "--json", "--from-lsn", "122000", "--to-lsn", "125000", "$CRASH"}},
	{name: "crash/log-records-file.table", args: []string{"log", "records", "--type", "FILE_*", "$CRASH"}},
	{name: "crash/log-records-file.json", args: []string{"log", "records", "$CRASH/ib_logfile0", "--json", "--type", "FILE_*"}},
	{name: "crash/log-records-space5-page3.table", args: []string{"log", "records", "--space", "5", "--page", "3", "$CRASH"}},
	{name: "crash/log-records-extended-memmove.table", args: []string{"log", "records", "--type", "EXTENDED,MEMMOVE", "--space", "0", "--to-lsn", "110000", "$CRASH"}},
	{name: "crash/map.table", args: []string{"map", "$CRASH"}},
	{name: "crash/map.json", args: []string{"map", "--json", "$CRASH"}},
	{name: "crash/map-logfile.json", args: []string{"map", "$CRASH/ib_logfile0", "--json"}},
	{name: "crash/map-at-124216.table", args: []string{"map", "--at-lsn", "124216", "$CRASH"}},
	{name: "crash/map-at-124216.json", args: []string{"map", "--json", "--at-lsn", "124216", "$CRASH"}},
	{name: "crash/map-from-122592.json", args: []string{"map", "--json", "--from-lsn", "122592", "$CRASH"}},
	{name: "crash/spaces.table", args: []string{"spaces", "$CRASH"}},
	{name: "crash/spaces.json", args: []string{"spaces", "--json", "$CRASH"}},
	{name: "crash/spaces-space6.table", args: []string{"spaces", "$CRASH", "--space", "6"}},
	{name: "crash/spaces-space6.json", args: []string{"spaces", "$CRASH", "--space", "6", "--json"}},
	{name: "crash/map-space5.table", args: []string{"map", "$CRASH", "--space", "5"}},
	{name: "crash/pages-logfile-summary.table", args: []string{"pages", "--summary", "$CRASH/ib_logfile0"}},
	{name: "crash/pages-logfile-summary.json", args: []string{"pages", "--summary", "--json", "$CRASH/ib_logfile0"}},
	{name: "crash/diagnose.table", args: []string{"diagnose", "$CRASH"}},
	{name: "crash/diagnose.json", args: []string{"diagnose", "--json", "$CRASH"}},
	{name: "crash/diagnose-skip-pages.json", args: []string{"diagnose", "--json", "--skip-pages", "$CRASH"}},
	{name: "crash/diagnose-mysql8.table", args: []string{"diagnose", "--policy", "mysql8", "$CRASH"}},
	{name: "crash/diagnose-fail-on-none.json", args: []string{"diagnose", "--json", "--fail-on", "none", "$CRASH"}},
	{name: "crash/recover.table", args: []string{"recover", "$CRASH", "--into", "$TMP/copy"}, files: true},
	{name: "crash/recover.json", args: []string{"recover", "--json", "$CRASH", "--into", "$TMP/copy"}, files: true},
	{name: "crash/recover-dry-run.table", args: []string{"recover", "--dry-run", "$CRASH", "--into", "$TMP/copy"}, files: true},
	{name: "crash/recover-dry-run.json", args: []string{"recover", "--dry-run", "--json", "$CRASH", "--into", "$TMP/copy"}, files: true},
	{name: "crash/report.table", args: []string{"report", "$CRASH", "--out", "$TMP/report.html"}, files: true},
	{name: "crash/verify.table", args: []string{"verify", "--tmpdir", "$TMP", "$CRASH"}, files: true},
	{name: "crash/verify.json", args: []string{"verify", "--json", "--tmpdir", "$TMP", "$CRASH"}, files: true},
	{name: "crash/verify-keep.json", args: []string{"verify", "--json", "--keep", "$TMP/keep", "$CRASH"}, files: true},
	{name: "crash/verify-skip-pages.json", args: []string{"verify", "--json", "--skip-pages", "--tmpdir", "$TMP", "$CRASH"}, files: true},
}

// goldenHelp is the command tree itself: every command's help and the version.
var goldenHelp = []goldenCase{
	{name: "help/innoscope.txt", args: []string{"--help"}},
	{name: "help/version.txt", args: []string{"--version"}},
	{name: "help/log.txt", args: []string{"log", "--help"}},
	{name: "help/log-header.txt", args: []string{"log", "header", "--help"}},
	{name: "help/log-records.txt", args: []string{"log", "records", "--help"}},
	{name: "help/log-stats.txt", args: []string{"log", "stats", "--help"}},
	{name: "help/log-changes.txt", args: []string{"log", "changes", "--help"}},
	{name: "help/spaces.txt", args: []string{"spaces", "--help"}},
	{name: "help/pages.txt", args: []string{"pages", "--help"}},
	{name: "help/map.txt", args: []string{"map", "--help"}},
	{name: "help/diagnose.txt", args: []string{"diagnose", "--help"}},
	{name: "help/recover.txt", args: []string{"recover", "--help"}},
	{name: "help/verify.txt", args: []string{"verify", "--help"}},
	{name: "help/rows.txt", args: []string{"rows", "--help"}},
	{name: "help/undrop.txt", args: []string{"undrop", "--help"}},
	{name: "help/schema.txt", args: []string{"schema", "--help"}},
	{name: "help/adopt.txt", args: []string{"adopt", "--help"}},
	{name: "help/report.txt", args: []string{"report", "--help"}},
}

// goldenPeer runs the commands that apply to the real MySQL files in ../shared/peer-fixtures
// (not committed: skipped where they are absent, as the other tests that read them).
var goldenPeer = []goldenCase{
	// The MySQL 8.0.33 redo file: from its checkpoint nothing is to be recovered; --from-lsn 1
	// decodes the whole file (the stats count every record; records are kept for a range).
	{name: "mysql8-redo/log-header.table", args: []string{"log", "header", "$PEER/mysql-8.0.33-docker-sample/#ib_redo10"}},
	{name: "mysql8-redo/log-header.json", args: []string{"log", "header", "--json", "$PEER/mysql-8.0.33-docker-sample/#ib_redo10"}},
	{name: "mysql8-redo/log-stats.table", args: []string{"log", "stats", "$PEER/mysql-8.0.33-docker-sample/#ib_redo10"}},
	{name: "mysql8-redo/log-stats.json", args: []string{"log", "stats", "--json", "$PEER/mysql-8.0.33-docker-sample/#ib_redo10"}},
	{name: "mysql8-redo/log-stats-whole.table", args: []string{"log", "stats", "--from-lsn", "1", "$PEER/mysql-8.0.33-docker-sample/#ib_redo10"}},
	{name: "mysql8-redo/log-stats-whole.json", args: []string{"log", "stats", "--json", "--from-lsn", "1", "$PEER/mysql-8.0.33-docker-sample/#ib_redo10"}},
	{name: "mysql8-redo/log-records.table", args: []string{"log", "records", "$PEER/mysql-8.0.33-docker-sample/#ib_redo10"}},
	{name: "mysql8-redo/log-records-to-32758000.table", args: []string{"log", "records", "--from-lsn", "1", "--to-lsn", "32758000", "$PEER/mysql-8.0.33-docker-sample/#ib_redo10"}},
	{name: "mysql8-redo/log-records-to-32758000.json", args: []string{"log", "records", "--json", "--from-lsn", "1", "--to-lsn", "32758000", "$PEER/mysql-8.0.33-docker-sample/#ib_redo10"}},
	{name: "mysql8-redo/log-records-undo.json", args: []string{"log", "records", "--json", "--from-lsn", "1", "--type", "MLOG_UNDO_ERASE_END,MLOG_UNDO_INIT", "$PEER/mysql-8.0.33-docker-sample/#ib_redo10"}},
	{name: "mysql8-redo/map-whole.table", args: []string{"map", "--from-lsn", "1", "$PEER/mysql-8.0.33-docker-sample/#ib_redo10"}},
	{name: "mysql8-redo/map-whole.json", args: []string{"map", "--json", "--from-lsn", "1", "$PEER/mysql-8.0.33-docker-sample/#ib_redo10"}},
	{name: "mysql8-redo/log-stats-dir.table", args: []string{"log", "stats", "$PEER/mysql-8.0.33-docker-sample"}},

	// innodb_ruby's MySQL datafiles: pages (every mode), spaces and diagnose on loose files;
	// schema from the SDI of a MySQL 8.0 file.
	{name: "innodb-ruby/schema-sakila-8.0-film.sql", args: []string{"schema", "$PEER/innodb_ruby/sakila/8.0/sakila/film.ibd"}},
	{name: "innodb-ruby/schema-sakila-8.0-address.json", args: []string{"schema", "--json", "$PEER/innodb_ruby/sakila/8.0/sakila/address.ibd"}},
	{name: "innodb-ruby/pages-hello-world.table", args: []string{"pages", "$PEER/innodb_ruby/hello_world.ibd"}},
	{name: "innodb-ruby/pages-hello-world.json", args: []string{"pages", "--json", "$PEER/innodb_ruby/hello_world.ibd"}},
	{name: "innodb-ruby/pages-hello-world-verify.table", args: []string{"pages", "--verify", "$PEER/innodb_ruby/hello_world.ibd"}},
	{name: "innodb-ruby/pages-hello-world-verify-all.table", args: []string{"pages", "--verify", "--all", "$PEER/innodb_ruby/hello_world.ibd"}},
	{name: "innodb-ruby/pages-t-10k-rows-verify.json", args: []string{"pages", "--verify", "--json", "$PEER/innodb_ruby/t_10k_rows.ibd"}},
	{name: "innodb-ruby/pages-t-record-describer-summary.table", args: []string{"pages", "--verify", "--summary", "$PEER/innodb_ruby/t_record_describer.ibd"}},
	{name: "innodb-ruby/pages-t-empty-page3.json", args: []string{"pages", "--json", "--page", "3", "$PEER/innodb_ruby/t_empty.ibd"}},
	{name: "innodb-ruby/pages-t-empty-page3.table", args: []string{"pages", "--page", "3", "$PEER/innodb_ruby/t_empty.ibd"}},
	{name: "innodb-ruby/pages-sakila-5.0-film-verify.table", args: []string{"pages", "--verify", "$PEER/innodb_ruby/sakila/5.0/sakila/film.ibd"}},
	{name: "innodb-ruby/pages-sakila-5.7-film-verify-summary.json", args: []string{"pages", "--verify", "--summary", "--json", "$PEER/innodb_ruby/sakila/5.7/sakila/film.ibd"}},
	{name: "innodb-ruby/pages-sakila-8.0-film-verify.json", args: []string{"pages", "--verify", "--json", "$PEER/innodb_ruby/sakila/8.0/sakila/film.ibd"}},
	{name: "innodb-ruby/pages-sakila-8.4-film-verify-summary.table", args: []string{"pages", "--verify", "--summary", "$PEER/innodb_ruby/sakila/8.4/sakila/film.ibd"}},
	{name: "innodb-ruby/pages-sakila-compact-film-verify-summary.json", args: []string{"pages", "--verify", "--summary", "--json", "$PEER/innodb_ruby/sakila/compact/sakila/film.ibd"}},
	{name: "innodb-ruby/pages-sakila-redundant-film-verify-summary.json", args: []string{"pages", "--verify", "--summary", "--json", "$PEER/innodb_ruby/sakila/redundant/sakila/film.ibd"}},
	{name: "innodb-ruby/spaces-sakila-5.0.table", args: []string{"spaces", "$PEER/innodb_ruby/sakila/5.0"}},
	{name: "innodb-ruby/spaces-sakila-5.0.json", args: []string{"spaces", "--json", "$PEER/innodb_ruby/sakila/5.0"}},
	{name: "innodb-ruby/spaces-sakila-8.0.table", args: []string{"spaces", "$PEER/innodb_ruby/sakila/8.0"}},
	{name: "innodb-ruby/spaces-sakila-8.0.json", args: []string{"spaces", "--json", "$PEER/innodb_ruby/sakila/8.0"}},
	{name: "innodb-ruby/spaces-sakila-redundant.json", args: []string{"spaces", "--json", "$PEER/innodb_ruby/sakila/redundant"}},
	{name: "innodb-ruby/diagnose-sakila-8.0.table", args: []string{"diagnose", "$PEER/innodb_ruby/sakila/8.0"}},
	{name: "innodb-ruby/diagnose-sakila-8.0.json", args: []string{"diagnose", "--json", "$PEER/innodb_ruby/sakila/8.0"}},
	{name: "innodb-ruby/diagnose-sakila-5.0-mysql8-skip-pages.json", args: []string{"diagnose", "--json", "--policy", "mysql8", "--skip-pages", "$PEER/innodb_ruby/sakila/5.0"}},
}

// TestGolden runs every command in-process on the fixtures, with its table and its --json
// output, and compares stdout, stderr and the exit status with testdata/golden: the output of
// every command stays byte-identical across a refactoring. `-update` rewrites the files.
//
// The commands print absolute paths, and a table's columns are as wide as its longest cell, so
// the fixtures are copied into a directory whose path has the same length on every machine
// (/tmp/innoscope-golden-XXXXXXXX: crash, peer, and tmp, emptied for each case); the random part
// of its name is then replaced by as many '#', which keeps the tables aligned. (Copies, not
// symbolic links: diagnose names some files by their resolved path.) The copies are hashed
// before and after: no command writes to what it reads.
func TestGolden(t *testing.T) {
	var rnd [4]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		t.Fatal(err)
	}
	base := "/tmp/innoscope-golden-" + hex.EncodeToString(rnd[:])
	if err := os.Mkdir(base, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	t.Setenv("COLUMNS", "") // unlimited width, whatever the shell exports; widthGolden sets it
	g := goldenRun{base: base, tmp: filepath.Join(base, "tmp")}
	crash := filepath.Join(base, "crash")
	lab.CopyDir(t, filepath.Join(lab.Root(), "fixtures", "mariadb-10.11-crash"), crash)
	before := lab.HashTree(t, crash)
	g.run(t, goldenCrash, map[string]string{"$CRASH": crash})
	g.run(t, goldenHelp, nil)
	wide := filepath.Join(base, "崩溃📁数据")
	lab.CopyDir(t, filepath.Join(lab.Root(), "fixtures", "mariadb-10.11-crash"), wide)
	g.runWidths(t, map[string]string{"$CRASH": crash, "$WIDE": wide})
	if !reflect.DeepEqual(before, lab.HashTree(t, crash)) {
		t.Errorf("a command changed %s", crash)
	}
	t.Run("peer", func(t *testing.T) {
		real := filepath.Dir(filepath.Dir(peerFixture(t, "innodb_ruby/INNOCHECKSUM-VERDICTS.tsv")))
		peerFixture(t, "mysql-8.0.33-docker-sample/#ib_redo10")
		peer := filepath.Join(base, "peer")
		lab.CopyDir(t, real, peer)
		before := lab.HashTree(t, peer)
		g.run(t, goldenPeer, map[string]string{"$PEER": peer})
		if !reflect.DeepEqual(before, lab.HashTree(t, peer)) {
			t.Errorf("a command changed %s", peer)
		}
	})
	checkNoStaleGolden(t)
}

// checkNoStaleGolden fails on a golden file no case writes (a case renamed or removed).
func checkNoStaleGolden(t *testing.T) {
	want := map[string]bool{}
	for _, cs := range [][]goldenCase{goldenCrash, goldenHelp, goldenPeer, widthCases(80), widthCases(200), wideCases} {
		for _, gc := range cs {
			want[filepath.FromSlash(gc.name)+".golden"] = true
		}
	}
	dir := filepath.Join("testdata", "golden")
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if rel, _ := filepath.Rel(dir, p); !want[rel] {
			t.Errorf("%s: no case writes it; remove it", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// goldenRun holds the directories of one TestGolden run.
type goldenRun struct {
	base string // /tmp/innoscope-golden-XXXXXXXX
	tmp  string // base/tmp, emptied for each case
}

// run runs each case with the placeholders of vars (and $TMP) expanded in its arguments.
func (g goldenRun) run(t *testing.T, cases []goldenCase, vars map[string]string) {
	for _, gc := range cases {
		t.Run(gc.name, func(t *testing.T) {
			if err := os.RemoveAll(g.tmp); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(g.tmp, 0o755); err != nil {
				t.Fatal(err)
			}
			t.Setenv("TMPDIR", g.tmp) // verify's default temporary copy goes here too
			v := map[string]string{"$TMP": g.tmp}
			for k, p := range vars {
				v[k] = p
			}
			args := make([]string, len(gc.args))
			for i, a := range gc.args {
				args[i] = expandGolden(a, v)
			}
			out, errs, code := run(args...)
			got := fmt.Sprintf("$ innoscope %s\n# exit %d\n-- stdout --\n%s-- stderr --\n%s",
				g.paths(strings.Join(args, " ")), code, g.normalise(out), g.normalise(errs))
			if gc.files {
				got += "-- files left in $TMP --\n" + g.normalise(listTree(t, g.tmp))
			}
			compareGolden(t, filepath.Join("testdata", "golden", gc.name+".golden"), got)
		})
	}
}

// expandGolden replaces the placeholder at the start of an argument.
func expandGolden(a string, v map[string]string) string {
	for k, p := range v {
		if a == k || strings.HasPrefix(a, k+"/") {
			return p + a[len(k):]
		}
	}
	return a
}

// verifyTempName is the random part of verify's temporary directory.
var verifyTempName = regexp.MustCompile(`innoscope-verify-[0-9]+`)

// normalise replaces what depends on the machine or the run: the random part of the base
// directory's name (by as many '#'), the random name of verify's temporary copy, and the
// version in the help. A text that does not end in a newline gets one, marked.
func (g goldenRun) normalise(s string) string {
	s = verifyTempName.ReplaceAllString(s, "innoscope-verify-RANDOM")
	s = strings.ReplaceAll(s, "innoscope version "+Version, "innoscope version $VERSION")
	s = strings.ReplaceAll(s, "VERSION:\n   "+Version+"\n", "VERSION:\n   $VERSION\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n# (no newline at the end)\n"
	}
	return g.paths(s)
}

// paths replaces the random part of the base directory's name by as many '#'.
func (g goldenRun) paths(s string) string {
	return strings.ReplaceAll(s, g.base, g.base[:len(g.base)-8]+"########")
}

// listTree lists every file and directory under dir with its size, in name order.
func listTree(t *testing.T, dir string) string {
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			fmt.Fprintf(&b, "%s/\n", rel)
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d\n", rel, info.Size())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if b.Len() == 0 {
		return "(nothing)\n"
	}
	return b.String()
}

// compareGolden compares got with the golden file, or rewrites it with -update.
func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./cmd -run TestGolden -update writes it)", err)
	}
	if !bytes.Equal(want, []byte(got)) {
		t.Errorf("output differs from %s (-update rewrites it):\n%s", path, firstDiff(string(want), got))
	}
}

// firstDiff shows the first line where two texts differ, with a little context.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl || i >= len(w) || i >= len(g) {
			return fmt.Sprintf("line %d (of %d in the file, %d now):\n- %s\n+ %s", i+1, len(w), len(g), wl, gl)
		}
	}
	return "(equal)"
}
