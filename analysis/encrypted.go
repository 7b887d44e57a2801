package analysis

import (
	"fmt"

	"innoscope/discovery"
	"innoscope/finding"
)

// encryptedFindings are ENCRYPTED_TABLESPACE (info), one per encrypted tablespace the log
// changes after the checkpoint: the server recovers it with its key management plugin loaded
// (and refuses to open it without), while innoscope, which has no keys, cannot replay it, so
// `recover` and `verify` stop (exit 2) on such a directory.
func encryptedFindings(in Input) []finding.Finding {
	if in.Analysis == nil {
		return nil
	}
	touched := map[uint32]bool{}
	for id := range in.Analysis.Pages {
		touched[id.Space] = true
	}
	var fs []finding.Finding
	for _, t := range in.Spaces {
		if t.Error != "" || !touched[t.SpaceID] || t.Encryption == discovery.CryptUnencrypted {
			continue
		}
		fs = append(fs, finding.Finding{Severity: finding.Info, Code: "ENCRYPTED_TABLESPACE", SpaceID: u32(t.SpaceID), File: t.Path,
			Message: fmt.Sprintf("encrypted (scheme %d on page 0) and the log changes it: the server recovers it only with its key management plugin loaded; "+
				"innoscope cannot decrypt, so `innoscope recover` and `verify` stop (exit 2) on this directory", t.Encryption)})
	}
	return fs
}
