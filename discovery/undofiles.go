package discovery

import (
	"fmt"
	"os"
	"path/filepath"
)

// UndoPages opens, read-only, the files that hold undo logs as they are on disk: the system
// tablespace (its first file) and the undo tablespaces (undoNNN, undo_NNN, *.ibu in innodb_undo_directory), by
// the space id of their page 0. The PageReader reads their pages for ReadUndoTrxs; close
// releases the files. Pages of a directory that needs crash recovery are not what the server
// reads after it.
func UndoPages(s Layout) (read PageReader, close func(), err error) {
	files := map[uint32]*File{}
	close = func() {
		for _, f := range files {
			f.Close()
		}
	}
	dir, name := s.SystemFile()
	sys, err := OpenFile(filepath.Join(dir, name))
	if err != nil {
		return nil, nil, err
	}
	files[0] = sys
	ents, err := os.ReadDir(s.UndoHome())
	if err != nil {
		close()
		return nil, nil, err
	}
	for _, e := range ents {
		if !UndoFileName(e.Name()) {
			continue
		}
		f, err := OpenFile(filepath.Join(s.UndoHome(), e.Name()))
		if err != nil {
			close()
			return nil, nil, err
		}
		if old := files[f.FSP.SpaceID]; old != nil {
			f.Close()
			close()
			return nil, nil, fmt.Errorf("%s and %s both hold space %d", old.Path, f.Path, f.FSP.SpaceID)
		}
		files[f.FSP.SpaceID] = f
	}
	return func(space, no uint32) ([]byte, error) {
		f := files[space]
		if f == nil {
			return nil, fmt.Errorf("space %d: no undo tablespace file holds it", space)
		}
		return f.ReadPage(no)
	}, close, nil
}
