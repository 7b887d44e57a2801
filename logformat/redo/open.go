// Package redo is the one way in to an InnoDB redo log of any format: Open finds a data
// directory's log (or takes one file), reads its header and checkpoints and says which one
// recovery uses; Scan then yields its mini-transactions. The caller never needs to know which
// of the formats (MariaDB 10.8+, the 512-byte blocks of MariaDB 10.0-10.7 and MySQL, MySQL
// 8.0.30+'s #ib_redoN files) it holds: the per-format readers are in package logformat.
package redo

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"innoscope/internal/regular"
	"innoscope/logformat"
)

// Location says where a log is: Arg is the DIR|FILE a command was given (absolute; a
// directory is a data directory), Datadir and LogDir the server's datadir and
// innodb_log_group_home_dir ("" for the datadir). PageSize is innodb_page_size as the caller
// resolved it, PageSizeSource where it came from (also settable on the Log after Open, before
// a scan: the records are checked against it).
type Location struct {
	Arg            string
	Datadir        string
	LogDir         string
	PageSize       int
	PageSizeSource string
	// DamagedHeader opens a MariaDB 10.8+ log whose header block fails its CRC-32C all the same
	// (`log header`: its fields and checkpoints as stored; Describe says the server refuses it).
	DamagedHeader bool
}

func (w Location) logDir() string {
	if w.LogDir == "" {
		return w.Datadir
	}
	return w.LogDir
}

// Log is an opened redo log of any format.
type Log struct {
	// Path is the file opened (for MySQL 8.0.30+, the oldest #ib_redoN; for a ring,
	// ib_logfile0), Size its size (of a ring or chain: all of its files).
	Path           string
	Size           int64
	PageSize       int
	PageSizeSource string
	Header         logformat.Header
	Checkpoints    []logformat.Checkpoint
	// Selected is the index in Checkpoints of the block recovery uses, or -1 if none is valid.
	Selected int
	v108     *logformat.Log
	file     *os.File
	blocks   *logformat.BlockLog
	// other is the MariaDB 10.8+ reader's refusal of a log of another format.
	other error
}

// Close closes the log's files.
func (l *Log) Close() error {
	if l.blocks != nil {
		return l.blocks.Close()
	}
	return l.file.Close()
}

// Checkpoint is the checkpoint recovery starts from, if any block is valid.
func (l *Log) Checkpoint() (logformat.Checkpoint, bool) {
	if l.Selected < 0 {
		return logformat.Checkpoint{}, false
	}
	return l.Checkpoints[l.Selected], true
}

// V108 is the MariaDB 10.8+ log, nil for the other formats.
func (l *Log) V108() *logformat.Log { return l.v108 }

// Blocks is the log of 512-byte blocks (MariaDB before 10.8, MySQL), nil for MariaDB 10.8+.
func (l *Log) Blocks() *logformat.BlockLog { return l.blocks }

// Replayable is nil when the log's records are the page records recovery replays (MariaDB
// 10.5+), else an error that says what the log is (wrapping logformat.ErrUnsupported).
func (l *Log) Replayable() error {
	if l.blocks != nil && !l.blocks.Physical() {
		return l.other
	}
	return nil
}

// Encrypted reports whether err is the refusal of an encrypted log (which the server reads
// with its key management plugin).
func Encrypted(err error) bool {
	return errors.Is(err, logformat.ErrUnsupported) && strings.Contains(err.Error(), "encrypted")
}

var mysqlRedoName = regexp.MustCompile(`^#ib_redo(\d+)$`)

// Find returns the redo log file for the location's Arg: the file itself, or in a data
// directory ib_logfile0 or else the oldest #innodb_redo/#ib_redoN. An argument that is neither
// a directory nor a regular file, and a log path the OS cannot look at (a loop of links, no
// permission), are errors that say so; only a log that is absent reads as "no redo log".
func Find(w Location) (string, error) {
	fi, err := os.Stat(w.Arg)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		if !fi.Mode().IsRegular() {
			return "", regular.NotRegular(w.Arg, fi.Mode())
		}
		return w.Arg, nil
	}
	dir := w.logDir()
	p := filepath.Join(dir, "ib_logfile0")
	if ok, err := present(p); ok || err != nil {
		return p, err
	}
	// MySQL 8.0.30+ keeps #innodb_redo/#ib_redoN; report the oldest one's format.
	redo := filepath.Join(w.Datadir, "#innodb_redo")
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
	return "", fmt.Errorf("%s: %w: neither ib_logfile0 nor #innodb_redo/#ib_redoN is there"+
		" (use --innodb-log-group-home-dir if the log lives elsewhere)", dir, ErrNoLog)
}

// ErrNoLog is Find's error (wrapped, naming the directory) when a data directory holds no redo
// log at all.
var ErrNoLog = errors.New("no redo log")

// Name is the redo log of a data directory as findings name it: ib_logfile0's path, or for
// MySQL 8.0.30+ the #innodb_redo directory whose #ib_redoN files are read as one log; "" when
// there is none.
func Name(w Location) string {
	p, err := Find(w)
	if err != nil {
		return ""
	}
	if mysqlRedoName.MatchString(filepath.Base(p)) {
		return "the redo log in " + filepath.Dir(p)
	}
	return p
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

// Open finds the log at w and opens it read-only (innoscope never writes to the source
// directory) in whichever format it is. A log no reader takes gives the error of the MariaDB
// 10.8+ reader (wrapping logformat.ErrUnsupported), which says what the file is.
func Open(w Location) (*Log, error) {
	path, err := Find(w)
	if err != nil {
		return nil, err
	}
	f, size, err := regular.OpenSized(path)
	if err != nil {
		return nil, err
	}
	l, _, err := logformat.Open(f, size, path)
	if err == nil || w.DamagedHeader && errors.Is(err, logformat.ErrHeaderChecksum) {
		if err != nil {
			if l, _, err = logformat.OpenDamagedHeader(f, size, path); err != nil {
				f.Close()
				return nil, err
			}
		}
		return &Log{Path: path, Size: l.Size, PageSize: w.PageSize, PageSizeSource: w.PageSizeSource,
			Header: l.Header, Checkpoints: l.Checkpoints, Selected: l.Selected, v108: l, file: f}, nil
	}
	f.Close()
	if !errors.Is(err, logformat.ErrUnsupported) {
		return nil, err
	}
	bl, berr := openBlockLog(w, path)
	if berr != nil {
		return nil, err
	}
	return &Log{Path: bl.Name, Size: bl.Size, PageSize: w.PageSize, PageSizeSource: w.PageSizeSource,
		Header: bl.Header, Checkpoints: bl.Checkpoints, Selected: bl.Selected, blocks: bl, other: err}, nil
}

// openBlockLog opens the log at path as a log of 512-byte blocks and MLOG records: MySQL
// 8.0.30+ files, or the ib_logfileN ring of MySQL 5.7, 8.0 before 8.0.30 and MariaDB
// 10.0-10.7. For a data directory, all its #innodb_redo/#ib_redoN files are opened and chained
// in LSN order (the spare #ib_redoN_tmp files are not log files).
func openBlockLog(w Location, path string) (*logformat.BlockLog, error) {
	f, size, err := regular.OpenSized(path)
	if err != nil {
		return nil, err
	}
	l, err := logformat.OpenBlockLog(f, size, f.Name())
	if errors.Is(err, logformat.ErrUnsupported) && filepath.Base(f.Name()) == "ib_logfile0" {
		return openRingLog(f, size)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	if fi, err := os.Stat(w.Arg); err == nil && fi.Mode().IsRegular() {
		return l, nil // one file asked for
	}
	files := []*logformat.BlockLog{l}
	dir := filepath.Dir(f.Name())
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if !mysqlRedoName.MatchString(e.Name()) || p == f.Name() {
			continue
		}
		g, size, err := regular.OpenSized(p)
		if err != nil {
			closeAll(files)
			return nil, err
		}
		m, err := logformat.OpenBlockLog(g, size, p)
		if err != nil {
			g.Close()
			closeAll(files)
			return nil, err
		}
		files = append(files, m)
	}
	return logformat.Chain(files)
}

// closeFiles closes opened files.
func closeFiles(rs []io.ReaderAt) {
	for _, r := range rs {
		r.(io.Closer).Close()
	}
}

// closeAll closes the files of opened logs.
func closeAll(ls []*logformat.BlockLog) {
	for _, l := range ls {
		l.Close()
	}
}

// openRingLog opens ib_logfile0 (f) and the ib_logfile1, ib_logfile2, ... beside it as the
// ring of a MySQL 5.7, MySQL 8.0 before 8.0.30 or MariaDB 10.0-10.7 log.
func openRingLog(f *os.File, size int64) (*logformat.BlockLog, error) {
	rs, sizes, names := []io.ReaderAt{f}, []int64{size}, []string{f.Name()}
	for k := 1; ; k++ {
		p := filepath.Join(filepath.Dir(f.Name()), fmt.Sprintf("ib_logfile%d", k))
		g, gsize, err := regular.OpenSized(p)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			closeFiles(rs)
			return nil, err
		}
		rs, sizes, names = append(rs, g), append(sizes, gsize), append(names, p)
	}
	l, err := logformat.OpenRingLog(rs, sizes, names)
	if err != nil {
		closeFiles(rs)
	}
	return l, err
}
