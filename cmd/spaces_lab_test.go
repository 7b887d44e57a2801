package cmd

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"innoscope/discovery"
	"innoscope/internal/lab"
)

// sysTablespace is one row of the live server's INNODB_SYS_TABLESPACES, recorded by the lab.
type sysTablespace struct {
	Space    uint32
	Name     string
	Flag     uint32
	PageSize int
	Filename string
}

func readSysTablespaces(t *testing.T, dir string) []sysTablespace {
	f, err := os.Open(filepath.Join(dir, "sys_tablespaces.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []sysTablespace
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 5 {
			t.Fatalf("sys_tablespaces.tsv: %q", sc.Text())
		}
		sp, _ := strconv.ParseUint(c[0], 10, 32)
		fl, _ := strconv.ParseUint(c[2], 10, 32)
		ps, _ := strconv.Atoi(c[3])
		out = append(out, sysTablespace{uint32(sp), c[1], uint32(fl), ps, c[4]})
	}
	return out
}

func spacesOf(t *testing.T, args ...string) []discovery.Tablespace {
	t.Helper()
	out, errs, code := run(append([]string{"spaces", "--json", "--fail-on", "none"}, args...)...)
	var ts []discovery.Tablespace
	if err := json.Unmarshal([]byte(out), &ts); err != nil || code != ExitClean {
		t.Fatalf("spaces %v: exit %d %v\n%s", args, code, err, errs)
	}
	return ts
}

// memFlags are FSP flag bits the server keeps in memory only (FSP_FLAGS_MEM_*: DATA_DIR and the
// page_compression level); INNODB_SYS_TABLESPACES shows them, page 0 does not store them.
const memFlags = 0xf8000000

// TestSpacesAgainstServer: for every lab scenario, `spaces` finds exactly the tablespaces the
// live server listed in INNODB_SYS_TABLESPACES before the crash, each with the same space id,
// page size and flags, plus the undo tablespaces (which that view does not list).
func TestSpacesAgainstServer(t *testing.T) {
	for _, name := range append(append([]string{}, scenarios...), formatScenarios...) {
		t.Run(name, func(t *testing.T) {
			s := lab.Get(t, name)
			sys := readSysTablespaces(t, s.Dir)
			ts := spacesOf(t, s.Crashed)
			byPath := map[string]discovery.Tablespace{}
			for _, x := range ts {
				byPath[filepath.Clean(x.Path)] = x
				if x.Error != "" {
					t.Errorf("%s: %s", x.Path, x.Error)
				}
			}
			created := createdInLog(t, s.Crashed)
			for _, row := range sys {
				p := row.Filename
				if !filepath.IsAbs(p) {
					p = filepath.Join(s.Crashed, p)
				}
				x, ok := byPath[filepath.Clean(p)]
				if !ok && row.Space == 0xfffffffe {
					// A clean shutdown deletes the temporary tablespace; the server says so.
					if b, _ := os.ReadFile(filepath.Join(s.Dir, "before.err")); !strings.Contains(string(b), "Removed temporary tablespace data file") {
						t.Errorf("%s missing, and the server did not remove it", p)
					}
					continue
				}
				if !ok {
					t.Errorf("server's %s (space %d, %s) not found", row.Name, row.Space, row.Filename)
					continue
				}
				delete(byPath, filepath.Clean(p))
				if x.Note == "page 0 is all zero" {
					// Created after the checkpoint and never flushed: only the redo log says
					// which space it is (FILE_CREATE, possibly renamed into this name).
					if created[row.Filename] != row.Space {
						t.Errorf("%s: page 0 is zero and the log does not create space %d under that name (%v)", p, row.Space, created)
					}
					continue
				}
				if x.SpaceID != row.Space || x.PhysicalPageSize != row.PageSize {
					t.Errorf("%s: space %d page size %d; server: space %d page size %d", p, x.SpaceID, x.PhysicalPageSize, row.Space, row.PageSize)
				}
				if row.Space != 0xfffffffe && x.Flags.Raw != row.Flag&^memFlags {
					t.Errorf("%s: flags 0x%x; server 0x%x", p, x.Flags.Raw, row.Flag)
				}
				wantFound := discovery.FoundScan
				switch {
				case strings.HasPrefix(filepath.Base(row.Filename), "undo"):
					wantFound = discovery.FoundUndo
				case row.Space == 0:
					wantFound = discovery.FoundSystem
				case row.Space == 0xfffffffe:
					wantFound = discovery.FoundTemporary
				case filepath.IsAbs(row.Filename):
					wantFound = discovery.FoundISL
				}
				if x.FoundBy != wantFound {
					t.Errorf("%s: found by %s, want %s", p, x.FoundBy, wantFound)
				}
				wantLoc := discovery.LocKnown
				if filepath.IsAbs(row.Filename) {
					wantLoc = discovery.LocUnprotected // DATA DIRECTORY outside innodb_directories
				}
				if x.Location != wantLoc {
					t.Errorf("%s: location %s, want %s", p, x.Location, wantLoc)
				}
			}
			for p, x := range byPath {
				t.Errorf("%s (space %d) is not known to the server", p, x.SpaceID)
			}
		})
	}
}

// createdInLog maps the file names that FILE_CREATE records (followed through FILE_RENAME) leave
// in the redo log of dir to their space ids.
func createdInLog(t *testing.T, dir string) map[string]uint32 {
	out, _, code := run("log", "records", "--json", "--type", "FILE_CREATE,FILE_RENAME", dir)
	if code != ExitClean {
		t.Fatalf("log records: exit %d", code)
	}
	names := map[string]uint32{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r recordJSON
		if json.Unmarshal([]byte(line), &r) != nil {
			continue
		}
		if r.Type == "FILE_CREATE" {
			names[r.Name] = r.Space
		} else if names[r.Name] == r.Space {
			delete(names, r.Name)
			names[r.NewName] = r.Space
		}
	}
	return names
}

// TestSpacesLocations: naming the DATA DIRECTORY in --innodb-directories makes it known, and a
// datafile placed in a unique undo directory is reported there (on copies of real files).
func TestSpacesLocations(t *testing.T) {
	s := lab.Get(t, "data_directory")
	ext := filepath.Join(s.Dir, "ext")
	for _, x := range spacesOf(t, s.Crashed, "--innodb-directories", ext) {
		if x.Location != discovery.LocKnown {
			t.Errorf("%s: %s with --innodb-directories %s", x.Path, x.Location, ext)
		}
	}
	f := lab.Get(t, "formats_default")
	dir := t.TempDir()
	data, undo := filepath.Join(dir, "data"), filepath.Join(dir, "undo")
	lab.CopyDir(t, f.Crashed, data)
	os.Mkdir(undo, 0o755)
	b, _ := os.ReadFile(filepath.Join(data, "db", "dyn.ibd"))
	os.WriteFile(filepath.Join(undo, "stray.ibd"), b, 0o644)
	out, _, code := run("spaces", "--json", data, "--innodb-undo-directory", undo, "--fail-on", "warning")
	var ts []discovery.Tablespace
	json.Unmarshal([]byte(out), &ts)
	n := 0
	for _, x := range ts {
		if x.Location == discovery.LocUndoDir {
			n++
			if filepath.Base(x.Path) != "stray.ibd" {
				t.Errorf("%s in the undo directory", x.Path)
			}
		}
	}
	if n != 1 || code != ExitFindings {
		t.Errorf("%d undo-dir datafiles, exit %d", n, code)
	}
}
