package discovery

import (
	"bytes"
	"errors"
	"fmt"
	"innoscope/internal/regular"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Locations: where a datafile lives relative to the directories the server knows.
const (
	LocKnown       = "known"       // under datadir, innodb_data_home_dir or an innodb_directories entry
	LocUnprotected = "unprotected" // only reachable through an .isl link (MySQL WL#13065 FR3/FR4)
	LocUndoDir     = "undo-dir"    // a datafile inside a unique innodb_undo_directory (WL#13065 FR5)
)

// How a file was found.
const (
	FoundSystem    = "system"    // innodb_data_file_path
	FoundUndo      = "undo"      // undoNNN, undo_NNN, *.ibu (UndoFileName), or a MySQL 8 undo space id
	FoundTemporary = "temporary" // innodb_temp_data_file_path (ibtmp1)
	FoundScan      = "scan"      // a *.ibd under a scanned directory
	// FoundDictionary is a file no scanned directory holds, where a MySQL 8 data dictionary
	// places it (mysql.tablespace_files).
	FoundDictionary = "dictionary"
	FoundISL        = "isl" // named by an .isl link file (DATA DIRECTORY)
	// FoundDirectory is not a datafile: a directory of the scan that could not be read (its
	// Error says why), so the datafiles in it are not seen.
	FoundDirectory = "directory"
)

// NotePage0Zero is the Note of a datafile whose page 0 is blank (BlankPage0: not yet written,
// or torn).
const NotePage0Zero = "page 0 is all zero"

// NotePage0Doublewrite is the Note of a datafile whose page 0 is all zero and which crash
// recovery restores from the doublewrite buffer before it reads it (RestoredTablespace).
const NotePage0Doublewrite = "page 0 is all zero; crash recovery restores it from the doublewrite buffer"

// MinPhysicalPageSize is the smallest page a tablespace file has on disk: 1 KiB, the
// ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=1 page (the server's UNIV_ZIP_SIZE_MIN).
const MinPhysicalPageSize = 1 << 10

// BlankPage0 reports whether a datafile whose first bytes are p has no page 0 yet: its first
// MinPhysicalPageSize bytes are zero. Page 0 of every physical size (1 to 16 KiB compressed, 4 to
// 64 KiB not) carries its page number, type and space id and the FSP flags in that span, and
// the flags give the physical page size, so while it is blank the size is not known and the
// bytes after it may be later pages already written (a ROW_FORMAT=COMPRESSED file created
// after the checkpoint whose pages 1.. were flushed before page 0: 16 KiB from the start of a
// KEY_BLOCK_SIZE=2 file are eight pages). The server's crash recovery defers such a file
// (MariaDB 10.11 Datafile::validate_first_page in recovery: a first page that is all zero, fails
// its checks, or carries space id 0 is deferred, and with space id 0 no doublewrite copy is
// looked for) until the log rebuilds page 0; it never reads the file's other pages before that.
func BlankPage0(p []byte) bool { return IsZero(p[:min(len(p), MinPhysicalPageSize)]) }

// tmpSpaceID is SRV_TMP_SPACE_ID, the fixed id of the temporary tablespace.
const tmpSpaceID = 0xfffffffe

// Tablespace is one datafile found in the known directories.
type Tablespace struct {
	Path              string `json:"path"`
	FoundBy           string `json:"found_by"`
	ISL               string `json:"isl,omitempty"` // the link file that named it
	SpaceID           uint32 `json:"space_id"`
	Flags             Flags  `json:"flags"`
	PageSize          int    `json:"page_size"`
	PhysicalPageSize  int    `json:"physical_page_size"`
	Pages             int64  `json:"pages"`    // file size / physical page size
	FSPSize           uint32 `json:"fsp_size"` // FSP_SIZE on page 0
	ChecksumAlgorithm string `json:"checksum_algorithm"`
	FirstPageLSN      uint64 `json:"first_page_lsn"`
	Location          string `json:"location"`
	Note              string `json:"note,omitempty"`
	Error             string `json:"error,omitempty"` // why page 0 could not be read
	// Encryption is the MariaDB encryption scheme page 0 names (CryptUnencrypted when it
	// names none or has no encryption information); not printed.
	Encryption int `json:"-"`
	// Tables are the tables a MySQL 8 data dictionary places in this tablespace ("db.table",
	// "db.table PARTITION p0"); DDPath is the file name the dictionary gives it
	// (mysql.tablespace_files), as the dictionary spells it. Both empty elsewhere.
	Tables []string `json:"tables,omitempty"`
	DDPath string   `json:"dd_path,omitempty"`
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// ResolvePath makes p absolute and resolves symbolic links, so that two names of one file
// compare equal. Where p does not exist, its longest existing ancestor is resolved and the rest
// appended, so that a new path under a linked directory still compares as under it.
func ResolvePath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		p = a
	}
	p = filepath.Clean(p)
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// candidate is a file to open, with how it was found.
type candidate struct {
	path, foundBy, isl, err string
	cause                   error // the OS error behind err
}

// Scan finds every tablespace file the layout points at and reads page 0 of each, in
// parallel. It never writes.
func Scan(s Layout) ([]Tablespace, error) {
	if s.DataHomeDir == "" {
		s.DataHomeDir = s.Datadir
	}
	if s.UndoDir == "" {
		s.UndoDir = s.Datadir
	}
	if len(s.DataFiles) == 0 {
		s.DataFiles = []string{"ibdata1"}
	}
	if len(s.TempFiles) == 0 {
		s.TempFiles = []string{"ibtmp1"}
	}
	if err := s.CheckDatadir(); err != nil {
		return nil, err
	}
	var cands []candidate
	for _, f := range s.DataFiles {
		cands = append(cands, candidate{path: filepath.Join(s.DataHomeDir, f), foundBy: FoundSystem})
	}
	for _, f := range s.TempFiles {
		if p := filepath.Join(s.DataHomeDir, f); exists(p) {
			cands = append(cands, candidate{path: p, foundBy: FoundTemporary})
		}
	}
	if ents, err := os.ReadDir(s.UndoDir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		cands = append(cands, candidate{path: s.UndoDir, foundBy: FoundDirectory, cause: err,
			err: "undo directory cannot be read, so its undo tablespaces are not seen: " + err.Error()})
	} else {
		for _, e := range ents {
			if UndoFileName(e.Name()) && !e.IsDir() { // links are followed, others refused when opened
				cands = append(cands, candidate{path: filepath.Join(s.UndoDir, e.Name()), foundBy: FoundUndo})
			}
		}
	}
	scanDirs := append([]string{s.Datadir}, s.Directories...)
	uniqueUndo := !sameDir(s.UndoDir, s.Datadir)
	if uniqueUndo {
		scanDirs = append(scanDirs, s.UndoDir) // to find datafiles misplaced there
	}
	walked := map[string]bool{} // directories already walked, resolved
	for _, d := range scanDirs {
		cands = walk(d, s.Datadir, 0, walked, cands)
	}
	// One entry per file: the first way it was found wins, except that an .isl adds its name.
	seen := map[string]int{}
	var uniq []candidate
	for _, c := range cands {
		a := ResolvePath(c.path)
		if i, ok := seen[a]; ok {
			if c.isl != "" {
				uniq[i].isl = c.isl
			}
			continue
		}
		seen[a] = len(uniq)
		uniq = append(uniq, c)
	}
	// A file is in a known directory when its path as found, or the file that path resolves
	// to, is under one: a link ./db/t.ibd is opened by that name wherever it points.
	var known []string
	for _, d := range append([]string{s.Datadir, s.DataHomeDir}, s.Directories...) {
		known = append(known, filepath.Clean(d), ResolvePath(d))
	}
	out := make([]Tablespace, len(uniq))
	causes := make([]error, len(uniq))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, c := range uniq {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int, c candidate) {
			defer func() { <-sem; wg.Done() }()
			out[i], causes[i] = describe(c, known, ResolvePath(s.UndoDir), uniqueUndo)
		}(i, c)
	}
	wg.Wait()
	// A file or directory innoscope may not read says nothing of the server (which runs as
	// another user): innoscope cannot do its job.
	for _, err := range causes {
		if u := PermissionDenied(err); u != nil {
			return nil, u
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].SpaceID < out[j].SpaceID })
	return out, nil
}

// ServerDepth is how deep below the data directory (and each innodb_directories entry) the
// server opens files: its tables are named db/table, so it reads the files at the top and in
// each database directory (a subdirectory, or a link to one), never deeper. A directory below
// that (an old copy of a data directory kept inside it, a link to /) is not read.
const ServerDepth = 1

// HoldsDir reports whether the directory p is dir or one of its ancestors (through links): a
// link in a data directory to / or to the data directory itself is no database directory of
// its own, and is not read.
func HoldsDir(p, dir string) bool {
	rp, rd := ResolvePath(p), ResolvePath(dir)
	return rp == rd || Within(rd, rp)
}

// walk adds the datafiles and .isl links in dir (at depth below the scanned directory) to
// cands, and those of its subdirectories down to ServerDepth. It follows symbolic links to
// files and to directories, as the server does when it opens ./db/t.ibd (a database directory
// that is a link elsewhere is the documented way to move a database); each directory is walked
// once, so a cycle of links ends. A directory that cannot be read is added as a FoundDirectory
// candidate carrying the OS error. .isl targets that are relative are relative to datadir
// (the server's working directory).
func walk(dir string, datadir string, depth int, walked map[string]bool, cands []candidate) []candidate {
	rd := ResolvePath(dir)
	if walked[rd] {
		return cands
	}
	walked[rd] = true
	ents, err := os.ReadDir(dir)
	if err != nil {
		cands = append(cands, candidate{path: dir, foundBy: FoundDirectory, cause: err,
			err: "directory cannot be read, so the datafiles in it are not seen: " + err.Error()})
	}
	for _, e := range ents {
		p, name, typ := filepath.Join(dir, e.Name()), e.Name(), e.Type()
		if typ&fs.ModeSymlink != 0 {
			fi, err := os.Stat(p)
			if err != nil {
				if strings.HasSuffix(name, ".ibd") {
					cands = append(cands, candidate{path: p, foundBy: FoundScan}) // opening it names the error
				}
				continue
			}
			typ = fi.Mode().Type()
		}
		switch {
		case typ.IsDir():
			if depth < ServerDepth && !strings.HasPrefix(name, "#innodb_") && !HoldsDir(p, datadir) {
				cands = walk(p, datadir, depth+1, walked, cands)
			}
		case strings.HasSuffix(name, ".ibd"):
			cands = append(cands, candidate{path: p, foundBy: FoundScan}) // not regular: opening it says so
		case strings.HasSuffix(name, ".ibu") && UndoFileName(name):
			cands = append(cands, candidate{path: p, foundBy: FoundUndo}) // MySQL 8 CREATE UNDO TABLESPACE
		case strings.HasSuffix(name, ".isl"):
			target, err := ReadISL(p)
			if err != nil {
				cands = append(cands, candidate{path: p, foundBy: FoundISL, isl: p, err: err.Error(), cause: err})
				continue
			}
			if target != "" && !filepath.IsAbs(target) {
				target = filepath.Join(datadir, target)
			}
			cands = append(cands, candidate{path: target, foundBy: FoundISL, isl: p})
		}
	}
	return cands
}

// ReadISL returns the path an .isl link file names (DATA DIRECTORY), trimmed as the server
// trims it. A FIFO or other non-regular file is refused without blocking (regular.Open).
func ReadISL(p string) (string, error) {
	f, err := regular.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 1<<16))
	if err != nil {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	return strings.TrimSpace(string(bytes.TrimRight(b, "\x00"))), nil
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func sameDir(a, b string) bool { return ResolvePath(a) == ResolvePath(b) }

// describe reads page 0 of one candidate and classifies its location; the OS error when the
// candidate could not be read.
func describe(c candidate, known []string, undoDir string, uniqueUndo bool) (Tablespace, error) {
	t := Tablespace{Path: c.path, FoundBy: c.foundBy, ISL: c.isl}
	if c.err != "" {
		t.Location, t.Error = LocKnown, c.err
		return t, c.cause
	}
	a, as := ResolvePath(c.path), filepath.Clean(c.path)
	t.Location = LocUnprotected
	for _, k := range known {
		if within(a, k) || within(as, k) {
			t.Location = LocKnown
		}
	}
	if c.foundBy == FoundUndo {
		t.Location = LocKnown
	} else if uniqueUndo && within(a, undoDir) && t.Location != LocKnown {
		t.Location = LocUndoDir
	}
	f, err := OpenFile(c.path)
	if err != nil {
		t.Error = err.Error()
		return t, err
	}
	defer f.Close()
	t.fill(f)
	t.classifyUndo()
	return t, nil
}

// fill describes t from its opened file f: page 0's id, flags, sizes, checksum scheme and note.
func (t *Tablespace) fill(f *File) {
	fl := f.FSP.Flags
	t.SpaceID, t.Flags, t.PageSize, t.PhysicalPageSize = f.FSP.SpaceID, fl, fl.PageSize, f.Physical
	t.Pages, t.FSPSize, t.FirstPageLSN = f.Pages(), f.FSP.Size, f.Header.LSN
	if scheme, ok := EncryptionScheme(f.page0, fl); ok {
		t.Encryption = scheme
	}
	v := CheckPage(f.page0, fl, 0, f.FSP.SpaceID)
	if (t.FoundBy == FoundScan || t.FoundBy == FoundISL) && BlankPage0(f.page0) {
		// A blank ROW_FORMAT=COMPRESSED page 0 followed by written pages is not one 16 KiB page.
		v = Verdict{Algorithm: AlgEmpty}
	}
	t.ChecksumAlgorithm = string(v.Algorithm)
	if v.Corrupt {
		t.ChecksumAlgorithm, t.Note = "corrupt", "page 0: "+v.Reason
	}
	if v.Algorithm == AlgEmpty {
		t.ChecksumAlgorithm = ""
		if t.FoundBy == FoundTemporary {
			t.SpaceID, t.Note = tmpSpaceID, "page 0 not written yet; the server recreates the temporary tablespace at every start"
		} else {
			t.Note = NotePage0Zero
		}
	}
	if fl.FullCRC32 {
		t.ChecksumAlgorithm = string(AlgFullCRC32)
	}
}

// RestoredTablespace is t, a datafile whose page 0 is all zero, described as crash recovery
// sees it once it has written img, a doublewrite copy of page 0 (DoublewritePage0), over that
// page: with the copy's id and flags, and the note NotePage0Doublewrite.
func RestoredTablespace(t Tablespace, img []byte) (Tablespace, error) {
	f, err := OpenFileWithPage0(t.Path, img)
	if err != nil {
		return t, err
	}
	defer f.Close()
	r := Tablespace{Path: t.Path, FoundBy: t.FoundBy, ISL: t.ISL, Location: t.Location}
	r.fill(f)
	if r.Note == "" {
		r.Note = NotePage0Doublewrite
	}
	return r, nil
}

// DescribeAt reads page 0 of the file at path, which no scan of layout s found (a MySQL 8 data
// dictionary places it there), and classifies its location as Scan would (FoundDictionary).
func DescribeAt(s Layout, path string) (Tablespace, error) {
	if s.DataHomeDir == "" {
		s.DataHomeDir = s.Datadir
	}
	if s.UndoDir == "" {
		s.UndoDir = s.Datadir
	}
	var known []string
	for _, d := range append([]string{s.Datadir, s.DataHomeDir}, s.Directories...) {
		known = append(known, filepath.Clean(d), ResolvePath(d))
	}
	return describe(candidate{path: path, foundBy: FoundDictionary}, known, ResolvePath(s.UndoDir), !sameDir(s.UndoDir, s.Datadir))
}
