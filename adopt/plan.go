// Package adopt makes a kit that attaches orphan InnoDB tables (a table's own files: its .ibd,
// its .frm, a partitioned table's .par and partition files) to a fresh MariaDB server of the
// same major version: the files to copy, an SQL script for CREATE TABLE and DISCARD
// TABLESPACE, one for IMPORT TABLESPACE, and a shell script that runs them and copies the
// files. It never writes where the files came from. A table that cannot be attached safely
// is refused, with the reason and the next step (its rows as SQL).
package adopt

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"innoscope/discovery"
	"innoscope/schema"
)

// Options are what adopt knows of the target server.
type Options struct {
	// ServerVersion is the target's version ("10.11" or "10.11.6"); "" assumes the
	// source's major version (the script checks the server it runs against).
	ServerVersion string
	// PageSize is the target's innodb_page_size in bytes; 0 assumes the source's (the
	// script checks).
	PageSize int
	// Frm is the .frm of the one table whose files are given, when it is not beside them.
	Frm string
}

// File is one tablespace file of a table: where it is and where it goes.
type File struct {
	Source string `json:"source"` // the file as found
	Kit    string `json:"kit"`    // the copy in the kit, relative to the kit's directory
	Target string `json:"target"` // where it goes, relative to the target's data directory
	Size   int64  `json:"size"`
	// Partition is the partition whose file this is; Staging the table it is imported into
	// before ALTER TABLE ... EXCHANGE PARTITION moves it into the partitioned table (MariaDB
	// 10.11 imports no partition directly).
	Partition string `json:"partition,omitempty"`
	Staging   string `json:"staging_table,omitempty"`
}

// Table is one table of the kit: its statement, its files and what was found about them;
// Refused is why it cannot be attached safely, Next what to do instead.
type Table struct {
	DB     string `json:"database"`
	Name   string `json:"table"`
	Frm    string `json:"frm,omitempty"`
	Par    string `json:"par,omitempty"`
	Files  []File `json:"files"`
	Create string `json:"create_table,omitempty"`
	// AddKeys are the secondary keys, added by ALTER TABLE after the import.
	AddKeys []string `json:"add_keys,omitempty"`
	// StagingCreate is the statement of a partitioned table without its partitioning: the
	// staging tables its partitions are imported into are made by it.
	StagingCreate string `json:"staging_create_table,omitempty"`
	RowFormat     string `json:"row_format,omitempty"`
	PageSize      int    `json:"page_size,omitempty"`
	// Version is the server version that wrote the .frm (MYSQL_VERSION_ID, e.g. 101106).
	Version int `json:"mysqld_version_id,omitempty"`
	// Instant: the clustered index root is an INSTANT page (columns added, dropped or
	// reordered instantly): MariaDB's IMPORT reads the metadata record from the file.
	Instant bool `json:"instant"`
	// AutoIncrement is the next AUTO_INCREMENT value the file keeps (PAGE_ROOT_AUTO_INC of
	// the clustered index root plus one, the largest of the partitions'); 0: none. The kit
	// sets it after the import: MariaDB 10.5's IMPORT TABLESPACE leaves the counter at 1.
	AutoIncrement uint64 `json:"auto_increment,omitempty"`
	// DataDirectory is the directory of a table created with DATA DIRECTORY (its .isl);
	// the kit attaches it in the target's data directory.
	DataDirectory string   `json:"data_directory,omitempty"`
	Notes         []string `json:"notes,omitempty"`
	Refused       string   `json:"refused,omitempty"`
	Next          string   `json:"next,omitempty"`
}

// group is what the arguments name for one table: its .frm and its .ibd files.
type group struct {
	db, table string // in the file-name encoding
	frm, par  string
	ibds      []string
	isl       map[string]string // .ibd -> the .isl that placed it
}

// resolve groups SRC arguments into tables: files (.ibd, .frm, .par) or a data directory
// followed by DB.TABLE names (none: every table in it).
func resolve(srcs []string) ([]*group, []string, error) {
	var groups []*group
	byKey := map[string]*group{}
	var dirs []string
	get := func(dir, db, table string) *group {
		key := filepath.Join(dir, table)
		g := byKey[key]
		if g == nil {
			g = &group{db: db, table: table, isl: map[string]string{}}
			byKey[key] = g
			groups = append(groups, g)
		}
		return g
	}
	addFile := func(path string) error {
		abs, err := filepath.Abs(path)
		if err != nil {
			return err
		}
		dir, base := filepath.Split(abs)
		dir = filepath.Clean(dir)
		dirs = append(dirs, dir)
		db := filepath.Base(dir)
		ext := strings.ToLower(filepath.Ext(base))
		name := strings.TrimSuffix(base, filepath.Ext(base))
		g := get(dir, db, schema.TableOf(name))
		switch ext {
		case ".frm", ".par":
			if ext == ".frm" {
				g.frm = abs
			} else {
				g.par = abs
			}
			for _, e := range []string{".frm", ".par"} {
				if _, err := os.Stat(filepath.Join(dir, name+e)); err == nil && e == ".frm" {
					g.frm = filepath.Join(dir, name+e)
				} else if err == nil {
					g.par = filepath.Join(dir, name+e)
				}
			}
			// The table's files beside it, when none was given.
			if len(g.ibds) == 0 {
				if err := beside(g, filepath.Join(dir, name)); err != nil {
					return err
				}
			}
		case ".ibd":
			g.ibds = append(g.ibds, abs)
			if g.frm == "" {
				g.frm = schema.FrmBeside(abs)
			}
			if par := filepath.Join(dir, schema.TableOf(name)+".par"); g.par == "" && name != schema.TableOf(name) {
				if _, err := os.Stat(par); err == nil {
					g.par = par
				}
			}
		case ".isl":
			b, err := os.ReadFile(abs)
			if err != nil {
				return err
			}
			ibd := strings.TrimSpace(string(b))
			g.ibds = append(g.ibds, ibd)
			g.isl[ibd] = abs
			if g.frm == "" {
				if _, err := os.Stat(filepath.Join(dir, schema.TableOf(name)+".frm")); err == nil {
					g.frm = filepath.Join(dir, schema.TableOf(name)+".frm")
				}
			}
		default:
			return fmt.Errorf("%s: give a table's .ibd, .frm or .par file, or a data directory and DB.TABLE names", path)
		}
		return nil
	}
	// fromDir adds the table db.table of the data directory dir: its .frm, and its .ibd or
	// partition files (or the .isl files placing them elsewhere).
	fromDir := func(dir, db, table string) error {
		base := filepath.Join(dir, db, table)
		var files []string
		for _, pat := range []string{base + ".frm", base + ".ibd", base + ".isl", base + "#[Pp]#*.ibd", base + "#[Pp]#*.isl"} {
			m, _ := filepath.Glob(pat)
			files = append(files, m...)
		}
		if len(files) == 0 {
			return fmt.Errorf("%s: no %s.frm, .ibd or .isl there: is %s the data directory, and %s.%s the table?", dir, base, dir, discovery.SQLName(db), discovery.SQLName(table))
		}
		for _, f := range files {
			if err := addFile(f); err != nil {
				return err
			}
		}
		return nil
	}
	for i := 0; i < len(srcs); i++ {
		src := srcs[i]
		fi, err := os.Stat(src)
		if err != nil {
			return nil, nil, err
		}
		if !fi.IsDir() {
			if err := addFile(src); err != nil {
				return nil, nil, err
			}
			continue
		}
		abs, err := filepath.Abs(src)
		if err != nil {
			return nil, nil, err
		}
		dirs = append(dirs, abs)
		named := 0
		for ; i+1 < len(srcs) && isTableName(srcs[i+1]); i++ {
			db, table, _ := strings.Cut(srcs[i+1], ".")
			if err := fromDir(abs, schema.FileName(db), schema.FileName(table)); err != nil {
				return nil, nil, err
			}
			named++
		}
		if named > 0 {
			continue
		}
		frms, err := schema.Files(abs, "")
		if err != nil {
			return nil, nil, err
		}
		for _, f := range frms {
			if filepath.Dir(f) == abs { // a MySQL general tablespace beside the database directories
				if err := addFile(f); err != nil {
					return nil, nil, err
				}
				continue
			}
			if err := fromDir(abs, filepath.Base(filepath.Dir(f)), schema.TableOf(strings.TrimSuffix(filepath.Base(f), filepath.Ext(f)))); err != nil {
				return nil, nil, err
			}
		}
	}
	for _, g := range groups {
		sort.Strings(g.ibds)
		g.ibds = dedupe(g.ibds)
	}
	return groups, dirs, nil
}

// beside adds to g the tablespace files of the table base (a path without extension): its
// .ibd, or the .isl placing it elsewhere, and its partitions'.
func beside(g *group, base string) error {
	for _, pat := range []string{base + ".ibd", base + ".isl", base + "#[Pp]#*.ibd", base + "#[Pp]#*.isl"} {
		m, _ := filepath.Glob(pat)
		for _, f := range m {
			if strings.HasSuffix(f, ".ibd") {
				g.ibds = append(g.ibds, f)
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			ibd := strings.TrimSpace(string(b))
			g.ibds = append(g.ibds, ibd)
			g.isl[ibd] = f
		}
	}
	return nil
}

// isTableName: arg is DB.TABLE, not a file that exists.
func isTableName(arg string) bool {
	if _, err := os.Stat(arg); err == nil {
		return false
	}
	db, table, ok := strings.Cut(arg, ".")
	return ok && db != "" && table != "" && !strings.ContainsRune(arg, os.PathSeparator)
}

func dedupe(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// frmVersion is the MYSQL_VERSION_ID a .frm was written by (bytes 51..54 of its header,
// little-endian; 0 when unreadable).
func frmVersion(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	var b [55]byte
	if _, err := f.ReadAt(b[:], 0); err != nil {
		return 0
	}
	return int(binary.LittleEndian.Uint32(b[51:]))
}

// majorOf is the major version of a MYSQL_VERSION_ID (101106 -> "10.11").
func majorOf(id int) string { return fmt.Sprintf("%d.%d", id/10000, id/100%100) }

// olderThan reports whether major version v ("10.5") is below major.minor.
func olderThan(v string, major, minor int) bool {
	var a, b int
	if _, err := fmt.Sscanf(v, "%d.%d", &a, &b); err != nil {
		return false
	}
	return a < major || a == major && b < minor
}

// parseMajor reads "10.11" or "10.11.6-MariaDB" as "10.11".
func parseMajor(v string) (string, error) {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return "", fmt.Errorf("--server-version %q: give the target's version as MAJOR.MINOR, e.g. 10.11", v)
	}
	a, err1 := strconv.Atoi(parts[0])
	b, err2 := strconv.Atoi(strings.TrimFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	if err1 != nil || err2 != nil {
		return "", fmt.Errorf("--server-version %q: give the target's version as MAJOR.MINOR, e.g. 10.11", v)
	}
	return fmt.Sprintf("%d.%d", a, b), nil
}
