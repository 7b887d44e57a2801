package schema

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// FromFile reads the definition of the table whose tablespace is the file ibd, from that file
// and the table's .frm alone (no system tablespace, no redo log): the .frm given, or the one
// beside the file; without one, the SDI inside the file (MySQL 8.0+), where name ("DB.TABLE")
// chooses among the tables of a general tablespace.
func FromFile(ibd, frm, name string) (*Table, error) {
	if frm == "" && name == "" {
		frm = FrmBeside(ibd)
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
