package analysis

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"innoscope/discovery"
	"innoscope/logformat/redo"
)

// SpaceSources is what the three sources of a data directory say about tablespace ids: the
// files' page 0 (ts), the redo log's file records from the checkpoint (log: nil when the log
// cannot be read) and SYS_TABLES (dict: nil when it cannot be read).
type SpaceSources struct {
	datadir string
	ts      []discovery.Tablespace
	log     *Map
	logErr  string
	dict    []discovery.DictTable
	dictErr string
	// logIDs maps the resolved path of each file the log names (its last name, not deleted)
	// to the id the log gives it.
	logIDs map[string]uint32
}

// ReadSpaceSources reads the log of s (scan bounds its reading) and the dictionary beside the
// already scanned tablespaces ts; what cannot be read is noted, not fatal (the answer says which
// sources it had).
func ReadSpaceSources(s discovery.Layout, ts []discovery.Tablespace, scan redo.ScanOptions) *SpaceSources {
	src := &SpaceSources{datadir: s.Datadir, ts: ts, logIDs: map[string]uint32{}}
	if a, err := readLayoutAnalysis(s, scan); err != nil {
		src.logErr = err.Error()
	} else if a != nil && a.Map != nil {
		src.log = a.Map
		for _, sp := range a.Map.Sorted() {
			if !sp.Deleted && sp.Name != "" {
				src.logIDs[discovery.ResolvePath(SourcePath(s.Datadir)(sp.Name))] = sp.ID
			}
		}
	}
	if sys, err := discovery.OpenFile(filepath.Join(s.SystemFile())); err != nil {
		src.dictErr = err.Error()
	} else {
		if src.dict, err = discovery.ReadDictTables(sys); err != nil {
			src.dictErr = err.Error()
		}
		sys.Close()
	}
	return src
}

// BlankPage0 tells whether a found file's page 0 is all zero (its space id is unknown there).
func BlankPage0(t discovery.Tablespace) bool { return t.Note == discovery.NotePage0Zero }

// LogIDOf is the id the log gives the file at path, if it names it.
func (src *SpaceSources) LogIDOf(path string) (uint32, bool) {
	id, ok := src.logIDs[discovery.ResolvePath(path)]
	return id, ok
}

// SpaceFile is one file a source ties to the space.
type SpaceFile struct {
	Path     string  `json:"path"`
	OnDisk   bool    `json:"on_disk"`
	Page0ID  *uint32 `json:"page0_space_id"` // null: page 0 is all zero, or the file is absent
	LogID    *uint32 `json:"log_space_id"`   // the id the log's file records give this path
	Pages    int64   `json:"pages"`
	Page0LSN uint64  `json:"page0_lsn"`
	Note     string  `json:"note,omitempty"`
}

// SpaceAnswer is `spaces --space N`: one tablespace id, as the three sources see it.
type SpaceAnswer struct {
	SpaceID uint32 `json:"space_id"`
	Table   string `json:"table"` // db.table (a partition: db.t#P#p0)
	File    string `json:"file"`  // the file the server opens for it
	OnDisk  bool   `json:"on_disk"`
	// Trusted is the source File and Table come from: "redo log", "dictionary" or "page 0".
	Trusted string                `json:"trusted"`
	Why     string                `json:"why"`
	Page0   []SpaceFile           `json:"page0"` // files whose page 0 (or, blank, the log) gives the id
	Log     *Space                `json:"log"`   // the log's file records for the id (null: none)
	Dict    []discovery.DictTable `json:"dictionary"`
	Sources []string              `json:"unreadable_sources,omitempty"`
}

// Lookup merges what page 0, the log and the dictionary say about space id.
func (src *SpaceSources) Lookup(id uint32) (*SpaceAnswer, error) {
	a := &SpaceAnswer{SpaceID: id, Dict: []discovery.DictTable{}, Page0: []SpaceFile{}}
	for _, t := range src.ts {
		lid, named := src.LogIDOf(t.Path)
		blank := BlankPage0(t)
		if !(t.Error == "" && !blank && t.SpaceID == id) && !(blank && named && lid == id) {
			continue
		}
		f := SpaceFile{Path: t.Path, OnDisk: true, Pages: t.Pages, Page0LSN: t.FirstPageLSN, Note: t.Note}
		if !blank {
			v := t.SpaceID
			f.Page0ID = &v
		}
		if named {
			f.LogID = &lid
		}
		a.Page0 = append(a.Page0, f)
	}
	if src.log != nil {
		a.Log = src.log.Spaces[id]
	}
	for _, d := range src.dict {
		if d.SpaceID == id && !d.Deleted && id != 0 {
			a.Dict = append(a.Dict, d)
		}
	}
	if src.logErr != "" {
		a.Sources = append(a.Sources, "redo log: "+src.logErr)
	}
	if src.dictErr != "" {
		a.Sources = append(a.Sources, "dictionary: "+src.dictErr)
	}
	switch {
	case a.Log != nil && !a.Log.Deleted:
		a.Trusted, a.File = "redo log", SourcePath(src.datadir)(a.Log.Name)
		a.Why = "the log changes the tablespace after the checkpoint: crash recovery opens it by the log's last name for it, and the table takes that name"
	case a.Log != nil:
		a.Trusted, a.File = "redo log", SourcePath(src.datadir)(a.Log.Name)
		a.Why = "the log deletes the tablespace after the checkpoint: crash recovery deletes its file"
	case len(a.Dict) > 0:
		a.Trusted, a.File = "dictionary", SourcePath(src.datadir)("./"+a.Dict[0].Name+".ibd")
		a.Why = "the log does not name it: the server opens the table's file (or its .isl) by SYS_TABLES"
		for _, f := range a.Page0 {
			if strings.HasSuffix(f.Path, ".ibd") && strings.TrimSuffix(f.Path, ".ibd") != strings.TrimSuffix(a.File, ".ibd") && len(a.Page0) == 1 {
				a.File = f.Path // a DATA DIRECTORY table, reached through its .isl
			}
		}
	case len(a.Page0) > 0:
		a.Trusted, a.File = "page 0", a.Page0[0].Path
		a.Why = "neither the log nor the dictionary names it: only the file's page 0 carries the id"
	default:
		return nil, fmt.Errorf("space %d: no file's page 0, no redo log record and no dictionary row names it", id)
	}
	a.Table = fileTable(a.File)
	if len(a.Dict) > 0 {
		db, _, _ := strings.Cut(a.Dict[0].Name, "/")
		switch {
		case a.Trusted != "redo log" || a.Table == "":
			a.Table = strings.ReplaceAll(a.Dict[0].Name, "/", ".")
		case a.Log != nil && filepath.IsAbs(a.Log.Name):
			// A DATA DIRECTORY file stays in the folder of the database it was created in
			// (a rename changes only its file name): the database is the dictionary's.
			_, t, _ := strings.Cut(a.Table, ".")
			a.Table = db + "." + t
		}
	}
	if id == 0 {
		a.Table = "(system tablespace)"
	}
	_, err := os.Stat(a.File)
	a.OnDisk = err == nil
	return a, nil
}

// fileTable is db.t for a datafile path .../db/t.ibd ("" for another file).
func fileTable(path string) string {
	if !strings.HasSuffix(path, ".ibd") {
		return ""
	}
	parts := strings.Split(strings.TrimSuffix(path, ".ibd"), "/")
	if len(parts) < 2 {
		return ""
	}
	return parts[len(parts)-2] + "." + parts[len(parts)-1]
}

// readLayoutAnalysis is ReadLog's analysis of the log of s.
func readLayoutAnalysis(s discovery.Layout, scan redo.ScanOptions) (*Analysis, error) {
	a, _, _, err := readLayoutLog(s, scan)
	return a, err
}

// ShownID is a file's space id as a table shows it: unknown ("?") when page 0 is all zero or
// unreadable, with the id the log gives the file when it names it.
func (src *SpaceSources) ShownID(t discovery.Tablespace) string {
	if !BlankPage0(t) && t.Error == "" {
		return fmt.Sprint(t.SpaceID)
	}
	if id, ok := src.LogIDOf(t.Path); ok {
		return fmt.Sprintf("? (log: %d)", id)
	}
	return "?"
}
