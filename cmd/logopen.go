package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"github.com/urfave/cli/v2"

	"innoscope/discovery"
	"innoscope/logformat"
)

// openedLog is a redo log opened read-only, with the page size its records are checked against.
type openedLog struct {
	*logformat.Log
	file           *os.File
	Path           string
	PageSize       int
	PageSizeSource string // "flag", "system tablespace" or "default"
}

func (o *openedLog) Close() error { return o.file.Close() }

var mysqlRedoName = regexp.MustCompile(`^#ib_redo(\d+)$`)

// findLogFile returns the redo log file for a DIR|FILE argument (absolute). An argument that is
// neither a directory nor a regular file, and a log path the OS cannot look at (a loop of links,
// no permission), are errors that say so; only a log that is absent reads as "no redo log".
func findLogFile(s discovery.Layout, arg string) (string, error) {
	arg = discovery.AbsPath(arg)
	fi, err := os.Stat(arg)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		if !fi.Mode().IsRegular() {
			return "", discovery.NotRegular(arg, fi.Mode())
		}
		return arg, nil
	}
	dir := s.LogFileDir()
	p := filepath.Join(dir, "ib_logfile0")
	if ok, err := present(p); ok || err != nil {
		return p, err
	}
	// MySQL 8.0.30+ keeps #innodb_redo/#ib_redoN; report the oldest one's format.
	redo := filepath.Join(s.Datadir, "#innodb_redo")
	ents, err := os.ReadDir(redo)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	var nums []int
	for _, e := range ents {
		if m := mysqlRedoName.FindStringSubmatch(e.Name()); m != nil {
			n, _ := strconv.Atoi(m[1])
			nums = append(nums, n)
		}
	}
	if len(nums) > 0 {
		sort.Ints(nums)
		return filepath.Join(redo, fmt.Sprintf("#ib_redo%d", nums[0])), nil
	}
	return "", fmt.Errorf("%s: no redo log: neither ib_logfile0 nor #innodb_redo/#ib_redoN is there"+
		" (use --innodb-log-group-home-dir if the log lives elsewhere)", dir)
}

// present reports whether a file is at p: false and no error when nothing is there; the OS
// error (with the path) when p cannot be looked at (EACCES, ELOOP), and an error naming the
// target when p is a symbolic link to nothing.
func present(p string) (bool, error) {
	_, err := os.Stat(p)
	switch {
	case err == nil:
		return true, nil
	case !errors.Is(err, fs.ErrNotExist):
		return false, err
	}
	if target, lerr := os.Readlink(p); lerr == nil {
		return false, fmt.Errorf("%s: a symbolic link to %s, which does not exist", p, target)
	}
	return false, nil
}

// openLogFile finds the log the command's DIR|FILE argument (or --datadir) names and opens it
// read-only (innoscope never writes to the source directory), with its size and the settings.
func openLogFile(c *cli.Context) (*os.File, int64, discovery.Layout, error) {
	arg := c.Args().First()
	if c.NArg() > 1 {
		return nil, 0, discovery.Layout{}, fmt.Errorf("expected one DIR or FILE argument, got %d", c.NArg())
	}
	s, err := settingsOf(c)
	if err != nil {
		return nil, 0, s, err
	}
	if arg == "" {
		arg = s.Datadir
	}
	path, err := findLogFile(s, arg)
	if err != nil {
		return nil, 0, s, err
	}
	f, size, err := openSized(path)
	return f, size, s, err
}

// settingsOf loads the settings for the command's DIR|FILE argument (a file's directory).
func settingsOf(c *cli.Context) (discovery.Layout, error) {
	arg := c.Args().First()
	if fi, err := os.Stat(arg); arg != "" && err == nil && fi.Mode().IsRegular() {
		arg = filepath.Dir(arg)
	}
	return loadSettings(c, arg)
}

// pageSizeOf is innodb_page_size: the flag, else the system tablespace's, else 16 KiB; and
// where it came from.
func pageSizeOf(s discovery.Layout) (int, string) {
	if s.PageSize != 0 {
		return s.PageSize, "flag"
	}
	if n, err := discovery.SystemPageSize(s.SystemFile()); err == nil {
		return n, "system tablespace"
	}
	return 16384, "default"
}

// openLog opens the MariaDB 10.8+ log named by the command's argument (or --datadir).
func openLog(c *cli.Context) (*openedLog, error) {
	f, size, s, err := openLogFile(c)
	if err != nil {
		return nil, err
	}
	path := f.Name()
	l, _, err := logformat.Open(f, size, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	o := &openedLog{Log: l, file: f, Path: path}
	o.PageSize, o.PageSizeSource = pageSizeOf(s)
	return o, nil
}
