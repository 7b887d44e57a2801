package schema

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"innoscope/discovery"
)

// FromFile reads the definition of the table whose tablespace is the file ibd, from that file
// and the table's .frm alone (no system tablespace, no redo log): the .frm given, or the one
// beside the file; without one (or with frm "none"), the SDI inside the file (MySQL 8.0+), where
// name ("DB.TABLE") chooses among the tables of a general tablespace.
func FromFile(ibd, frm, name string) (*Table, error) {
	if err := discovery.NotTablespace(ibd); err != nil {
		return nil, err
	}
	if name != "" && !HasSDI(ibd) {
		if _, err := os.Stat(ibd); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%s: a table's name after the file chooses among the tables of a MySQL general tablespace; this file holds one table, named by its .frm (and its database by its directory): leave %s out", ibd, name)
	}
	if frm == "none" { // the SDI of a MySQL 8 file, even with a .frm beside it
		t, _, err := FromSDI(ibd, name)
		return t, err
	}
	if frm == "" && name == "" {
		frm = FrmBeside(ibd)
		if frm == "" && !HasSDI(ibd) {
			if _, err := os.Stat(ibd); err != nil {
				return nil, err
			}
			return nil, noFrm(ibd)
		}
	}
	if frm != "" {
		if name != "" {
			return nil, fmt.Errorf("%s: a table's name goes with a MySQL general tablespace (several tables in one file), not with a .frm", ibd)
		}
		return FromFrmFile(ibd, frm)
	}
	t, _, err := FromSDI(ibd, name)
	return t, err
}

// FrmBeside is the .frm beside the tablespace file ibd (a partition's: its table's), "" when
// there is none.
func FrmBeside(ibd string) string {
	beside := filepath.Join(filepath.Dir(ibd), TableOf(strings.TrimSuffix(filepath.Base(ibd), ".ibd"))+".frm")
	if _, err := os.Stat(beside); err != nil {
		return ""
	}
	return beside
}

// noFrm is the error for the file ibd of a MariaDB or MySQL 5.x table without its .frm.
func noFrm(ibd string) error {
	beside := filepath.Join(filepath.Dir(ibd), TableOf(strings.TrimSuffix(filepath.Base(ibd), ".ibd"))+".frm")
	return fmt.Errorf("%s: no %s beside it, and the file is not MySQL 8's (no SDI inside): a MariaDB or MySQL 5.x table's definition is in its .frm: give it (`rows FILE.ibd --frm FILE.frm`, `schema FILE.frm`; from a backup, or written by the table's CREATE TABLE on any server); with its data directory's ibdata1, `innoscope schema DIR DB.TABLE` writes one from the InnoDB dictionary", ibd, beside)
}
