package mysqldd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/schema"
)

// File is the name of the file that holds a MySQL 8 data dictionary, in the data directory.
const File = "mysql.ibd"

// Load reads the data dictionary of the MySQL 8 data directory of s: nil and no error when its
// data directory holds no mysql.ibd (MariaDB, MySQL 5.x).
func Load(s discovery.Layout) (*Dictionary, error) {
	p := filepath.Join(s.Datadir, File)
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return Read(p)
}

// Annotate gives each tablespace of ts the dictionary knows by space id its tables and the
// dictionary's file name.
func (d *Dictionary) Annotate(ts []discovery.Tablespace) {
	for i := range ts {
		if dt := d.BySpace(ts[i].SpaceID); dt != nil && ts[i].Error == "" {
			ts[i].Tables = dt.Tables
			if len(dt.Files) > 0 {
				ts[i].DDPath = dt.Files[0]
			}
		}
	}
}

// Shown names the tables of a tablespace for a message: "shop.g1, shop.g2", or the first three
// and how many more.
func Shown(tables []string) string {
	if len(tables) > 3 {
		return strings.Join(tables[:3], ", ") + fmt.Sprintf(" and %d more", len(tables)-3)
	}
	return strings.Join(tables, ", ")
}

// userSpace tells whether t is a file-per-table or general tablespace: not the system, the
// temporary, an undo tablespace or mysql.ibd (which the server finds by their own settings).
func userSpace(t Tablespace) bool {
	switch t.Name {
	case "mysql", "innodb_system", "innodb_temporary":
		return false
	}
	return t.HasSpaceID && t.SpaceID != 0 && t.SpaceID < 0xFFFF0000 && len(t.Files) > 0
}

// Resolve is the path of a dictionary file name: relative names ("./shop/t.ibd", "ts1.ibd",
// "../ext/ts.ibd") are relative to the data directory.
func Resolve(datadir, name string) string {
	if filepath.IsAbs(name) {
		return filepath.Clean(name)
	}
	return filepath.Join(datadir, name)
}

// Check compares the dictionary's datafiles with the files the scan of s found (ts), as MySQL 8
// does at start-up (WL#13065): a tablespace the known directories do not hold is opened where
// the dictionary places it, "in an unprotected location" (FR3), or ignored when no file is
// there; one in a unique innodb_undo_directory is noted (FR5). logged is the set of space ids
// the redo log changes after the checkpoint: recovery needs their files in the known
// directories, and stops without them. mysql8 selects the severities of --policy mysql8 (the
// server's own); otherwise the findings are information. It returns the files found at the
// dictionary's paths (FoundDictionary), to list beside ts.
func (d *Dictionary) Check(s discovery.Layout, ts []discovery.Tablespace, logged map[uint32]bool, mysql8 bool) ([]discovery.Tablespace, []finding.Finding) {
	found := map[uint32]discovery.Tablespace{}
	for _, t := range ts {
		if t.Error == "" && t.Note != discovery.NotePage0Zero {
			found[t.SpaceID] = t
		}
	}
	sev := func(s finding.Severity) finding.Severity {
		if !mysql8 {
			return finding.Info
		}
		return s
	}
	var placed []discovery.Tablespace
	var fs []finding.Finding
	for _, dt := range d.Tablespaces {
		if !userSpace(dt) {
			continue
		}
		id := dt.SpaceID
		what := fmt.Sprintf("tablespace %s (space id %d", dt.Name, id)
		if len(dt.Tables) > 0 {
			what += ", table " + Shown(dt.Tables)
		}
		what += ")"
		if t, ok := found[id]; ok {
			if t.Location == discovery.LocUndoDir {
				fs = append(fs, finding.Finding{Severity: sev(finding.Warning), Code: "UNDO_DIR_DATAFILE", SpaceID: u32(id), File: t.Path,
					Message: what + " is inside the unique innodb_undo_directory (the dictionary names it " + dt.Files[0] + "); MySQL 9.7.4 opens it there at start-up without a word, " +
						"but refuses to create a datafile in that directory (WL#13065 FR5: \"The DATAFILE location cannot be the undo directory\"): move it to the data directory or an innodb_directories entry"})
			}
			continue
		}
		p := Resolve(s.Datadir, dt.Files[0])
		t, err := discovery.DescribeAt(s, p)
		switch {
		case err != nil:
			sv := finding.Warning
			msg := what + ": no file at " + p + " (where the dictionary places it, as " + dt.Files[0] + ") and none of space id " + fmt.Sprint(id) +
				" in the known directories: MySQL ignores the tablespace at start-up (\"Cannot open datafile\", \"Ignoring tablespace\") and its tables cannot be opened"
			if logged[id] {
				sv = finding.Error
				msg += "; the redo log changes it after the checkpoint, so crash recovery stops and the server refuses to start (\"Could not find any file associated with the tablespace ID\")"
			}
			fs = append(fs, finding.Finding{Severity: sev(sv), Code: "MISSING_FILE", SpaceID: u32(id), File: p, Message: msg})
		case t.SpaceID != id:
			fs = append(fs, finding.Finding{Severity: sev(finding.Warning), Code: "MISSING_FILE", SpaceID: u32(id), File: p,
				Message: fmt.Sprintf("%s: the file where the dictionary places it holds space id %d, and no known directory holds space id %d: MySQL ignores the tablespace at start-up", what, t.SpaceID, id)})
		default:
			t.Tables, t.DDPath = dt.Tables, dt.Files[0]
			placed = append(placed, t)
			if t.Location == discovery.LocKnown {
				continue // a known directory below the data directory's scan depth, for instance
			}
			sv := finding.Warning
			msg := what + " is in an unprotected location: its file " + dt.Files[0] + " is outside the data directory and every innodb_directories entry; " +
				"MySQL opens it there at start-up, with \"[Warning] The datafile ... is in an unprotected location. This file cannot be recovered after a crash until this location is added to innodb_directories\" (WL#13065 FR3)"
			if t.Location == discovery.LocUndoDir {
				msg = what + " is inside the unique innodb_undo_directory, where the dictionary places it (" + dt.Files[0] + "); MySQL refuses to create a datafile there (WL#13065 FR5)"
			}
			if logged[id] {
				sv = finding.Error
				msg += "; the redo log changes it after the checkpoint, and crash recovery finds tablespaces only in the known directories: it stops and the server refuses to start (\"Could not find any file associated with the tablespace ID\") until the directory is added to innodb_directories"
			}
			code := "UNPROTECTED_LOCATION"
			if t.Location == discovery.LocUndoDir {
				code = "UNDO_DIR_DATAFILE"
			}
			fs = append(fs, finding.Finding{Severity: sev(sv), Code: code, SpaceID: u32(id), File: t.Path, Message: msg})
		}
	}
	sort.SliceStable(placed, func(i, j int) bool { return placed[i].SpaceID < placed[j].SpaceID })
	return placed, fs
}

func u32(v uint32) *uint32 { return &v }

// AnnotateFromSDI names the tables of each MySQL 8 datafile of ts from the SDI inside it, for a
// directory whose mysql.ibd is absent (files copied alone, a partial copy): the tables the SDI
// describes ("db.table"), no dictionary path. A file without SDI is left as it is.
func AnnotateFromSDI(ts []discovery.Tablespace) {
	for i := range ts {
		t := &ts[i]
		if t.Error != "" || t.Flags.FullCRC32 || !t.Flags.SDI() || t.FoundBy == discovery.FoundSystem || t.FoundBy == discovery.FoundTemporary {
			continue
		}
		recs, err := schema.ReadSDI(t.Path)
		if err != nil {
			continue
		}
		seen := map[string]bool{}
		for _, r := range recs {
			if o, err := schema.ParseSDITable(r.JSON); err == nil && !seen[o.Table.SchemaRef+"."+o.Table.Name] {
				seen[o.Table.SchemaRef+"."+o.Table.Name] = true
				t.Tables = append(t.Tables, o.Table.SchemaRef+"."+o.Table.Name)
			}
		}
		sort.Strings(t.Tables)
	}
}
