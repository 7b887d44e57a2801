package cmd

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
)

// locationFlags are the server's location settings, as mariadbd spells them.
var locationFlags = []cli.Flag{
	&cli.StringFlag{Name: "datadir", Usage: "data directory (instead of the DIR argument)"},
	&cli.StringFlag{Name: "innodb-data-home-dir", Usage: "directory of the system tablespace files"},
	&cli.StringFlag{Name: "innodb-data-file-path", Usage: "system tablespace files, e.g. ibdata1:12M:autoextend"},
	&cli.StringFlag{Name: "innodb-directories", Usage: "extra datafile directories, ';'-separated"},
	&cli.StringFlag{Name: "innodb-undo-directory", Usage: "directory of the undo tablespaces"},
	&cli.StringFlag{Name: "innodb-log-group-home-dir", Usage: "directory of ib_logfile0"},
	&cli.StringFlag{Name: "innodb-page-size", Usage: "innodb_page_size (default: read from the system tablespace)"},
	&cli.StringFlag{Name: "defaults-file", Usage: "read the settings above from this my.cnf ([mysqld], [mariadb], [server] groups)"},
}

// settings are the resolved location settings. Relative paths are relative to Datadir, as in
// the server (which changes into its data directory at start).
type settings struct {
	Datadir      string
	DataHomeDir  string
	DataFilePath string
	Directories  []string
	UndoDir      string
	LogDir       string
	PageSize     int // 0: not given
}

// cnfGroups are the my.cnf groups mariadbd reads.
var cnfGroups = map[string]bool{"mysqld": true, "server": true, "mariadb": true, "mariadbd": true,
	"mariadb-10.11": true, "mysqld-10.11": true}

// readCnf returns the options of the server's groups in a my.cnf file, keys with '_'.
func readCnf(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	opts, in := map[string]string{}, false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "", line[0] == '#', line[0] == ';', strings.HasPrefix(line, "!"):
			continue
		case line[0] == '[':
			if !strings.HasSuffix(line, "]") {
				return nil, fmt.Errorf("%s:%d: bad group header %q", path, n, line)
			}
			in = cnfGroups[strings.ToLower(strings.TrimSpace(line[1:len(line)-1]))]
			continue
		}
		if !in {
			continue
		}
		k, v, _ := strings.Cut(line, "=")
		k = strings.ReplaceAll(strings.TrimSpace(k), "-", "_")
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		opts[k] = v
	}
	return opts, sc.Err()
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

// loadSettings merges --defaults-file, the flags and the DIR argument (which wins for the
// data directory).
func loadSettings(c *cli.Context, dirArg string) (settings, error) {
	opt := map[string]string{}
	if p := c.String("defaults-file"); p != "" {
		var err error
		if opt, err = readCnf(p); err != nil {
			return settings{}, err
		}
	}
	for _, name := range []string{"datadir", "innodb-data-home-dir", "innodb-data-file-path",
		"innodb-directories", "innodb-undo-directory", "innodb-log-group-home-dir", "innodb-page-size"} {
		if c.IsSet(name) {
			opt[strings.ReplaceAll(name, "-", "_")] = c.String(name)
		}
	}
	if dirArg != "" {
		opt["datadir"] = dirArg
	}
	s := settings{Datadir: opt["datadir"], DataFilePath: opt["innodb_data_file_path"]}
	if s.Datadir == "" {
		return s, fmt.Errorf("no data directory: give DIR, --datadir or a --defaults-file with datadir")
	}
	s.Datadir = absPath(s.Datadir)
	rel := func(p string) string {
		switch {
		case p == "":
			return ""
		case filepath.IsAbs(p):
			return filepath.Clean(p)
		}
		return filepath.Join(s.Datadir, p)
	}
	s.DataHomeDir, s.UndoDir, s.LogDir = rel(opt["innodb_data_home_dir"]), rel(opt["innodb_undo_directory"]), rel(opt["innodb_log_group_home_dir"])
	for _, d := range strings.Split(opt["innodb_directories"], ";") {
		if d = strings.TrimSpace(d); d != "" {
			s.Directories = append(s.Directories, rel(d))
		}
	}
	if v := opt["innodb_page_size"]; v != "" {
		n, err := parsePageSize(v)
		if err != nil {
			return s, err
		}
		s.PageSize = n
	}
	return s, checkSettings(s)
}

// absPath makes a path given on the command line or in a my.cnf absolute (relative to the
// working directory, as the server does with its datadir) and clean, so that every later join
// and comparison sees one spelling of it. "" stays "".
func absPath(p string) string {
	if p == "" {
		return ""
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// absFlag is the value of a path flag (--into, --keep, --tmpdir, --external-dir), made
// absolute where it is read.
func absFlag(c *cli.Context, name string) string { return absPath(c.String(name)) }

// logDir is where ib_logfile0 is: innodb_log_group_home_dir, or the data directory.
func (s settings) logDir() string {
	if s.LogDir == "" {
		return s.Datadir
	}
	return s.LogDir
}

// systemFile is the first file of innodb_data_file_path (default ibdata1), and its directory.
func (s settings) systemFile() (dir, name string) {
	name = "ibdata1"
	if files := s.discovery().DataFiles; len(files) > 0 {
		name = files[0]
	}
	dir = s.DataHomeDir
	if dir == "" {
		dir = s.Datadir
	}
	return dir, name
}
