package discovery

import (
	"fmt"
	"regexp"
	"strings"
)

// MySQL 8 gives its undo tablespaces space ids of their own: the ids just below the redo log's
// pseudo space id 0xFFFFFFF0, each of the 127 undo space numbers owning a range of them (a
// truncated undo tablespace comes back with the next id of its range). The range was 512 ids
// in the first 8.0 releases and is 400000 since; the wider one holds both.
const (
	mysqlLogSpaceID   = 0xFFFFFFF0
	mysqlUndoSpaces   = 127
	mysqlUndoIDsEach  = 400000
	MySQLUndoSpaceMax = mysqlLogSpaceID - 1                                // undo space number 1's first id
	MySQLUndoSpaceMin = mysqlLogSpaceID - mysqlUndoSpaces*mysqlUndoIDsEach // the lowest id MySQL reserves for undo
)

// IsMySQLUndoSpace reports whether id is one MySQL 8 reserves for undo tablespaces.
func IsMySQLUndoSpace(id uint32) bool { return id >= MySQLUndoSpaceMin && id <= MySQLUndoSpaceMax }

// undoName matches the names the servers give the undo tablespaces they create in
// innodb_undo_directory: undo001..undo127 (MariaDB, MySQL 5.7) and undo_001..undo_127 (MySQL 8).
var undoName = regexp.MustCompile(`^undo_?\d{3}$`)

// UndoFileName reports whether a file of this name is an undo tablespace by its name: one the
// server creates (undoNNN, undo_NNN) or a MySQL 8 CREATE UNDO TABLESPACE file (*.ibu, which
// MySQL requires of them and finds in the undo directory and the known directories).
func UndoFileName(name string) bool {
	return undoName.MatchString(name) || (strings.HasSuffix(name, ".ibu") && len(name) > len(".ibu"))
}

// MySQLUndoNumber is the undo space number (1..127, innodb_undo_001 is 1) of MySQL 8 undo space
// id id: the ids go down from MySQLUndoSpaceMax one number after the other, the first id of
// each number, then the second, and so on.
func MySQLUndoNumber(id uint32) int {
	if !IsMySQLUndoSpace(id) {
		return 0
	}
	return int((MySQLUndoSpaceMax-id)%mysqlUndoSpaces) + 1
}

// classifyUndo adjusts t, just described, by what its page 0 says of undo: a datafile found
// as a table's (.ibd) whose space id MySQL reserves for undo is an undo tablespace; a file
// named as a MySQL undo tablespace (undo_NNN, *.ibu) whose space id is not one of those is
// noted.
func (t *Tablespace) classifyUndo() {
	if t.Error != "" || t.Note == NotePage0Zero {
		return
	}
	base := t.Path[strings.LastIndexByte(t.Path, '/')+1:]
	mysqlName := strings.HasPrefix(base, "undo_") || strings.HasSuffix(base, ".ibu")
	switch {
	case IsMySQLUndoSpace(t.SpaceID) && (t.FoundBy == FoundScan || t.FoundBy == FoundISL):
		t.FoundBy = FoundUndo
		t.addNote(fmt.Sprintf("an undo tablespace by its space id (MySQL 8 undo space number %d), though named as a table's datafile", MySQLUndoNumber(t.SpaceID)))
	case IsMySQLUndoSpace(t.SpaceID) && t.FoundBy == FoundUndo:
		t.addNote(fmt.Sprintf("MySQL 8 undo space number %d", MySQLUndoNumber(t.SpaceID)))
	case t.FoundBy == FoundUndo && mysqlName:
		t.addNote(fmt.Sprintf("named as a MySQL 8 undo tablespace, but page 0 gives space id %d, outside the ids MySQL reserves for undo (%d-%d)", t.SpaceID, uint32(MySQLUndoSpaceMin), uint32(MySQLUndoSpaceMax)))
	}
}

func (t *Tablespace) addNote(s string) {
	if t.Note != "" {
		t.Note += "; "
	}
	t.Note += s
}
