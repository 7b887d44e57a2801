package analysis

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"innoscope/discovery"
)

// ISLRedirect is an .isl of the source whose target does not exist while the file the redo log
// gives the table's tablespace does: the copy's .isl names that file instead, or, when that file
// is the table's own in the data directory (db/t.ibd beside db/t.isl), the copy has no .isl.
//
// MariaDB 10.11 leaves this state behind after RENAME TABLE of a DATA DIRECTORY table (or
// partition) across databases followed by TRUNCATE and a rename back: the file stays in the
// DATA DIRECTORY's old database folder (dict_table_t::rename_tablespace keeps the directory of
// the old path, os_file_make_new_pathname), while db/t.isl names DATA_DIR/db/t.ibd. Its crash
// recovery loads the tablespace into memory under the name of the log's FILE_MODIFY record
// (recv_spaces, fil_ibd_load) and opens the table by its space id from there, never reading the
// .isl; a server started without crash recovery (innoscope's copy, or the server's own recovered
// directory on its next start) follows the .isl and loses the table ("A link file was found
// named ... but the linked tablespace ... could not be opened read-only").
//
// It also leaves an .isl naming nothing beside a table that has no DATA DIRECTORY at all: RENAME
// TABLE db2.x TO db1.y of a DATA DIRECTORY table writes db1/y.isl naming DATA_DIR/db2/y.ibd, and
// DROP TABLE db1.y deletes the file and the link of the tablespace's name, which is taken from
// the file's path (db2/y.isl), so db1/y.isl stays. When db1.y is created again (no DATA
// DIRECTORY) after the checkpoint, the server's recovery opens ./db1/y.ibd by the log's name and
// never reads the link; a server started without recovery reads it first, logs four [ERROR]
// lines, and then opens ./db1/y.ibd (crash-sweep seeds 1071, 1123, 1125). The server itself
// deletes an .isl naming the table's own file (fil_ibd_open: "a link file was found with the
// default path in it"), so the copy has none (NoLink).
type ISLRedirect struct {
	ISL     string `json:"isl"`      // the source's .isl file
	Stale   string `json:"stale"`    // the path it names, which does not exist ("": no .isl at all)
	Target  string `json:"target"`   // the file the redo log names for the table's tablespace
	SpaceID uint32 `json:"space_id"` // the table's, in SYS_TABLES and the log
	Table   string `json:"table"`    // db/t as the dictionary will spell it after recovery
	// NoLink: Target is the table's own file in the data directory; the copy has no .isl.
	NoLink bool `json:"no_link,omitempty"`
}

// String says what the copy does differently from the source, and why (the table as SQL
// spells it).
func (r ISLRedirect) String() string {
	r.Table = discovery.SQLTableName(r.Table)
	if r.NoLink {
		return fmt.Sprintf("%s links to %s, which does not exist; the copy has no link: the redo log gives space %d of table %s its own file %s, from which the server's crash recovery opens the table without reading the link",
			r.ISL, r.Stale, r.SpaceID, r.Table, r.Target)
	}
	if r.Stale == "" {
		return fmt.Sprintf("%s does not exist although %s is a DATA DIRECTORY table; the copy gets it, naming %s: the redo log gives that file to space %d, and the server's crash recovery opens the table from it",
			r.ISL, r.Table, r.Target, r.SpaceID)
	}
	return fmt.Sprintf("%s links to %s, which does not exist; the copy's link names %s instead: the redo log gives that file to space %d of table %s, and the server's crash recovery opens the table from it",
		r.ISL, r.Stale, r.Target, r.SpaceID, r.Table)
}

// ISLRedirects finds the .isl files the copy must point elsewhere or leave out (see
// ISLRedirect): the .isl's target is missing, the dictionary as it will be after recovery
// (SYS_TABLES on disk with the log's renames) has a live table by the .isl's name whose
// tablespace the log names (after the checkpoint, so the server's recovery loads it by that
// name), and that file exists and carries the table's space id (or a blank page 0 the log
// rebuilds).
func ISLRedirects(in Input) []ISLRedirect {
	if in.Analysis == nil || in.Analysis.Map == nil || in.Dict == nil {
		return nil
	}
	// SYS_TABLES on disk with the log's renames and the rollback (not the replayed one: these
	// rules were judged against the server on it, crash-sweep seeds 1065, 1096, 1125).
	dict := dictionary(in, in.Dict, in.Indexes)
	// A name two rows end at (one row renamed by the log to the name another had on disk)
	// belongs to the renamed one: the other moved away in the same log.
	spaceOf := map[string]uint32{}
	renamed := map[string]bool{}
	for _, d := range dict {
		if d.Deleted || d.SpaceID == 0 || (renamed[d.Name] && !d.moved) {
			continue
		}
		spaceOf[d.Name], renamed[d.Name] = d.SpaceID, d.moved
	}
	logged := map[string]uint32{} // the last name the log gives a live tablespace → its id
	for id, s := range in.Analysis.Map.Spaces {
		if !s.Deleted && s.Name != "" {
			logged[absPath(in.Datadir, s.Name)] = id
		}
	}
	byPath := map[string]discovery.Tablespace{}
	for _, t := range in.Spaces {
		if t.Error == "" {
			byPath[discovery.ResolvePath(t.Path)] = t
		}
	}
	var out []ISLRedirect
	dd := discovery.ResolvePath(in.Datadir)
	for _, t := range in.Spaces {
		if !StaleISL(t) {
			continue
		}
		rel, err := filepath.Rel(dd, discovery.ResolvePath(t.ISL))
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		table := filepath.ToSlash(strings.TrimSuffix(rel, ".isl"))
		own := filepath.Join(dd, filepath.FromSlash(table)+".ibd")
		id, ok := spaceOf[table]
		if !ok {
			// A table created after the checkpoint has its SYS_TABLES row only in the log; the
			// file ./db/t.ibd beside the link is its own (only a table without DATA DIRECTORY
			// has it), and the log's name for it says which tablespace recovery loads there.
			if id, ok = logged[own]; !ok {
				continue
			}
		}
		s := in.Analysis.Map.Spaces[id]
		if s == nil || s.Deleted || s.Name == "" {
			continue
		}
		p := absPath(in.Datadir, s.Name)
		if p == discovery.ResolvePath(t.Path) || !holds(byPath, p, id) {
			continue
		}
		out = append(out, ISLRedirect{ISL: t.ISL, Stale: t.Path, Target: p, SpaceID: id, Table: table, NoLink: p == own})
	}
	// A DATA DIRECTORY table with no .isl of its own (RENAME TABLE across databases can leave it
	// in the old database's folder: crash-sweep seed 1065): the server without crash recovery
	// looks for ./db/t.ibd; the copy gets db/t.isl naming the file the log gives the table. Only
	// for a table whose name the log leaves as SYS_TABLES has it: a row whose tablespace the log
	// renames (RENAME swaps: crash-sweep seed 1096) no longer has that name after recovery, and
	// the table that does may well have no DATA DIRECTORY.
	for _, d := range dict {
		if d.Deleted || d.SpaceID == 0 || !d.DataDir() || d.moved || spaceOf[d.Name] != d.SpaceID {
			continue
		}
		isl := filepath.Join(dd, filepath.FromSlash(d.Name)+".isl")
		if _, err := os.Lstat(isl); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		s := in.Analysis.Map.Spaces[d.SpaceID]
		if s == nil || s.Deleted || s.Name == "" {
			continue
		}
		p := absPath(in.Datadir, s.Name)
		if discovery.Within(discovery.ResolvePath(p), dd) || !holds(byPath, p, d.SpaceID) {
			continue
		}
		out = append(out, ISLRedirect{ISL: isl, Target: p, SpaceID: d.SpaceID, Table: d.Name})
	}
	return out
}

// holds reports whether the file at p (resolved) is tablespace id to the server's recovery: its
// page 0 carries id, or is blank (created after the checkpoint: recovery defers it and the log
// rebuilds page 0). From the scan when it found the file, else read (a file only the log names:
// no link reaches it).
func holds(byPath map[string]discovery.Tablespace, p string, id uint32) bool {
	if t, ok := byPath[p]; ok {
		return t.SpaceID == id || t.Note == discovery.NotePage0Zero
	}
	return spaceIDOf(p) == id
}

// spaceIDOf is the space id on page 0 of the file at p; 0 when it is unreadable.
func spaceIDOf(p string) uint32 {
	f, err := discovery.OpenFile(p)
	if err != nil {
		return 0
	}
	defer f.Close()
	return f.FSP.SpaceID
}
