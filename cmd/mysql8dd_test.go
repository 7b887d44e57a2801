package cmd

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// mysql8Expected is, by space id, what the server's information_schema said of the dictionary
// the fixture's mysql.ibd holds: the tables (INNODB_TABLES, as innoscope names them) and the
// file name (FILES).
func mysql8Expected(t *testing.T) (map[uint32][]string, map[uint32]string, map[string]uint32) {
	tables, files, byName := map[uint32][]string{}, map[uint32]string{}, map[string]uint32{}
	for _, r := range lab.MySQL8Oracle(t, "innodb_tables.tsv") {
		id, _ := strconv.ParseUint(r[1], 10, 32)
		db, tb, _ := strings.Cut(r[0], "/")
		name := db + "." + tb
		if base, part, ok := strings.Cut(tb, "#p#"); ok {
			name = db + "." + base + " PARTITION " + part
		}
		tables[uint32(id)] = append(tables[uint32(id)], name)
	}
	for _, r := range lab.MySQL8Oracle(t, "files.tsv") {
		id, _ := strconv.ParseUint(r[0], 10, 32)
		files[uint32(id)], byName[r[2]] = filepath.Clean(r[1]), uint32(id)
	}
	for _, v := range tables {
		sort.Strings(v)
	}
	return tables, files, byName
}

// TestMySQL8DictionarySpacesMap: on the real MySQL 9.7.4 directory, `spaces` and `map` name each
// tablespace's tables and the dictionary's file name as the server's information_schema did,
// and the fixture stays byte-identical.
func TestMySQL8DictionarySpacesMap(t *testing.T) {
	dir := lab.MySQL8Fixture(t)
	before := lab.HashTree(t, dir)
	tables, files, _ := mysql8Expected(t)
	var ts []struct {
		Path    string   `json:"path"`
		SpaceID uint32   `json:"space_id"`
		Tables  []string `json:"tables"`
		DDPath  string   `json:"dd_path"`
	}
	undo := "--innodb-undo-directory=" + filepath.Join(dir, "undo")
	runJSON(t, &ts, "spaces", filepath.Join(dir, "data"), undo, "--innodb-directories="+filepath.Join(dir, "ext"), "--json")
	named := 0
	listed := map[uint32]bool{}
	for _, s := range ts {
		listed[s.SpaceID] = true
		want, ok := tables[s.SpaceID]
		if s.SpaceID == 4294967294 { // INNODB_TABLES hides the dictionary's own tables
			want = s.Tables
		}
		if ok || len(s.Tables) > 0 {
			got := append([]string(nil), s.Tables...)
			sort.Strings(got)
			if s.SpaceID != 4294967294 && !reflect.DeepEqual(got, want) {
				t.Errorf("space %d (%s): tables %v, the server listed %v", s.SpaceID, s.Path, got, want)
			}
			named++
		}
		if f, ok := files[s.SpaceID]; ok && filepath.Clean(s.DDPath) != f {
			t.Errorf("space %d (%s): dictionary path %q, information_schema.FILES says %q", s.SpaceID, s.Path, s.DDPath, f)
		}
	}
	if named < len(tables) {
		t.Errorf("%d tablespaces named, the server lists tables in %d", named, len(tables))
	}
	// Every file information_schema.FILES listed is there (the undo tablespaces undo_001 and
	// undo_002 too), except ibtmp1, which the fixture leaves out.
	for id, f := range files {
		if !listed[id] && filepath.Base(f) != "ibtmp1" {
			t.Errorf("space %d (%s, in information_schema.FILES) not listed", id, f)
		}
	}
	// spaces --space N: the table of the answer.
	for id, want := range tables {
		if id == 4294967294 {
			continue
		}
		var a struct {
			Table string `json:"table"`
		}
		runJSON(t, &a, "spaces", filepath.Join(dir, "data"), undo, "--innodb-directories="+filepath.Join(dir, "ext"), "--space", strconv.Itoa(int(id)), "--json")
		if a.Table != strings.Join(want, ", ") {
			t.Errorf("spaces --space %d: table %q, the server listed %v", id, a.Table, want)
		}
	}
	// The log renames space 2 (RENAME TABLE shop.orders TO shop.orders2, after the dictionary
	// pages were written) and creates space 8 (not in the dictionary on disk).
	var m []struct {
		ID     uint32   `json:"space_id"`
		Name   string   `json:"name"`
		Tables []string `json:"tables"`
		DDPath string   `json:"dd_path"`
	}
	runJSON(t, &m, "map", filepath.Join(dir, "data"), undo, "--json")
	if len(m) == 0 {
		t.Fatal("map: no space")
	}
	for _, s := range m {
		want := tables[s.ID]
		if !reflect.DeepEqual(s.Tables, want) || (files[s.ID] != "" && filepath.Clean(s.DDPath) != files[s.ID]) {
			t.Errorf("map: space %d (%s): tables %v, dictionary path %q; the server listed %v, %q", s.ID, s.Name, s.Tables, s.DDPath, want, files[s.ID])
		}
	}
	if after := lab.HashTree(t, dir); !reflect.DeepEqual(before, after) {
		t.Error("the fixture changed")
	}
}

// mysql8Verdict is what the server did on a layout of the fixture (fixtures/mysql8dd/verdicts).
type mysql8Verdict struct {
	started     bool
	missingIDs  []uint32          // "Could not find any file associated with the tablespace ID: N"
	unprotected map[string]string // tablespace name -> the datafile the warning names
}

func readVerdict(t *testing.T, name string) mysql8Verdict {
	f, err := os.Open(filepath.Join("../fixtures/mysql8dd/verdicts", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v := mysql8Verdict{unprotected: map[string]string{}}
	missing := regexp.MustCompile(`Could not find any file associated with the tablespace ID: (\d+)`)
	unprot := regexp.MustCompile(`The datafile '([^']+)' for tablespace (\S+) is in an unprotected location`)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if m := missing.FindStringSubmatch(l); m != nil {
			id, _ := strconv.ParseUint(m[1], 10, 32)
			v.missingIDs = append(v.missingIDs, uint32(id))
		}
		if m := unprot.FindStringSubmatch(l); m != nil {
			v.unprotected[m[2]] = m[1]
		}
		if strings.Contains(l, "ready for connections") {
			v.started = true
		}
	}
	return v
}

// TestMySQL8DictionaryPolicy: `diagnose --policy mysql8` on four layouts of the real directory
// agrees with what the same MySQL server did on them (verdicts/): a space the log changes that
// no known directory holds stops recovery (an error, exit 1); datafiles the dictionary places
// outside the known directories are "in an unprotected location" (warnings: the server starts);
// datafiles in the unique undo directory do not stop it. The default policy (auto) judges the
// directory so too: its mysql.ibd makes it MySQL 8's (before, the default said "mariadbd will
// start" where this server aborted).
func TestMySQL8DictionaryPolicy(t *testing.T) {
	_, _, byName := mysql8Expected(t)
	cases := []struct {
		verdict, undo, dirs string
		moveLate, undoToExt bool
	}{
		{verdict: "sC.txt", undo: "undo"},
		{verdict: "sD.txt", undo: "undo", dirs: "ext"},
		{verdict: "sE.txt", undo: "undo", moveLate: true},
		{verdict: "sF.txt", undo: "ext", undoToExt: true},
	}
	for _, c := range cases {
		for _, pol := range []string{"mysql8", ""} { // "": the default (auto), mysql8 on this directory
			name := strings.TrimSuffix(c.verdict, ".txt") + "/" + pol
			if pol == "" {
				name += "default"
			}
			t.Run(name, func(t *testing.T) {
				v := readVerdict(t, c.verdict)
				dir := lab.MySQL8Fixture(t)
				if c.moveLate {
					if err := os.Rename(filepath.Join(dir, "ext/ts_late.ibd"), filepath.Join(dir, "data/ts_late.ibd")); err != nil {
						t.Fatal(err)
					}
				}
				if c.undoToExt {
					for _, u := range []string{"undo_001", "undo_002"} {
						if err := os.Rename(filepath.Join(dir, "undo", u), filepath.Join(dir, "ext", u)); err != nil {
							t.Fatal(err)
						}
					}
				}
				args := []string{"diagnose", filepath.Join(dir, "data"), "--json", "--innodb-undo-directory=" + filepath.Join(dir, c.undo)}
				if pol != "" {
					args = append(args, "--policy", pol)
				}
				if c.dirs != "" {
					args = append(args, "--innodb-directories="+filepath.Join(dir, c.dirs))
				}
				out, errs, code := run(args...)
				var d struct {
					Verdict struct {
						Sentence string `json:"sentence"`
					} `json:"verdict"`
					Findings []struct {
						Severity string  `json:"severity"`
						Code     string  `json:"code"`
						SpaceID  *uint32 `json:"space_id"`
						File     string  `json:"file"`
						Message  string  `json:"message"`
					} `json:"findings"`
				}
				if err := json.Unmarshal([]byte(out), &d); err != nil {
					t.Fatalf("exit %d: %v\n%s\n%s", code, err, out, errs)
				}
				errors := 0
				unprot := map[uint32]string{}
				missing := map[uint32]string{}
				for _, f := range d.Findings {
					t.Logf("%s %s %v %s: %.160s", f.Severity, f.Code, f.SpaceID, f.File, f.Message)
					if f.Severity == "error" {
						errors++
					}
					if f.SpaceID == nil {
						continue
					}
					switch f.Code {
					case "UNPROTECTED_LOCATION":
						unprot[*f.SpaceID] = f.Severity
					case "MISSING_FILE":
						missing[*f.SpaceID] = f.Severity
					}
				}
				if !strings.HasPrefix(d.Verdict.Sentence, "mysqld ") {
					t.Errorf("verdict %q: the server of this directory is mysqld", d.Verdict.Sentence)
				}
				if !v.started {
					if code != ExitFindings || errors == 0 || !strings.Contains(d.Verdict.Sentence, "refuse to start") {
						t.Errorf("the server aborted, innoscope exits %d with %d errors: %q", code, errors, d.Verdict.Sentence)
					}
					for _, id := range v.missingIDs {
						if missing[id] != "error" {
							t.Errorf("the server found no file for space %d and stopped; innoscope: %q", id, missing[id])
						}
					}
					return
				}
				if errors > 0 || code != ExitClean {
					t.Errorf("the server started; innoscope exits %d with %d errors", code, errors)
				}
				for name, file := range v.unprotected {
					id, ok := byName[name]
					if !ok {
						t.Fatalf("tablespace %s of the verdict is not in information_schema.FILES", name)
					}
					p := file
					if !filepath.IsAbs(p) {
						p = filepath.Join(dir, "data", p)
					}
					if _, err := os.Stat(p); err != nil {
						// The absolute DATA DIRECTORY of shop.far held the file when the server ran;
						// here nothing is there: the server would ignore the tablespace.
						if missing[id] != "warning" {
							t.Errorf("%s (space %d): no file at %s; innoscope: %q, want a MISSING_FILE warning", name, id, p, missing[id])
						}
						continue
					}
					if unprot[id] != "warning" {
						t.Errorf("%s (space %d): the server warns that %s is in an unprotected location; innoscope: %q", name, id, file, unprot[id])
					}
					delete(unprot, id)
				}
				for id := range unprot {
					t.Errorf("space %d: innoscope says unprotected, the server did not", id)
				}
			})
		}
	}
}

// TestMySQL8SpacesFromSDI: MySQL 8.0 and 8.4 datafiles without their mysql.ibd (the innodb_ruby
// sakila directories, written by real servers) are named from the SDI inside each file; the
// server names a file-per-table file db/table.ibd, an independent witness of the same name.
func TestMySQL8SpacesFromSDI(t *testing.T) {
	for _, v := range []string{"8.0", "8.4"} {
		dir := peerFixture(t, filepath.Join("innodb_ruby/sakila", v))
		before := lab.HashTree(t, dir)
		out, errs, _ := run("spaces", dir, "--json")
		var ts []struct {
			Path   string   `json:"path"`
			Error  string   `json:"error"`
			Tables []string `json:"tables"`
		}
		if err := json.Unmarshal([]byte(out), &ts); err != nil {
			t.Fatalf("%s: %v\n%s\n%s", v, err, out, errs)
		}
		n := 0
		for _, s := range ts {
			if s.Error != "" || !strings.HasSuffix(s.Path, ".ibd") {
				continue
			}
			want := filepath.Base(filepath.Dir(s.Path)) + "." + strings.TrimSuffix(filepath.Base(s.Path), ".ibd")
			if !reflect.DeepEqual(s.Tables, []string{want}) {
				t.Errorf("%s %s: tables %v, want [%s]", v, s.Path, s.Tables, want)
			}
			n++
		}
		if n < 14 {
			t.Errorf("%s: %d datafiles named", v, n)
		}
		if after := lab.HashTree(t, dir); !reflect.DeepEqual(before, after) {
			t.Errorf("%s: the fixtures changed", v)
		}
	}
}

// TestMySQL8FilesAloneDiagnose: `diagnose` on the sakila directories of MySQL 8.0 and 8.4
// (the table files a real server wrote, no mysql.ibd, no redo log) judges them as MySQL's
// (their datafiles carry the SDI flag): mysqld refuses to start without its log, and the next
// step is reading each table from its own file, not `recover --salvage`, which makes no copy of
// a MySQL directory. Before, the default policy said "mariadbd will refuse to start" and named
// the salvage.
func TestMySQL8FilesAloneDiagnose(t *testing.T) {
	for _, v := range []string{"8.0", "8.4"} {
		dir := peerFixture(t, filepath.Join("innodb_ruby/sakila", v))
		out, errs, code := run("diagnose", "--json", dir)
		var d struct {
			Verdict struct {
				Sentence string `json:"sentence"`
			} `json:"verdict"`
			Findings []struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"findings"`
		}
		if err := json.Unmarshal([]byte(out), &d); err != nil || code != ExitFindings {
			t.Fatalf("%s: exit %d: %v\n%s", v, code, err, errs)
		}
		if !strings.HasPrefix(d.Verdict.Sentence, "mysqld will refuse to start") {
			t.Errorf("%s: verdict %q", v, d.Verdict.Sentence)
		}
		for _, f := range d.Findings {
			if f.Code == "LOG_UNREADABLE" && (!strings.Contains(f.Message, "innoscope rows FILE.ibd") || strings.Contains(f.Message, "--salvage")) {
				t.Errorf("%s: LOG_UNREADABLE: %s", v, f.Message)
			}
		}
	}
}
