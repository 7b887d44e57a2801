package analysis

import (
	"os"
	"sort"

	"innoscope/discovery"
)

// deniedExpected is the permission error (discovery.UnreadableError) of a file that the log or
// the dictionary names and innoscope may not look at (a DATA DIRECTORY in a directory only the
// server's user may enter): innoscope's own limit, not a missing file (the server, which runs
// as another user, may well open it); nil when there is none.
func deniedExpected(in Input) error {
	paths := []string{}
	for p, e := range expectations(in) {
		paths = append(paths, p, shownPath(in.Datadir, e.name))
	}
	sort.Strings(paths)
	for _, p := range paths {
		if _, err := os.Stat(p); discovery.PermissionDenied(err) != nil {
			return discovery.PermissionDenied(err)
		}
	}
	return nil
}
