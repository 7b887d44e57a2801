package analysis

import (
	"fmt"
	"os"
	"path/filepath"

	"innoscope/discovery"
)

// Policy selects whose rules location findings follow.
type Policy string

// Policies: MariaDB (the default) only warns about datafile locations; MySQL 8's WL#13065
// refuses to recover datafiles outside the known directories and in a unique undo directory.
// PolicyAuto, the commands' default, is MySQL 8's on a MySQL 8 data directory and MariaDB's on
// any other (Policy.For).
const (
	PolicyMariaDB Policy = "mariadb"
	PolicyMySQL8  Policy = "mysql8"
	PolicyAuto    Policy = "auto"
)

// For gives the rules p stands for on the directory laid out as s. auto is PolicyMySQL8 where
// the directory holds MySQL 8's dictionary tablespace (mysql.ibd), its 8.0.30+ redo log
// (#innodb_redo) or only MySQL 8 datafiles: the server that starts on it is mysqld. An unknown
// p is an error.
func (p Policy) For(s discovery.Layout) (Policy, error) {
	switch p {
	case PolicyMariaDB, PolicyMySQL8:
		return p, nil
	case PolicyAuto, "":
		for _, f := range []string{filepath.Join(s.Datadir, "mysql.ibd"), filepath.Join(s.LogFileDir(), "#innodb_redo")} {
			if _, err := os.Stat(f); err == nil {
				return PolicyMySQL8, nil
			}
		}
		if mysql8Datafiles(s.Datadir) {
			return PolicyMySQL8, nil
		}
		return PolicyMariaDB, nil
	}
	return "", fmt.Errorf("--policy %q: want auto, mariadb or mysql8", p)
}

// mysql8Datafiles reports whether the datafiles in the database directories of datadir (the
// first 16 read) are MySQL 8's: page 0's flags carry the SDI flag (FSP_FLAGS_MASK_SDI), which no
// MariaDB file has. A directory of a MySQL server's table files alone (no mysql.ibd, no
// #innodb_redo) is one.
func mysql8Datafiles(datadir string) bool {
	files, _ := filepath.Glob(filepath.Join(datadir, "*", "*.ibd"))
	mysql, other := 0, 0
	for _, f := range files {
		if mysql+other == 16 {
			break
		}
		df, err := discovery.OpenFile(f)
		if err != nil {
			continue
		}
		if !df.FSP.Flags.FullCRC32 && df.FSP.Flags.SDI() {
			mysql++
		} else {
			other++
		}
		df.Close()
	}
	return mysql > 0 && other == 0
}
