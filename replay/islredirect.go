package replay

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
// gives the table's tablespace does: the copy's .isl names that file instead.
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
type ISLRedirect struct {
	ISL     string `json:"isl"`      // the source's .isl file
	Stale   string `json:"stale"`    // the path it names, which does not exist ("": no .isl at all)
	Target  string `json:"target"`   // the file the redo log names for the table's tablespace
	SpaceID uint32 `json:"space_id"` // the table's, in SYS_TABLES and the log
	Table   string `json:"table"`    // db/t as SYS_TABLES spells it
}

// String says what the copy does differently from the source, and why.
func (r ISLRedirect) String() string {
	if r.Stale == "" {
		return fmt.Sprintf("%s does not exist although %s is a DATA DIRECTORY table; the copy gets it, naming %s: the redo log gives that file to space %d, and the server's crash recovery opens the table from it",
			r.ISL, r.Table, r.Target, r.SpaceID)
	}
	return fmt.Sprintf("%s links to %s, which does not exist; the copy's link names %s instead: the redo log gives that file to space %d of table %s, and the server's crash recovery opens the table from it",
		r.ISL, r.Stale, r.Target, r.SpaceID, r.Table)
}

// ISLRedirects finds the .isl files the copy must point elsewhere (see ISLRedirect): the .isl's
// target is missing, SYS_TABLES has a live row by the .isl's name whose tablespace the log
// names (after the checkpoint, so the server's recovery loads it by that name), and that file
// exists and carries the row's space id.
func ISLRedirects(in Input) []ISLRedirect {
	if in.Analysis == nil || in.Analysis.Map == nil || in.Dict == nil {
		return nil
	}
	spaceOf := map[string]uint32{}
	for _, d := range in.Dict {
		if !d.Deleted && d.SpaceID != 0 {
			spaceOf[d.Name] = d.SpaceID
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
		id, ok := spaceOf[table]
		if !ok {
			continue
		}
		s := in.Analysis.Map.Spaces[id]
		if s == nil || s.Deleted || s.Name == "" {
			continue
		}
		p := absPath(in.Datadir, s.Name)
		if p == discovery.ResolvePath(t.Path) || spaceIDOf(byPath, p) != id {
			continue
		}
		out = append(out, ISLRedirect{ISL: t.ISL, Stale: t.Path, Target: p, SpaceID: id, Table: table})
	}
	// A DATA DIRECTORY table with no .isl of its own (RENAME TABLE across databases can leave it
	// in the old database's folder: crash-sweep seed 1065): the server without crash recovery
	// looks for ./db/t.ibd; the copy gets db/t.isl naming the file the log gives the table.
	for _, d := range in.Dict {
		if d.Deleted || d.SpaceID == 0 || !d.DataDir() {
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
		if within(discovery.ResolvePath(p), dd) || spaceIDOf(byPath, p) != d.SpaceID {
			continue
		}
		out = append(out, ISLRedirect{ISL: isl, Target: p, SpaceID: d.SpaceID, Table: d.Name})
	}
	return out
}

// spaceIDOf is the space id on page 0 of the file at p (resolved): from the scan when it found
// the file, else read (a file only the log names: no link reaches it); 0 when it is unreadable.
func spaceIDOf(byPath map[string]discovery.Tablespace, p string) uint32 {
	if t, ok := byPath[p]; ok {
		return t.SpaceID
	}
	f, err := discovery.OpenFile(p)
	if err != nil {
		return 0
	}
	defer f.Close()
	return f.FSP.SpaceID
}
