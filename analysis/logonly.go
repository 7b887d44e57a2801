package analysis

import (
	"fmt"
	"sort"
	"strings"

	"innoscope/discovery"
	"innoscope/finding"
)

// logOnlyDiagnosis is the diagnosis of a directory holding only a redo log (log, at which
// discovery.Layout.LogOnly points): the log's own findings (fs) and LOG_ONLY, which says what the
// log holds and what cannot be said without the files. a is the log read from its checkpoint
// (nil: unusable; fs then has its finding).
func logOnlyDiagnosis(s discovery.Layout, log string, a *Analysis, cpLSN uint64, fs []finding.Finding) *Diagnosis {
	logged := a
	if a == nil {
		a = &Analysis{Map: &Map{}}
	}
	fs = append(fs, finding.Finding{Severity: finding.Warning, Code: "LOG_ONLY", File: log, Message: logOnlyMessage(s, logged, cpLSN)})
	sum := map[string]int{"error": 0, "warning": 0, "info": 0}
	end := a.Map.EndLSN
	for i := range fs {
		sum[fs[i].Severity.String()]++
		if fs[i].LSN == nil && logged != nil {
			fs[i].LSN = &end
		}
	}
	in := Input{Datadir: s.Datadir, Analysis: logged, EndLSN: end, Pages: map[string]*discovery.Report{}, LogName: LogName(s)}
	return &Diagnosis{Layout: s, Input: in, Findings: fs, Summary: sum, CheckpointLSN: cpLSN, Analysis: a,
		LogFindings: append([]finding.Finding(nil), fs[:len(fs)-1]...), LogOnly: true}
}

// logOnlyMessage is LOG_ONLY's message: what is missing, what the log says (its stretch to
// recover, the pages and files its records name) and what cannot be said.
func logOnlyMessage(s discovery.Layout, a *Analysis, cpLSN uint64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "only the redo log is here (no %s, mysql/ directory, undo tablespace or database directory of datafiles). ",
		s.SystemFiles()[0])
	if a != nil {
		spaces := map[uint32]bool{}
		for id := range a.Pages {
			spaces[id.Space] = true
		}
		var names []string
		for _, sp := range a.Map.Sorted() {
			names = append(names, sp.Name)
		}
		sort.Strings(names)
		if len(names) > 6 {
			names = append(names[:6], fmt.Sprintf("%d more", len(names)-6))
		}
		fmt.Fprintf(&b, "What the log says: crash recovery starts at checkpoint LSN %d and reads to LSN %d, %s page records for %s pages in %d tablespaces",
			cpLSN, a.Map.EndLSN, finding.Thousands(int64(a.PageRecords)), finding.Thousands(int64(len(a.Pages))), len(spaces))
		if len(names) > 0 {
			fmt.Fprintf(&b, ", files %s", strings.Join(names, ", "))
		}
		b.WriteString(" (innoscope log stats, map). ")
	}
	b.WriteString("What cannot be said without the files: whether they exist with the space ids the log gives, whether " +
		"their pages are intact, the dictionary and the rollback, so not whether mariadbd starts: diagnose the data " +
		"directory the log came from")
	return b.String()
}
