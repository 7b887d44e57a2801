package replay

import (
	"fmt"
	"os"

	"innoscope/internal/regular"
	"innoscope/logformat"
)

// LogCreator is the creator string ResetLog writes into the header.
const LogCreator = "MariaDB (innoscope recover)"

// ResetLog replaces the redo log at path with one that leaves nothing to recover: a file of
// size bytes whose ring starts at lsn with a single FILE_CHECKPOINT mini-transaction for lsn,
// both checkpoint blocks pointing at it (what a clean shutdown leaves: the server finds the end
// of the log 16 bytes after the checkpoint and skips crash recovery). The rest of the file is a
// hole. It is written to a temporary file, synced and renamed over path.
func ResetLog(path string, size int64, lsn uint64) error {
	b, err := logformat.NewBuilder(logformat.StartOffset+4096, lsn, LogCreator)
	if err != nil {
		return err
	}
	b.AppendMTR(logformat.FileCheckpointRecord(lsn))
	b.SetCheckpoint(0, lsn, lsn)
	b.SetCheckpoint(1, lsn, lsn)
	if size < int64(len(b.Bytes())) {
		return fmt.Errorf("%s: a log of %d bytes is too small", path, size)
	}
	err = regular.Replace(path, 0o660, func(f *os.File) error {
		if _, err := f.Write(b.Bytes()); err != nil {
			return err
		}
		return f.Truncate(size)
	})
	if err != nil {
		return fmt.Errorf("%s: writing the recovered log: %w", path, err)
	}
	return nil
}

// SyncDir makes a directory's entries (renames, new and removed files) durable.
func SyncDir(dir string) error {
	d, err := regular.OpenDir(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
