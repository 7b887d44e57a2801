package discovery

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"innoscope/internal/regular"
	"io"
	"os"
)

// NotTablespace refuses, in one line, a file that is recognisably not a tablespace: a
// redo log (its header block) or a .frm (its magic bytes). Any other file is left to the page
// reader, whose own errors name what is wrong with page 0 (MySQL 5.0 files have no page type on
// page 0, so the type is not asked for).
func NotTablespace(path string) error {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return nil // the page reader names it
	}
	f, err := regular.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	head := make([]byte, MinPhysicalPageSize)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	what := ""
	switch {
	case n < 38 || IsZero(head):
		return nil
	case bytes.HasPrefix(head, []byte{0xfe, 0x01}):
		what = "a .frm table definition"
	case bytes.HasPrefix(head, []byte("Phys")) || bytes.HasPrefix(head, []byte("PHYS")) ||
		n >= 24 && (bytes.HasPrefix(head[16:], []byte("MariaDB")) || bytes.HasPrefix(head[16:], []byte("MySQL")) ||
			bytes.HasPrefix(head[16:], []byte("ibbackup"))):
		what = "a redo log (read it with `innoscope log`)"
	default:
		return nil
	}
	return fmt.Errorf("%s: offset 0: not a tablespace: %s", path, what)
}

// NotRedoLog refuses, in one line, a file that is a tablespace where a redo log is expected:
// page 0 says page number 0, the same space id in its FIL and FSP headers, FSP flags that
// decode, and it validates by the server's checksum rule. It names the file and the command
// that reads it. Any other file is left to the log reader.
func NotRedoLog(path string) error {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil // the log reader names it
	}
	f, err := regular.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	head := make([]byte, fspHeaderEnd+4)
	if _, err := io.ReadFull(f, head); err != nil || IsZero(head) {
		return nil
	}
	fl, err := DecodeFlags(binary.BigEndian.Uint32(head[fspFlags:]))
	if err != nil {
		return nil
	}
	phys := fl.PageSize
	if fl.ZipSize != 0 {
		phys = fl.ZipSize
	}
	p := make([]byte, phys)
	if _, err := f.ReadAt(p, 0); err != nil {
		return nil
	}
	h, _ := ParseFilHeader(p)
	fsp, _ := ParseFSPHeader(p)
	if h.PageNo != 0 || h.SpaceID != fsp.SpaceID || CheckPage(p, fl, 0, fsp.SpaceID).Corrupt {
		return nil
	}
	return fmt.Errorf("%s: offset 0: not a redo log: a tablespace (space id %d, %d-byte pages); read it with `innoscope pages %s`",
		path, fsp.SpaceID, phys, path)
}
