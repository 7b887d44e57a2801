package discovery

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Settings are where a server's layout comes from for one command: a my.cnf read as mariadbd
// reads it, the location options given on the command line (by their my.cnf names, '_' not
// '-': LayoutOptions), and a data directory argument, which wins for the data directory.
type Settings struct {
	DefaultsFile string            // "": none
	Options      map[string]string // the options given, by name; they win over the my.cnf
	Dir          string            // the DIR argument ("": none)
	Notes        io.Writer         // receives a line when a choice is made for the user (nil: none)
}

// Resolve is the server's layout from the settings: the my.cnf, then the options, then the
// DIR argument. A DIR other than the my.cnf's datadir is read instead of it (with a note),
// unless the my.cnf places files outside the data directory by an absolute path (they would
// be read with DIR's files: the server's own redo log or undo tablespaces with a copy's
// datafiles): refused. A my.cnf that sets no datadir gives the server's built-in one.
func (st Settings) Resolve() (Layout, error) {
	notes := st.Notes
	if notes == nil {
		notes = io.Discard
	}
	opt := map[string]string{}
	if st.DefaultsFile != "" {
		var err error
		if opt, err = ReadMyCnf(st.DefaultsFile); err != nil {
			return Layout{}, err
		}
	}
	fromCnf := map[string]bool{}
	for _, name := range LayoutOptions {
		if v, ok := st.Options[name]; ok {
			opt[name] = v
		} else if opt[name] != "" {
			fromCnf[name] = true
		}
	}
	if st.Dir != "" {
		if d, ok := st.Options["datadir"]; ok && !SameDir(st.Dir, d) {
			return Layout{}, fmt.Errorf("DIR %s and --datadir %s name different directories: give one", st.Dir, d)
		}
		if fromCnf["datadir"] && !SameDir(st.Dir, opt["datadir"]) {
			if err := st.otherDatadir(opt, fromCnf, notes); err != nil {
				return Layout{}, err
			}
		}
		opt["datadir"] = st.Dir
	}
	if opt["datadir"] == "" && st.DefaultsFile == "" {
		return Layout{}, fmt.Errorf("no data directory: give DIR, --datadir or a --defaults-file")
	}
	if opt["datadir"] == "" { // as the server started with that my.cnf: its built-in one
		opt["datadir"] = DefaultDatadir
		fmt.Fprintf(notes, "innoscope: note: %s sets no datadir (nor do the flags): reading the server's built-in default %s, as mariadbd does (mariadbd --help --verbose | grep ^datadir)\n",
			st.DefaultsFile, DefaultDatadir)
	}
	return NewLayout(opt)
}

// cnfDirs are the location settings whose absolute value names a directory of the server
// the my.cnf describes, whatever the data directory.
var cnfDirs = []string{"innodb_data_home_dir", "innodb_log_group_home_dir", "innodb_undo_directory", "innodb_directories"}

// otherDatadir judges a DIR given with a my.cnf whose datadir is another directory.
func (st Settings) otherDatadir(opt map[string]string, fromCnf map[string]bool, notes io.Writer) error {
	for _, name := range cnfDirs {
		if !fromCnf[name] {
			continue
		}
		for _, d := range strings.Split(opt[name], ";") {
			if filepath.IsAbs(strings.TrimSpace(d)) {
				return fmt.Errorf("DIR %s is not the datadir %s of %s, whose %s=%s would be read with DIR's files: "+
					"give --%s for DIR's own (or --datadir alone without --defaults-file)",
					st.Dir, opt["datadir"], st.DefaultsFile, name, opt[name], strings.ReplaceAll(name, "_", "-"))
			}
		}
	}
	fmt.Fprintf(notes, "innoscope: note: reading DIR %s, not the datadir %s of %s (its other settings apply)\n",
		st.Dir, opt["datadir"], st.DefaultsFile)
	return nil
}

// SameDir reports whether a and b name the same directory (the same path, or one reached
// through a symbolic link).
func SameDir(a, b string) bool {
	if AbsPath(a) == AbsPath(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}
