package replay

import (
	"fmt"
	"hash/crc32"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"innoscope/discovery"
)

// maxSocketPath is the longest Unix socket path (sun_path holds 108 bytes with its NUL).
const maxSocketPath = 107

// undoFile is the name of an undo tablespace (undo001).
var undoFile = regexp.MustCompile(`^undo[0-9]{3}$`)

// ServerCommand is the command line that starts mariadbd on a recovered copy: the copy as the
// data directory, no option file (one naming the source's directories would send the server
// there), the system tablespace's file list and page size when they are not the defaults, as
// many undo tablespaces as the copy holds (they are in its root), and a socket in the copy (in
// the temporary directory when that path would be too long for a socket).
func ServerCommand(into string, s discovery.Layout, pageSize int) string {
	sock := filepath.Join(into, "mysqld.sock")
	if len(sock) > maxSocketPath {
		// The server refuses a longer socket path ("The socket file path is too long").
		sock = filepath.Join(os.TempDir(), fmt.Sprintf("innoscope-%08x.sock", crc32.ChecksumIEEE([]byte(into))))
	}
	args := []string{"mariadbd", "--no-defaults", "--datadir=" + quoteArg(into),
		"--socket=" + quoteArg(sock), "--skip-networking"}
	if s.DataFilePath != "" {
		args = append(args, "--innodb-data-file-path="+quoteArg(s.DataFilePath))
	}
	if pageSize != 0 && pageSize != 16384 {
		args = append(args, fmt.Sprintf("--innodb-page-size=%d", pageSize))
	}
	if fi, err := os.Stat(filepath.Join(into, "ib_logfile0")); err == nil {
		args = append(args, fmt.Sprintf("--innodb-log-file-size=%d", fi.Size())) // no resize at start
	}
	if ents, err := os.ReadDir(into); err == nil {
		n := 0
		for _, e := range ents {
			if undoFile.MatchString(e.Name()) {
				n++
			}
		}
		if n > 0 {
			args = append(args, fmt.Sprintf("--innodb-undo-tablespaces=%d", n))
		}
	}
	if os.Geteuid() == 0 {
		args = append(args, "--user="+quoteArg(copyOwner(into))) // mariadbd refuses to run as root otherwise
	} else if u, err := user.Current(); err == nil {
		args = append(args, "--user="+quoteArg(u.Username))
	}
	return strings.Join(args, " ")
}

// quoteArg quotes a shell word that needs it.
func quoteArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>()*?[]#~!{}") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// copyOwner is the name of the copy's owner (Copy.Own gives it the source's), "root" when it
// cannot be told.
func copyOwner(into string) string {
	fi, err := os.Stat(into)
	if err != nil {
		return "root"
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "root"
	}
	u, err := user.LookupId(strconv.Itoa(int(st.Uid)))
	if err != nil {
		return "root"
	}
	return u.Username
}
