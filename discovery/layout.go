package discovery

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"innoscope/internal/regular"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Layout is where a server keeps its files: the data directory and the directories and file
// names its options give for the system tablespace, the undo tablespaces, the redo log and the
// extra datafile directories, with the page size it was told. Paths are absolute and clean;
// "" (or nil) is the option's default, which the methods resolve (DataHome, UndoHome,
// LogFileDir, SystemFile).
type Layout struct {
	Datadir     string
	DataHomeDir string   // innodb_data_home_dir (default: Datadir)
	DataFiles   []string // innodb_data_file_path file names (default ibdata1)
	Directories []string // innodb_directories
	UndoDir     string   // innodb_undo_directory (default: Datadir)
	TempFiles   []string // innodb_temp_data_file_path file names (default ibtmp1)
	LogDir      string   // innodb_log_group_home_dir (default: Datadir)
	// DataFilePath is innodb_data_file_path as given ("": the default); DataFiles are its
	// file names. Check compares its sizes with the files.
	DataFilePath string
	PageSize     int // innodb_page_size (0: not given; the system tablespace's)
}

// LayoutOptions are the server options NewLayout reads, spelled as in a my.cnf ('_', not '-').
var LayoutOptions = []string{"datadir", "innodb_data_home_dir", "innodb_data_file_path",
	"innodb_directories", "innodb_undo_directory", "innodb_log_group_home_dir", "innodb_page_size"}

// DefaultDatadir is the data directory mariadbd uses when no option sets one: the path built
// into MariaDB's packages (Debian's, as `mariadbd --no-defaults --help --verbose` prints it, and
// the RPMs'), which Debian's /etc/mysql/my.cnf relies on ("#datadir = /var/lib/mysql").
const DefaultDatadir = "/var/lib/mysql"

// cnfGroups are the my.cnf groups mariadbd 10.11 reads (compared without regard to case).
var cnfGroups = map[string]bool{"mysqld": true, "server": true, "mariadb": true, "mariadbd": true,
	"client-server": true, "galera": true, "mysqld-10.11": true, "mariadb-10.11": true, "mariadbd-10.11": true}

// maxCnfDepth is how deep mariadbd follows !include and !includedir (past it, a directive is
// skipped).
const maxCnfDepth = 10

// ReadMyCnf returns the options of the server's groups ([mysqld], [mariadb], [server],
// [client-server], [galera], the 10.11 ones) in a my.cnf file as mariadbd reads them, keys with
// '_' and without a loose- prefix, the last of each winning: !include FILE (skipped when it
// cannot be read, as the server does; a relative path is relative to the working directory) and
// !includedir DIR (its *.cnf files in name order; a directory that cannot be read is an error,
// as it is fatal to the server) are followed, '#' outside quotes starts a comment, quotes around
// a value are removed.
func ReadMyCnf(path string) (map[string]string, error) {
	opts := map[string]string{}
	return opts, readCnf(path, opts, 0, true)
}

// cnfLineMax is the longest my.cnf line mariadbd reads as one line (mysys/my_default.c reads
// with fgets into a 4096-byte buffer less one: 4094 bytes a line, the newline counted); it takes
// the rest of a longer line for another line.
const cnfLineMax = 4094

// readCnf reads the cnf file path into opts (mustExist: an error when it cannot be opened).
// The file is opened through regular.Open: a FIFO or a device, on which mariadbd itself would
// wait for ever, is an error naming it; a directory given to !include is skipped, as the server
// skips it.
func readCnf(path string, opts map[string]string, depth int, mustExist bool) error {
	f, err := regular.Open(path)
	if err != nil {
		if fi, serr := os.Stat(path); mustExist || errors.Is(err, regular.ErrNotRegular) && !(serr == nil && fi.IsDir()) {
			return err
		}
		return nil // skipped, as mariadbd skips an !include it cannot read
	}
	defer f.Close()
	in := false
	r := bufio.NewReaderSize(f, cnfLineMax+2)
	for n := 1; ; n++ {
		raw, err := r.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull && err != io.EOF {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if size := len(bytes.TrimSuffix(raw, []byte("\n"))); size > cnfLineMax || err == bufio.ErrBufferFull {
			for err == bufio.ErrBufferFull {
				raw, err = r.ReadSlice('\n')
				size += len(bytes.TrimSuffix(raw, []byte("\n")))
			}
			return fmt.Errorf("%s:%d: a line of %d bytes: mariadbd reads a my.cnf line %d bytes at a time and takes the rest for a line of its own (an unknown option, or a value cut short); shorten the line",
				path, n, size, cnfLineMax)
		}
		if len(raw) == 0 && err == io.EOF {
			return nil
		}
		line := strings.TrimSpace(string(raw))
		switch {
		case line == "", line[0] == '#', line[0] == ';':
			continue
		case line[0] == '!':
			dir, arg, _ := strings.Cut(line[1:], " ")
			arg = strings.TrimSpace(arg)
			if (dir != "include" && dir != "includedir") || arg == "" {
				return fmt.Errorf("%s:%d: unknown directive %q", path, n, line)
			}
			if depth >= maxCnfDepth {
				continue // mariadbd warns and skips it
			}
			if dir == "include" {
				if err := readCnf(arg, opts, depth+1, false); err != nil {
					return fmt.Errorf("%s:%d: !include: %w", path, n, err)
				}
				continue
			}
			ents, err := regular.ReadDir(arg)
			if err != nil {
				return fmt.Errorf("%s:%d: !includedir %s: %w (mariadbd refuses to start)", path, n, arg, err)
			}
			for _, e := range ents { // sorted by name, as mariadbd reads them
				if strings.HasSuffix(e.Name(), ".cnf") && !e.IsDir() {
					if err := readCnf(filepath.Join(arg, e.Name()), opts, depth+1, false); err != nil {
						return fmt.Errorf("%s:%d: !includedir: %w", path, n, err)
					}
				}
			}
			continue
		case line[0] == '[':
			if !strings.HasSuffix(line, "]") {
				return fmt.Errorf("%s:%d: bad group header %q", path, n, line)
			}
			in = cnfGroups[strings.ToLower(strings.TrimSpace(line[1:len(line)-1]))]
			continue
		}
		if !in {
			continue
		}
		k, v, _ := strings.Cut(line, "=")
		k = strings.ReplaceAll(strings.TrimSpace(k), "-", "_")
		opts[strings.TrimPrefix(k, "loose_")] = cnfValue(v)
	}
}

// cnfValue is an option's value as mariadbd reads it: up to a '#' outside quotes, trimmed, the
// quotes around it removed.
func cnfValue(v string) string {
	var q byte
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case q != 0 && c == q:
			q = 0
		case q == 0 && (c == '"' || c == '\''):
			q = c
		case q == 0 && c == '#':
			v = v[:i]
		}
	}
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		v = v[1 : len(v)-1]
	}
	return v
}

// NewLayout resolves the options (LayoutOptions, as ReadMyCnf returns them; datadir must be
// given) into a Layout: relative paths are relative to the data directory, as in the server
// (which changes into its data directory at start), and the data directory is relative to the
// working directory. It then refuses, as Check does, options that contradict the files.
func NewLayout(opt map[string]string) (Layout, error) {
	l := Layout{Datadir: AbsPath(opt["datadir"]), DataFilePath: opt["innodb_data_file_path"]}
	rel := func(p string) string {
		switch {
		case p == "":
			return ""
		case filepath.IsAbs(p):
			return filepath.Clean(p)
		}
		return filepath.Join(l.Datadir, p)
	}
	l.DataHomeDir, l.UndoDir, l.LogDir = rel(opt["innodb_data_home_dir"]), rel(opt["innodb_undo_directory"]), rel(opt["innodb_log_group_home_dir"])
	for _, d := range strings.Split(opt["innodb_directories"], ";") {
		if d = strings.TrimSpace(d); d != "" {
			l.Directories = append(l.Directories, rel(d))
		}
	}
	if l.DataFilePath != "" {
		for _, spec := range strings.Split(l.DataFilePath, ";") {
			if name, _, _ := strings.Cut(spec, ":"); name != "" {
				l.DataFiles = append(l.DataFiles, name)
			}
		}
	}
	if v := opt["innodb_page_size"]; v != "" {
		n, err := parsePageSize(v)
		if err != nil {
			return l, err
		}
		l.PageSize = n
	}
	return l, l.Check()
}

// parsePageSize reads 4k/8k/16k/32k/64k or a byte count.
func parsePageSize(s string) (int, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mul := 1
	if strings.HasSuffix(t, "k") {
		mul, t = 1024, strings.TrimSuffix(t, "k")
	}
	n, err := strconv.Atoi(t)
	n *= mul
	if err != nil || n < 4096 || n > 65536 || n&(n-1) != 0 {
		return 0, fmt.Errorf("invalid innodb_page_size %q (4k, 8k, 16k, 32k or 64k)", s)
	}
	return n, nil
}

// AbsPath makes a path given on a command line or in a my.cnf absolute (relative to the
// working directory, as the server does with its datadir) and clean, so that every later join
// and comparison sees one spelling of it. "" stays "". Unlike ResolvePath, it keeps symbolic
// links.
func AbsPath(p string) string {
	if p == "" {
		return ""
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// DataHome is the directory of the system tablespace files: innodb_data_home_dir, or the data
// directory.
func (l Layout) DataHome() string { return or(l.DataHomeDir, l.Datadir) }

// UndoHome is the directory of the undo tablespaces: innodb_undo_directory, or the data
// directory.
func (l Layout) UndoHome() string { return or(l.UndoDir, l.Datadir) }

// LogFileDir is where ib_logfile0 is: innodb_log_group_home_dir, or the data directory.
func (l Layout) LogFileDir() string { return or(l.LogDir, l.Datadir) }

// SystemFiles are the file names of innodb_data_file_path (default ibdata1).
func (l Layout) SystemFiles() []string {
	if len(l.DataFiles) == 0 {
		return []string{"ibdata1"}
	}
	return l.DataFiles
}

// SystemFile is the first file of innodb_data_file_path (default ibdata1), and its directory.
func (l Layout) SystemFile() (dir, name string) { return l.DataHome(), l.SystemFiles()[0] }

// or is s, or def when s is "".
func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Within reports whether path p lies strictly inside directory dir (both cleaned, neither
// resolved: callers resolve links first when that matters).
func Within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, "../")
}

// InnoDBPageSize is innodb_page_size: the layout's setting, else the system tablespace's, else
// 16 KiB; and where it came from ("flag", "system tablespace", "default").
func (s Layout) InnoDBPageSize() (int, string) {
	if s.PageSize != 0 {
		return s.PageSize, "flag"
	}
	if n, err := SystemPageSize(s.SystemFile()); err == nil {
		return n, "system tablespace"
	}
	return 16384, "default"
}
