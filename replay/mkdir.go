package replay

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// mkdirBelow creates dir and its missing parents below root, never root itself nor anything
// above it: once root is removed (verify's clean-up of its temporary copy on SIGTERM, while the
// copy is still being made on another goroutine), every later call fails instead of making the
// removed directory again.
func mkdirBelow(root, dir string) error {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return fmt.Errorf("%s is not inside %s", dir, root)
	}
	if rel == "." {
		_, err := os.Stat(root)
		return err
	}
	p := root
	for _, c := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, c)
		if err := os.Mkdir(p, 0o750); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return nil
}

// mkdir creates dir, a directory of the copy: inside its target or its external directory,
// neither of which it creates (Lock and root do).
func (c *Copy) mkdir(dir string) error {
	for _, r := range []string{c.Target, c.external()} {
		if rel, err := filepath.Rel(r, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return mkdirBelow(r, dir)
		}
	}
	return fmt.Errorf("%s is outside the copy %s", dir, c.Target)
}
