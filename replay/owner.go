package replay

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Own gives the copy (and its external directory) the owner and group of the source's data
// directory, as `cp -a` would, when innoscope runs as root: a server started as the data
// directory's owner (mysql under systemd) can then open the copy. As another user the files are
// that user's, and nothing is changed.
func (c *Copy) Own() error {
	if os.Geteuid() != 0 {
		return nil
	}
	fi, err := os.Stat(c.Source.Datadir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Uid == 0 && st.Gid == 0 {
		return nil
	}
	for _, d := range []string{c.Target, c.external()} {
		err := filepath.WalkDir(d, func(p string, _ fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, int(st.Uid), int(st.Gid))
		})
		if err != nil && !(d != c.Target && os.IsNotExist(err)) {
			return err
		}
	}
	return nil
}
