package finding

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Outcome is what a command learnt besides its findings, for the verdict line.
type Outcome struct {
	// Pages is the number of pages the server says crash recovery will recover, its "InnoDB: To
	// recover: N pages" (0: nothing to apply).
	Pages int
	// Logged is set when the log has page records after its checkpoint, so crash recovery runs
	// even when Pages is 0 (the server's start-up read every page concerned before its batch).
	Logged bool
	// After is said after the outcome when nothing is wrong ("the replayed copy verified").
	After string
	// RollBack is the number of transactions the server rolls back after recovery, and their
	// row operations.
	RollBack, RowsToUndo int64
	// Server is the server the verdict speaks of ("": mariadbd; mysqld under --policy mysql8).
	Server string
}

// refusers are the finding codes whose error means the server refuses to start (or stops
// during crash recovery), as the diagnose README table says; any other error finding means it
// starts and fails on a table. A finding whose message quotes the server's refusal counts too.
var refusers = map[string]bool{
	"SPACE_ID_MISMATCH": true, "MISSING_FILE_CHECKPOINT": true, "MISSING_MLOG_CHECKPOINT": true,
	"NO_VALID_CHECKPOINT": true, "CORRUPT_LOG": true, "CORRUPT_PAGE_NEEDED": true, "MISSING_REDO_FILE": true,
	"LOG_UNREADABLE": true, "REPLAY_FAILED": true, "DUPLICATE_SPACE_ID": true, "TRUNCATED_FILE": true,
}

// losers are the finding codes whose error (when not a refusal) means the server starts, but
// its recovery stops before the end of what the log held and loses committed work.
var losers = map[string]bool{"LOG_DAMAGED": true, "LOG_TRUNCATED": true, "LOG_END_DAMAGED": true}

// refuses tells whether an error finding stops the server at start. A finding whose message says
// the server starts never does, whatever its code (a SPACE_ID_MISMATCH of a file only the
// dictionary names: the server starts and the table is unusable).
func refuses(f Finding) bool {
	if saysStarts.MatchString(f.Message) {
		return false
	}
	return refusers[f.Code] || strings.Contains(f.Message, "refuses to start") || strings.Contains(f.Message, "refuse to start")
}

// Refuses tells whether an error finding is one by which the server refuses to start (or stops
// during crash recovery), as the verdict ranks it.
func Refuses(f Finding) bool { return refuses(f) }

// saysStarts is a message's word that the server starts despite the finding ("the server
// starts, but the table fails", "the server starts and the table is unusable"); not advice that
// mentions a start ("a copy ... which the server starts on").
var saysStarts = regexp.MustCompile(`\bthe server starts(,| and | but | without )`)

// rank orders findings for display: errors that stop the server, other errors, warnings, info.
func rank(f Finding) int {
	r := int(Error-f.Severity) * 2
	if f.Severity == Error && !refuses(f) {
		r++
	}
	return r
}

// SortFindings orders findings most severe first (errors that stop the server before other
// errors), keeping the order of findings of the same rank.
func SortFindings(fs []Finding) []Finding {
	s := append([]Finding(nil), fs...)
	sort.SliceStable(s, func(i, j int) bool { return rank(s[i]) < rank(s[j]) })
	return s
}

// Verdict is the one sentence a report starts with: what the server will do and the most
// severe finding code ("mariadbd will refuse to start: SPACE_ID_MISMATCH in 2 files").
type Verdict struct {
	Sentence string   `json:"sentence"`
	Severity Severity `json:"severity"`
	Code     string   `json:"code,omitempty"` // the most severe finding's code
	Count    int      `json:"count"`          // files (or findings without a file) with that code
}

// MakeVerdict judges findings and an outcome.
func MakeVerdict(fs []Finding, o Outcome) Verdict {
	s := SortFindings(fs)
	apply := "nothing to apply"
	if o.Pages > 0 {
		apply = "apply " + Thousands(int64(o.Pages)) + " " + plural(o.Pages, "page", "pages")
	} else if o.Logged {
		apply = "apply the log to the pages its start-up reads"
	}
	if o.RollBack > 0 {
		rb := fmt.Sprintf("roll back %s %s (%s row operations)", Thousands(o.RollBack),
			plural(int(o.RollBack), "transaction", "transactions"), Thousands(o.RowsToUndo))
		if apply == "nothing to apply" {
			apply = rb
		} else {
			apply += ", then " + rb
		}
	}
	srv := o.Server
	if srv == "" {
		srv = "mariadbd"
	}
	for _, f := range s {
		if f.Code == "LOG_ONLY" { // no datafiles: nothing to judge the server by
			v := Verdict{Severity: s[0].Severity, Code: f.Code, Count: 1,
				Sentence: "only a redo log was given: what " + srv + " will do cannot be said without the data directory's files"}
			if o.Logged {
				v.Sentence += "; the log holds changes crash recovery would apply"
			}
			return v
		}
	}
	if len(s) == 0 || s[0].Severity == Info {
		v := Verdict{Severity: Info, Sentence: srv + " will start and " + apply}
		if o.Pages == 0 && !o.Logged && o.RollBack == 0 {
			v.Sentence = srv + " will start: nothing to recover"
		}
		if o.After != "" {
			v.Sentence += "; " + o.After
		}
		return v
	}
	top := s[0]
	v := Verdict{Severity: top.Severity, Code: top.Code}
	files := map[string]bool{}
	others := 0
	for _, f := range s {
		if f.Code == top.Code && f.Severity == top.Severity {
			files[f.File] = true
		} else if f.Severity == top.Severity {
			others++
		}
	}
	v.Count = len(files)
	what := top.Code + " in " + Thousands(int64(v.Count)) + " " + plural(v.Count, "file", "files")
	if others > 0 {
		what += fmt.Sprintf(" and %d other %s", others, plural(others, top.Severity.String(), top.Severity.String()+"s"))
	}
	switch {
	case top.Code == "SERVER_RUNNING":
		v.Sentence = "a server is running on this directory: " + what
	case top.Severity == Error && refuses(top):
		v.Sentence = srv + " will refuse to start: " + what
	case top.Severity == Error && losers[top.Code]:
		v.Sentence = srv + " will start, but its recovery stops early and loses committed work: " + what
	case top.Severity == Error:
		v.Sentence = srv + " will start, but tables will fail: " + what
	case o.Pages == 0 && !o.Logged && o.RollBack == 0:
		v.Sentence = srv + " will start: nothing to recover; warnings: " + what
	default:
		v.Sentence = srv + " will start and " + apply + ", with warnings: " + what
	}
	return v
}

// Thousands writes n with commas between groups of three digits (2,449).
func Thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
