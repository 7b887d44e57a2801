package analysis

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"innoscope/discovery"
	"innoscope/finding"
)

// writesOutsideFindings are the files outside the data directory that a server started on it
// writes (WRITES_OUTSIDE): the DATA DIRECTORY files its .isl links name (the server reads a
// link by its table's name: one no table has after recovery is not followed), and the files
// the log names by an absolute path (crash recovery opens a tablespace by the name of the log's
// FILE_MODIFY record, whatever the .isl says). In a `cp -a` copy of a data directory both still
// name the original's files, so the server started on the copy writes into the original's
// tables. A warning; an error when the log writes the file (page records or file operations
// for its tablespace) and another data directory beside this one links the same file while this
// one is the later copy (its redo log's inode changed after the other's: cp -a keeps times of
// modification, not of change).
func writesOutsideFindings(in Input) []finding.Finding {
	if in.Datadir == "" {
		return nil
	}
	root := discovery.ResolvePath(in.Datadir)
	type outside struct {
		path   string
		id     *uint32 // nil: unknown (a blank page 0, no log record)
		logged bool    // the log writes it
		how    string
	}
	files := map[string]*outside{}
	add := func(p string, id *uint32, how string) {
		if !filepath.IsAbs(p) {
			return
		}
		r := discovery.ResolvePath(p)
		if within(r, root) {
			return
		}
		if st, err := os.Stat(r); err != nil || !st.Mode().IsRegular() {
			return // the server cannot write what is not there (MISSING_FILE says so)
		}
		if o := files[r]; o != nil {
			if o.id == nil {
				o.id = id
			}
			if !strings.Contains(o.how, how) {
				o.how += " and " + how
			}
			return
		}
		files[r] = &outside{path: p, id: id, how: how}
	}
	reached := linkedTables(in)
	for _, t := range in.Spaces {
		if t.ISL != "" && t.Error == "" && (reached == nil || reached[islTable(in.Datadir, t.ISL)]) {
			add(t.Path, page0ID(t), "its link "+t.ISL)
		}
	}
	written := map[uint32]bool{}
	if in.Analysis != nil {
		for id := range in.Analysis.Pages {
			written[id.Space] = true
		}
		for id, s := range in.Analysis.Map.Spaces {
			for _, e := range s.Events {
				if e.Kind != Modify {
					written[id] = true
				}
			}
			for _, n := range s.Names {
				add(n, u32(id), "the redo log")
			}
		}
	}
	paths := make([]string, 0, len(files))
	for p, o := range files {
		o.logged = o.id != nil && written[*o.id]
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var fs []finding.Finding
	for _, p := range paths {
		o := files[p]
		f := finding.Finding{Severity: finding.Warning, Code: "WRITES_OUTSIDE", SpaceID: o.id, File: o.path,
			Message: fmt.Sprintf("starting mariadbd on this directory writes %s, which is outside it (named by %s)", o.path, o.how)}
		if o.logged {
			f.Message += "; its crash recovery applies the log to that file"
		}
		if other := laterCopyOf(in.Datadir, p); other != "" && o.logged {
			f.Severity = finding.Error
			f.Message += fmt.Sprintf("; %s, a data directory beside this one, links the same file and this directory is the later copy: starting mariadbd here changes %s's table", other, other)
		}
		f.Message += "; if this directory is a copy, that file is the original's: `innoscope recover --into` makes a copy whose links name its own files"
		fs = append(fs, f)
	}
	return fs
}

// within reports whether path is dir or below it (both resolved).
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// laterCopyOf returns a data directory beside datadir (an entry of its parent directory) whose
// .isl links name file too, when datadir's redo log changed after that directory's (datadir is
// the later copy); "" when there is none. At most 256 entries of the parent are looked at.
func laterCopyOf(datadir, file string) string {
	mine := logChange(datadir)
	if mine == 0 {
		return ""
	}
	parent := filepath.Dir(filepath.Clean(datadir))
	ents, err := os.ReadDir(parent)
	if err != nil {
		return ""
	}
	self, _ := os.Stat(datadir)
	for i, e := range ents {
		if i >= 256 {
			break
		}
		other := filepath.Join(parent, e.Name())
		st, err := os.Stat(other)
		if err != nil || !st.IsDir() || self != nil && os.SameFile(st, self) {
			continue
		}
		theirs := logChange(other)
		if theirs == 0 || theirs >= mine || !linksTo(other, file) {
			continue
		}
		return other
	}
	return ""
}

// logChange is the change time (ns) of dir's ib_logfile0; 0 when there is none.
func logChange(dir string) int64 {
	st, err := os.Stat(filepath.Join(dir, "ib_logfile0"))
	if err != nil {
		return 0
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	return sys.Ctim.Sec*1e9 + sys.Ctim.Nsec
}

// linksTo reports whether an .isl file of a database folder of dir names file.
func linksTo(dir, file string) bool {
	isls, _ := filepath.Glob(filepath.Join(dir, "*", "*.isl"))
	for _, isl := range isls {
		b, err := os.ReadFile(isl)
		if err == nil && len(b) < 4096 && discovery.ResolvePath(strings.TrimSpace(string(b))) == file {
			return true
		}
	}
	return false
}

// linkedTables are the tables (db/t) whose .isl links the server follows after recovery: those
// of the dictionary as recovery leaves it and those the DDL log completes or reverts (their
// name may come back). nil when the dictionary is unknown (every link counts).
func linkedTables(in Input) map[string]bool {
	if in.Dict == nil {
		return nil
	}
	out, _ := PendingDDL(in.Datadir)
	if out == nil {
		out = map[string]bool{}
	}
	for _, d := range Dictionary(in) {
		if !d.Deleted {
			out[d.Name] = true
		}
	}
	return out
}

// islTable is the table (db/t) whose link is the .isl file at isl.
func islTable(datadir, isl string) string {
	rel, err := filepath.Rel(discovery.ResolvePath(datadir), discovery.ResolvePath(isl))
	if err != nil {
		return ""
	}
	return filepath.ToSlash(strings.TrimSuffix(rel, ".isl"))
}
