package discovery

import (
	"errors"
	"fmt"
	"innoscope/internal/regular"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// UnreadableError is a file or directory of the server's layout that innoscope itself may not
// read (permission denied): not a finding about the server, which runs as another user, but a
// reason innoscope cannot do its job (exit 2).
type UnreadableError struct{ Err error }

// Error is the OS error (which names the path) and what to do about it.
func (e *UnreadableError) Error() string {
	return e.Err.Error() + "; run innoscope as a user that can read the data directory and its files (e.g. root or mysql)"
}

// Unwrap is the OS error.
func (e *UnreadableError) Unwrap() error { return e.Err }

// PermissionDenied is err as an *UnreadableError when it is a permission error (EACCES, EPERM),
// else nil.
func PermissionDenied(err error) error {
	var u *UnreadableError
	switch {
	case err == nil || !errors.Is(err, fs.ErrPermission):
		return nil
	case errors.As(err, &u):
		return u
	}
	return &UnreadableError{Err: err}
}

// CheckDatadir refuses, before anything is read, a data directory innoscope cannot do its job
// on: one whose redo log, system tablespace or directory innoscope may not read
// (*UnreadableError), and a directory that is not a data directory at all (a typo, a parent of
// data directories, an empty directory). Every data directory a server has run on holds the
// mysql system schema directory (mariadb-install-db and mysqld --initialize create it; the
// server, unless told --skip-grant-tables, stops at start when its privilege tables are
// missing) or, on MySQL 8, mysql.ibd (the dictionary tablespace --initialize creates first;
// the mysql directory may still be empty), and, under the layout's options, the system tablespace and the redo log, which may
// be elsewhere (innodb_data_home_dir, innodb_log_group_home_dir). So a directory that holds
// none of these, nor a database directory of datafiles (what is left when only those were
// copied), is not one; a data directory that lost some of them still is, and its findings say
// what is missing.
func (l Layout) CheckDatadir() error {
	fi, err := os.Stat(l.Datadir)
	if err != nil {
		if u := PermissionDenied(err); u != nil {
			return u
		}
		return fmt.Errorf("%s: not a data directory: %v", l.Datadir, err)
	} else if !fi.IsDir() {
		return fmt.Errorf("%s: not a data directory: not a directory", l.Datadir)
	}
	dir, _ := l.SystemFile()
	markers := []string{filepath.Join(l.LogFileDir(), "ib_logfile0"), filepath.Join(l.LogFileDir(), "#innodb_redo")}
	for _, f := range l.SystemFiles() {
		markers = append(markers, filepath.Join(dir, f))
	}
	markers = append(markers, filepath.Join(l.Datadir, "mysql"), filepath.Join(l.Datadir, "mysql.ibd"))
	found := false
	for _, p := range markers {
		fi, err := os.Stat(p)
		if u := PermissionDenied(err); u != nil {
			return u
		}
		if err != nil {
			continue
		}
		found = true
		if fi.Mode().IsRegular() {
			f, err := regular.Open(p)
			if u := PermissionDenied(err); u != nil {
				return u
			}
			if err == nil {
				f.Close()
			}
		}
	}
	if _, err := os.ReadDir(l.Datadir); PermissionDenied(err) != nil {
		return PermissionDenied(err)
	}
	if found || hasSchemaDir(l.Datadir) {
		return nil
	}
	var names []string
	for _, p := range markers {
		name := strings.TrimPrefix(p, l.Datadir+"/")
		if filepath.Base(p) == "mysql" {
			name += "/"
		}
		names = append(names, "no "+name)
	}
	names = append(names, "no database directory with .ibd files")
	msg := fmt.Sprintf("%s: not a data directory (%s)", l.Datadir, strings.Join(names, ", "))
	if sub := dataSubdirs(l.Datadir); len(sub) > 0 {
		msg += "; it holds data directories: " + strings.Join(sub, ", ")
	}
	frms, _ := filepath.Glob(filepath.Join(l.Datadir, "*.frm"))
	ibds, _ := filepath.Glob(filepath.Join(l.Datadir, "*.ibd"))
	if len(frms)+len(ibds) > 0 {
		// A database directory, or table files copied out alone.
		msg += fmt.Sprintf("; it holds %d .frm and %d .ibd files: a table's own files are read one by one (`innoscope schema FILE.frm`, `innoscope rows FILE.ibd`, `innoscope adopt FILE.ibd... --into KIT`)", len(frms), len(ibds))
	}
	return errors.New(msg)
}

// dataSubdirs are the subdirectories of dir that are data directories under the default layout
// (the names of a parent of data directories, given by mistake).
func dataSubdirs(dir string) []string {
	var out []string
	for _, p := range subdirs(dir) {
		if isDefaultDatadir(p) {
			out = append(out, p)
		}
	}
	return out
}

// hasSchemaDir reports whether dir holds a database directory: a subdirectory, not itself a
// data directory, with .ibd or .isl files (the datafiles of a data directory that lost its
// system tablespace, log and mysql directory, or whose datafiles alone were copied).
func hasSchemaDir(dir string) bool {
	for _, p := range subdirs(dir) {
		if isDefaultDatadir(p) {
			continue
		}
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			if r, err := filepath.EvalSymlinks(p); err == nil && isDefaultDatadir(filepath.Dir(r)) {
				continue // a link to a database directory of another data directory
			}
		}
		ibd, _ := filepath.Glob(filepath.Join(p, "*.ibd"))
		isl, _ := filepath.Glob(filepath.Join(p, "*.isl"))
		if len(ibd)+len(isl) > 0 {
			return true
		}
	}
	return false
}

// isDefaultDatadir reports whether p holds ibdata1, ib_logfile0, #innodb_redo, a mysql
// directory or mysql.ibd.
func isDefaultDatadir(p string) bool {
	return exists(filepath.Join(p, "ibdata1")) || exists(filepath.Join(p, "ib_logfile0")) || exists(filepath.Join(p, "#innodb_redo")) ||
		exists(filepath.Join(p, "mysql")) || exists(filepath.Join(p, "mysql.ibd"))
}

// subdirs are the directories in dir (symbolic links followed), by path.
func subdirs(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			out = append(out, p)
		}
	}
	return out
}

// LogOnly tells whether the layout holds a redo log and nothing else of a data directory: no
// system tablespace file, no undo tablespace, no mysql system schema directory and no database
// directory of datafiles (a log copied alone, for a look at it). It returns the log's path.
// Only the log can be read then: what it holds, not what the server will do with the files it
// names.
func (l Layout) LogOnly() (string, bool) {
	log := ""
	for _, p := range []string{filepath.Join(l.LogFileDir(), "ib_logfile0"), filepath.Join(l.LogFileDir(), "#innodb_redo")} {
		if exists(p) {
			log = p
			break
		}
	}
	if log == "" || exists(filepath.Join(l.Datadir, "mysql")) || hasSchemaDir(l.Datadir) {
		return "", false
	}
	for _, f := range l.SystemFiles() {
		if exists(filepath.Join(l.DataHome(), f)) {
			return "", false
		}
	}
	if undo, _ := filepath.Glob(filepath.Join(l.UndoHome(), "undo[0-9][0-9][0-9]")); len(undo) > 0 {
		return "", false
	}
	if ibd, _ := filepath.Glob(filepath.Join(l.Datadir, "*.ibd")); len(ibd) > 0 {
		return "", false
	}
	return log, true
}

// LogOnlyError is the refusal of a command that needs the datafiles (recover, verify, rows,
// spaces) on a directory holding only a redo log (Layout.LogOnly).
type LogOnlyError struct {
	Dir, Log string
	What     string // what the command would have done ("recover", "list the tablespaces")
}

// Error says what is missing and which commands read a log alone.
func (e *LogOnlyError) Error() string {
	return fmt.Sprintf("%s: only a redo log (%s) is here, no system tablespace, mysql/ directory or datafiles: nothing to %s; "+
		"give the data directory the log came from (`innoscope diagnose %s` and `innoscope log stats %s` say what the log alone tells)",
		e.Dir, filepath.Base(e.Log), e.What, e.Dir, e.Dir)
}

// RefuseLogOnly is a *LogOnlyError when the layout holds only a redo log, else nil.
func (l Layout) RefuseLogOnly(what string) error {
	if log, ok := l.LogOnly(); ok {
		return &LogOnlyError{Dir: l.Datadir, Log: log, What: what}
	}
	return nil
}
