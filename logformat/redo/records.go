package redo

import (
	"fmt"
	"path"
	"strings"

	"innoscope/finding"
	"innoscope/logformat"
	"innoscope/logformat/logcheck"
)

// Record is one redo record in the shape common to every format; its JSON is a line of
// `log records --json`.
type Record struct {
	MTRLSN        uint64  `json:"mtr_lsn"`
	MTREndLSN     uint64  `json:"mtr_end_lsn"`
	Index         int     `json:"index"`
	Type          string  `json:"type"`
	Space         uint32  `json:"space"`
	Page          uint32  `json:"page"`
	SamePage      bool    `json:"same_page"`
	Len           int     `json:"len"`
	Subtype       string  `json:"subtype,omitempty"`
	Offset        *uint32 `json:"offset,omitempty"`
	Length        *uint32 `json:"length,omitempty"`
	Name          string  `json:"name,omitempty"`
	NewName       string  `json:"new_name,omitempty"`
	CheckpointLSN uint64  `json:"checkpoint_lsn,omitempty"`
	Summary       string  `json:"summary"`
	Malformed     string  `json:"malformed,omitempty"`
	// HasSpace and HasPage say whether the record names a tablespace and a page.
	HasSpace bool `json:"-"`
	HasPage  bool `json:"-"`
}

// End is where a scan of the log ended and why.
type End struct {
	LSN    uint64 // the end of the last complete mini-transaction
	Reason logformat.StopReason
	Detail string
	// Offset is the file offset where the scan stopped, when OffsetKnown (MariaDB 10.8+).
	Offset      int64
	OffsetKnown bool
	// To is the end LSN the scan was given (--to-lsn; 0: none): a scan stopped there (Reason
	// StopLimit) did not reach the end of the log.
	To uint64
}

// String is the line that says where and why the log ends, or where the scan stopped short of
// it at --to-lsn.
func (e End) String() string {
	at := ""
	if e.OffsetKnown {
		at = fmt.Sprintf(" at file offset %d", e.Offset)
	}
	if e.Reason == logformat.StopLimit {
		return fmt.Sprintf("stopped at --to-lsn %d: the scan ends at LSN %d%s, where the first mini-transaction at or after it starts; the log was not read further",
			e.To, e.LSN, at)
	}
	return fmt.Sprintf("end of log at LSN %d: %s (%s)%s", e.LSN, e.Reason, e.Detail, at)
}

// Filter selects records: by type name (nil: any), tablespace id and page number (-1: any).
type Filter struct {
	Type        func(name string) bool
	Space, Page int64
}

func (f *Filter) match(name string, space, page uint32) bool {
	return (f.Type == nil || f.Type(name)) && (f.Space < 0 || int64(space) == f.Space) && (f.Page < 0 || int64(page) == f.Page)
}

// Listing is what a listing of the records found at the end of the log: where and why it
// ended, and its findings.
type Listing struct {
	End      End
	Findings []finding.Finding
	// Quiet: the findings decide the exit status but are not printed (the end line says it).
	Quiet bool
}

// RecordScan is a scan of the log's records, started by Records.
type RecordScan struct {
	l     *Log
	opt   ScanOptions
	sc    *logformat.Scanner // MariaDB 10.5+
	cpLSN uint64
}

// Records starts a scan of the log's records from the checkpoint or opt.From; an error says
// why it cannot start (for MLOG logs, a corrupt record is a finding of Each).
func (l *Log) Records(opt ScanOptions) (*RecordScan, error) {
	rs := &RecordScan{l: l, opt: opt}
	if l.blocks != nil && !l.blocks.Physical() {
		_, _, err := l.blockStart(opt.From)
		return rs, err
	}
	var err error
	rs.sc, rs.cpLSN, err = l.Scanner(opt)
	return rs, err
}

// TypeWidth is the width of a table column that holds the log's record type names.
func (l *Log) TypeWidth() int {
	if l.blocks != nil && !l.blocks.Physical() {
		return 26
	}
	return 17
}

// Each calls fn for every record the filter selects, in log order, until the end of the log
// (or opt.To); an error from fn or from reading ends it.
func (rs *RecordScan) Each(f Filter, fn func(*Record) error) (*Listing, error) {
	l, sc, cpLSN := rs.l, rs.sc, rs.cpLSN
	if sc == nil {
		return rs.mlog(f, fn)
	}
	each := func(m *logformat.MTR) error {
		for i := range m.Records {
			if x := &m.Records[i]; !f.match(x.Type.String(), x.Space, x.Page) {
				continue
			}
			r := toRecord(m, i)
			if err := fn(&r); err != nil {
				return err
			}
		}
		return nil
	}
	if l.blocks == nil {
		capacity := int64(l.v108.Capacity())
		start := sc.LSN()
		for sc.Next() {
			m := sc.MTR()
			if rs.opt.Progress != nil {
				rs.opt.Progress(int64(m.EndLSN-start), capacity)
			}
			if m.LSN < rs.opt.From {
				continue
			}
			if err := each(m); err != nil {
				return nil, err
			}
		}
		if err := sc.Err(); err != nil {
			return nil, err
		}
		reason, detail, off := sc.Stop()
		return &Listing{End: End{LSN: sc.LSN(), Reason: reason, Detail: detail, Offset: off, OffsetKnown: true, To: rs.opt.To},
			Findings: logcheck.Scan(l.Path, nil, sc, sc.LSN(), logcheck.FileCheckpoint(l.v108, l.Path, l.PageSize), cpLSN, 0, 0)}, nil
	}
	start := sc.LSN()
	var fcpEnd uint64
	for sc.Next() && (rs.opt.To == 0 || sc.MTR().LSN < rs.opt.To) {
		fcpEnd = fileCheckpointEnd(sc.MTR(), cpLSN, fcpEnd)
		if err := each(sc.MTR()); err != nil {
			return nil, err
		}
	}
	reason, detail, _ := sc.Stop()
	end := sc.LSN()
	return &Listing{End: End{LSN: end, Reason: reason, Detail: detail, To: rs.opt.To},
		Findings: logcheck.Clean105(logcheck.Scan(l.Path, nil, sc, end, l.FileCheckpointFinding(start, end, fcpEnd, cpLSN), cpLSN, 0, 0), end, cpLSN)}, nil
}

// mlog is Each for an MLOG log.
func (rs *RecordScan) mlog(f Filter, fn func(*Record) error) (*Listing, error) {
	var werr error
	sc, _, _, err := rs.l.scanMLog(rs.opt, func(m *logformat.MLogMTR) {
		for i, r := range m.Records {
			if werr != nil {
				continue
			}
			if !f.match(r.Type.String(), r.Space, r.Page) {
				continue
			}
			summary := r.Name
			if r.NewName != "" {
				summary += " -> " + r.NewName
			}
			j := Record{MTRLSN: m.LSN, MTREndLSN: m.EndLSN, Index: i, Type: r.Type.String(), Space: r.Space,
				Page: r.Page, Len: r.Len, Name: r.Name, NewName: r.NewName, Summary: summary,
				HasPage: r.Type.HasPage(), HasSpace: r.Type.HasPage() || r.Type.IsFile()}
			werr = fn(&j)
		}
	})
	if werr != nil {
		return nil, werr
	}
	ls := &Listing{End: End{LSN: sc.EndLSN, Reason: sc.Stop, Detail: sc.StopDetail}, Quiet: true}
	if err != nil {
		ls.Findings = []finding.Finding{logcheck.CorruptMLog(rs.l.Path, sc.EndLSN, err)}
	}
	return ls, nil
}

// toRecord is record i of m in the common shape.
func toRecord(m *logformat.MTR, i int) Record {
	r := &m.Records[i]
	j := Record{MTRLSN: m.LSN, MTREndLSN: m.EndLSN, Index: i, Type: r.Type.String(), Space: r.Space,
		Page: r.Page, SamePage: r.SamePage, Len: r.Len, Name: r.Name(), NewName: r.NewName(),
		CheckpointLSN: r.CheckpointLSN, Summary: r.Summary(), Malformed: r.Malformed,
		HasSpace: true, HasPage: !(r.Type.IsFile() || r.Type == logformat.Padding)}
	switch r.Type {
	case logformat.Extended:
		j.Subtype = r.ExtSub().String()
	case logformat.Option:
		j.Subtype = fmt.Sprint(r.Sub)
	case logformat.Write, logformat.Memset, logformat.Memmove:
		off, n := r.Offset, r.Length
		j.Offset, j.Length = &off, &n
	}
	return j
}

// fileCheckpointEnd is the end LSN of m when it holds the FILE_CHECKPOINT for cpLSN and none
// was seen before (found != 0), else found.
func fileCheckpointEnd(m *logformat.MTR, cpLSN, found uint64) uint64 {
	if found != 0 {
		return found
	}
	for i := range m.Records {
		if r := &m.Records[i]; r.Type == logformat.FileCheckpoint && r.CheckpointLSN == cpLSN {
			return m.EndLSN
		}
	}
	return 0
}

// TypeFilter matches record type names against spec, comma-separated names or globs of the
// log format's record types (TypeNames); "" matches every type.
func (l *Log) TypeFilter(spec string) (func(name string) bool, error) {
	if spec == "" {
		return func(string) bool { return true }, nil
	}
	want := map[string]bool{}
	for _, pat := range strings.Split(spec, ",") {
		pat = strings.ToUpper(strings.TrimSpace(pat))
		n := 0
		for _, name := range l.TypeNames() {
			if ok, err := path.Match(pat, name); err != nil {
				return nil, fmt.Errorf("%q: %v", pat, err)
			} else if ok {
				want[name] = true
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("%q matches no record type", pat)
		}
	}
	return func(name string) bool { return want[name] }, nil
}
