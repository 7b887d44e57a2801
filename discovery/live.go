package discovery

import (
	"fmt"
	"innoscope/internal/regular"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Live is a server found running on a data directory.
type Live struct {
	PID     int    `json:"pid"`
	Command string `json:"command,omitempty"`  // /proc/PID/comm
	File    string `json:"file,omitempty"`     // the file it holds a lock on
	PidFile string `json:"pid_file,omitempty"` // a *.pid file of the data directory naming it
}

// String says what was found, for an error or a finding.
func (l *Live) String() string {
	what := "a server"
	if l.Command != "" {
		what = l.Command
	}
	s := fmt.Sprintf("%s (pid %d)", what, l.PID)
	if l.File != "" {
		s += " holds a lock on " + l.File
	} else {
		s += " works in the data directory"
	}
	if l.PidFile != "" {
		s += "; " + l.PidFile + " names it"
	}
	return s
}

// LockedFiles are the files a server on s holds fcntl locks on, as far as they exist: InnoDB's
// os_file_lock() takes a whole-file write lock on each system tablespace file it opens
// read-write (innodb_data_file_path), Aria on aria_log_control; the redo log, undo
// tablespaces and temporary tablespace are checked too (other versions lock them).
func LockedFiles(s Layout) []string {
	var out []string
	for _, f := range s.SystemFiles() {
		out = append(out, filepath.Join(s.DataHome(), f))
	}
	out = append(out, filepath.Join(s.LogFileDir(), "ib_logfile0"), filepath.Join(s.Datadir, "aria_log_control"))
	ms, _ := filepath.Glob(filepath.Join(s.UndoHome(), "undo[0-9][0-9][0-9]"))
	return append(out, ms...)
}

// RunningServer reports a server running on the data directory of s (nil when none), without
// taking any lock: it asks the kernel (fcntl F_GETLK on a read-only descriptor) who holds a
// write lock on the files of LockedFiles, which also gives the holder's pid. Without a lock, a
// *.pid file of the data directory counts only when the process it names is alive, is a
// mariadbd or mysqld, and works in this data directory (/proc/PID/cwd): a pid file left by a
// crash names a dead or unrelated process.
func RunningServer(s Layout) *Live {
	var l *Live
	for _, p := range LockedFiles(s) {
		if pid := lockHolder(p); pid != 0 {
			l = &Live{PID: pid, File: p, Command: comm(pid)}
			break
		}
	}
	pids, _ := filepath.Glob(filepath.Join(s.Datadir, "*.pid"))
	for _, pf := range pids {
		pid := readPid(pf)
		if pid <= 0 {
			continue
		}
		if l != nil {
			if pid == l.PID {
				l.PidFile = pf
			}
			continue
		}
		c := comm(pid)
		if (c == "mariadbd" || c == "mysqld") && ResolvePath(fmt.Sprintf("/proc/%d/cwd", pid)) == ResolvePath(s.Datadir) {
			return &Live{PID: pid, Command: c, PidFile: pf}
		}
	}
	return l
}

// lockHolder returns the pid of a process holding a conflicting fcntl lock on the regular file
// path (-1 for an open file description lock, which has no pid), or 0.
func lockHolder(path string) int {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	defer syscall.Close(fd)
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: 0, Len: 0}
	if err := syscall.FcntlFlock(uintptr(fd), syscall.F_GETLK, &lk); err != nil || lk.Type == syscall.F_UNLCK {
		return 0
	}
	if lk.Pid <= 0 {
		return -1
	}
	return int(lk.Pid)
}

func comm(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func readPid(path string) int {
	b, err := regular.ReadFile(path, 64)
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	return n
}
