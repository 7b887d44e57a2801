package analysis

import (
	"innoscope/discovery"
	"innoscope/finding"
	"strings"
)

// LiveSourceFindings is LIVE_SOURCE (warning) for a copy recover made with --allow-live from a
// directory a server is running on (what SERVER_RUNNING says of it): the copy holds files
// read while the server changed them, which no crash of that server would have left.
func LiveSourceFindings(s discovery.Layout) []finding.Finding {
	var fs []finding.Finding
	for _, f := range ServerFindings(s) {
		fs = append(fs, finding.Finding{Severity: finding.Warning, Code: "LIVE_SOURCE", File: f.File,
			Message: strings.TrimSuffix(f.Message, "; stop it first") + ": the copy was made from them (--allow-live), so it is not a consistent crash image " +
				"(pages and log read at different moments); stop the server, or take a backup (mariadb-backup), for a copy to rely on"})
	}
	return fs
}
