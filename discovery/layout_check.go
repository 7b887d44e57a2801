package discovery

import (
	"fmt"
	"innoscope/internal/regular"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// dataFileSpec is one file of innodb_data_file_path.
type dataFileSpec struct {
	name       string
	mib        uint64 // the size given, in MiB
	autoextend bool
}

// parseDataFilePath parses innodb_data_file_path as the server does
// (srv_parse_data_file_paths_and_sizes): name:size[:autoextend[:max:size]] files separated by
// ';', sizes in bytes or with a K, M or G suffix, each at least 1 MiB, autoextend on the last
// file only.
func parseDataFilePath(v string) ([]dataFileSpec, error) {
	var out []dataFileSpec
	specs := strings.Split(v, ";")
	for i, spec := range specs {
		parts := strings.Split(spec, ":")
		if len(parts) < 2 || parts[0] == "" {
			return nil, fmt.Errorf("%q is not name:size", spec)
		}
		d := dataFileSpec{name: parts[0]}
		var err error
		size := strings.TrimSuffix(strings.TrimSuffix(parts[1], "newraw"), "raw")
		if d.mib, err = parseMiB(size); err != nil {
			return nil, err
		}
		rest := parts[2:]
		if len(rest) > 0 && rest[0] == "autoextend" {
			if i != len(specs)-1 {
				return nil, fmt.Errorf("%q: only the last file can autoextend", spec)
			}
			d.autoextend, rest = true, rest[1:]
			if len(rest) == 2 && rest[0] == "max" {
				if _, err := parseMiB(rest[1]); err != nil {
					return nil, err
				}
				rest = nil
			}
		}
		if len(rest) > 0 {
			return nil, fmt.Errorf("%q: unexpected %q", spec, strings.Join(rest, ":"))
		}
		out = append(out, d)
	}
	return out, nil
}

// parseMiB reads a size as the server's parse_megabytes does: digits, then G, M or K (any case),
// or bytes; less than 1 MiB is refused.
func parseMiB(s string) (uint64, error) {
	digits := strings.TrimRight(s, "GgMmKk")
	n, err := strconv.ParseUint(digits, 10, 64)
	if err != nil || len(s)-len(digits) > 1 {
		return 0, fmt.Errorf("size %q is not a number with an optional K, M or G", s)
	}
	switch strings.ToUpper(s[len(digits):]) {
	case "G":
		n *= 1024
	case "M":
	case "K":
		n /= 1024
	default:
		n /= 1 << 20
	}
	if n < 1 {
		return 0, fmt.Errorf("size %q is less than 1 megabyte", s)
	}
	return n, nil
}

// Check refuses options that contradict the files, as the server does at start: an
// innodb_data_file_path it cannot parse or whose sizes do not fit the files, an
// innodb_page_size other than the system tablespace's. The errors name the options as the
// server's command line spells them.
func (l Layout) Check() error {
	dir, _ := l.SystemFile()
	var specs []dataFileSpec
	if l.DataFilePath != "" {
		var err error
		if specs, err = parseDataFilePath(l.DataFilePath); err != nil {
			return fmt.Errorf("--innodb-data-file-path %q: %v; the server refuses to start (\"Unable to parse innodb_data_file_path=%s\")",
				l.DataFilePath, err, l.DataFilePath)
		}
	}
	first := filepath.Join(l.SystemFile())
	// The server names the files by its innodb_data_home_dir ("./" by default).
	quoted := func(name string) string {
		if l.DataHomeDir == "" {
			return "./" + name
		}
		return filepath.Join(l.DataHomeDir, name)
	}
	pageSize, err := SystemPageSize(l.SystemFile())
	if err != nil || page0Zero(first) {
		return nil // no flags to compare with: the files' own findings say why
	}
	if l.PageSize != 0 && l.PageSize != pageSize {
		return fmt.Errorf("--innodb-page-size %d: %s uses page size %d; the server refuses to start (\"Data file '%s' uses page size %d, but the innodb_page_size start-up parameter is %d\")",
			l.PageSize, first, pageSize, quoted(filepath.Base(first)), pageSize, l.PageSize)
	}
	for i, d := range specs {
		fi, err := os.Stat(filepath.Join(dir, d.name))
		if err != nil {
			continue // a missing file is reported by the scan (or created by the server)
		}
		have, want := fi.Size()/int64(pageSize), int64(d.mib)<<20/int64(pageSize)
		switch {
		case d.autoextend && i == len(specs)-1 && have < want:
			return fmt.Errorf("--innodb-data-file-path %q: %s has %d pages, fewer than the %d given for it; the server refuses to start (\"The Auto-extending data file '%s' is of a different size %d pages than specified by innodb_data_file_path\")",
				l.DataFilePath, fi.Name(), have, want, quoted(d.name), have)
		case !d.autoextend && have != want:
			return fmt.Errorf("--innodb-data-file-path %q: %s has %d pages, not the %d given for it; the server refuses to start (\"The data file '%s' is of a different size %d pages than the %d pages specified by innodb_data_file_path\")",
				l.DataFilePath, fi.Name(), have, want, quoted(d.name), have, want)
		}
	}
	return nil
}

// page0Zero reports whether the first bytes of page 0 of the file at p (its FIL and FSP headers)
// are all zero: no flags to read.
func page0Zero(p string) bool {
	f, err := regular.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 512)
	n, _ := f.ReadAt(b, 0)
	return IsZero(b[:n])
}
