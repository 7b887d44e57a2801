// Package analysis says what crash recovery will do with a data directory, and why, without
// writing anything: the redo log read once from its checkpoint (ReadLog, Prepass, MapLog) into
// the space id → file map and the pages it names (Analysis), the diagnosis that compares the
// log, the files, their pages and the dictionary (Run, Diagnose), and the plans recovery
// follows (page-0 refusals, .isl redirects, the rollback of uncommitted DDL).
package analysis

import (
	"os"
	"sort"

	"innoscope/logformat"
)

// EventKind names a file operation logged in the redo log.
type EventKind string

// Event kinds, from FILE_CREATE, FILE_MODIFY, FILE_RENAME and FILE_DELETE records.
const (
	Create EventKind = "create"
	Modify EventKind = "modify"
	Rename EventKind = "rename"
	Delete EventKind = "delete"
)

// Event is one file record, at the LSN of the mini-transaction that holds it (the LSN
// `log records` prints and the server's fil_name_process uses).
type Event struct {
	LSN     uint64    `json:"lsn"`
	Kind    EventKind `json:"kind"`
	Name    string    `json:"name"`
	NewName string    `json:"new_name,omitempty"`
	seq     int       // the record's place in the log, across all tablespaces
}

// Space is one tablespace id's file history in the log.
type Space struct {
	ID uint32 `json:"space_id"`
	// Name is the file name at the map's LSN: the last created, modified or renamed-to name.
	Name string `json:"name"`
	// Deleted: the last event is FILE_DELETE.
	Deleted bool `json:"deleted"`
	// Names are every name the log ties to this id, the old name of a rename included (a valid
	// mapping even without a FILE_MODIFY for it: recovery must learn it from the rename).
	Names  []string `json:"names"`
	Events []Event  `json:"events"`
	// Tables and DDPath are what a MySQL 8 data dictionary says of the space (its tables, its
	// file name); empty elsewhere.
	Tables []string `json:"tables,omitempty"`
	DDPath string   `json:"dd_path,omitempty"`
}

// Map is the space id → file name map rebuilt from file records.
type Map struct {
	FromLSN uint64 // where the scan started (normally the checkpoint)
	AtLSN   uint64 // events at or after this LSN are not applied (0: none excluded)
	EndLSN  uint64 // end of the scanned log
	Spaces  map[uint32]*Space
	events  int // file records applied so far (the next Event's seq)
}

// PageID names a page.
type PageID struct{ Space, Page uint32 }

// Analysis is what one pass over the log from the checkpoint tells about recovery.
type Analysis struct {
	Map *Map
	// Pages maps every page a page record names to whether recovery must read it from its file:
	// false when an INIT_PAGE or FREE_PAGE in the scanned log rebuilds or frees it.
	Pages       map[PageID]bool
	PageRecords int
	// FileCheckpointEnd is the end LSN of the FILE_CHECKPOINT for checkpointLSN (0: not seen).
	FileCheckpointEnd uint64
	// Trims are the undo tablespace truncations (EXTENDED TRIM_PAGES), the last one per space.
	Trims map[uint32]Trim
	// Freed are the pages whose last INIT_PAGE or FREE_PAGE is a FREE_PAGE: the server's
	// freed ranges, whose records recovery does not apply at all.
	Freed map[PageID]bool
	// Last is, for each page of Pages, the start LSN of the last mini-transaction with a record
	// for it (nil for a log of MLOG records).
	Last map[PageID]uint64
}

// Trim is an undo tablespace truncation: the mini-transaction at LSN cuts the file to Pages
// pages, and the records before it for that tablespace are void.
type Trim struct {
	LSN   uint64
	Pages uint32
}

// Build reads sc to its end and applies the file records of mini-transactions starting
// before atLSN (0: all).
func Build(sc *logformat.Scanner, atLSN uint64) (*Map, error) {
	a, err := Analyze(sc, atLSN, 0)
	return a.Map, err
}

// Analyze reads sc to its end: the space map (file records of mini-transactions before atLSN,
// 0: all), the pages named by page records and whether recovery reads them, and where the
// FILE_CHECKPOINT for checkpointLSN is.
func Analyze(sc *logformat.Scanner, atLSN, checkpointLSN uint64) (*Analysis, error) {
	return analyze(sc, atLSN, checkpointLSN, nil)
}

// analyze is Analyze, giving each mini-transaction read to each (when not nil) first.
func analyze(sc *logformat.Scanner, atLSN, checkpointLSN uint64, each func(*logformat.MTR)) (*Analysis, error) {
	m := &Map{FromLSN: sc.LSN(), AtLSN: atLSN, Spaces: map[uint32]*Space{}}
	a := &Analysis{Map: m, Trims: map[uint32]Trim{}, Freed: map[PageID]bool{}}
	pages := newPageTally()
	for sc.Next() {
		mtr := sc.MTR()
		if each != nil {
			each(mtr)
		}
		if atLSN != 0 && mtr.LSN >= atLSN {
			continue
		}
		for i := range mtr.Records {
			r := &mtr.Records[i]
			if r.Type < logformat.FileCreate {
				a.PageRecords++
				if r.Type == logformat.Extended && r.ExtSub() == logformat.TrimPages {
					a.Trims[r.Space] = Trim{LSN: mtr.LSN, Pages: r.Page} // names the new size, not a page
					continue
				}
				if !r.SamePage {
					pages.add(PageID{r.Space, r.Page}, mtr.LSN, r.Type == logformat.InitPage, r.Type == logformat.FreePage)
				}
				continue
			}
			if r.Type == logformat.FileCheckpoint && r.CheckpointLSN == checkpointLSN && checkpointLSN != 0 && a.FileCheckpointEnd == 0 {
				a.FileCheckpointEnd = mtr.EndLSN
			}
			var k EventKind
			switch r.Type {
			case logformat.FileCreate:
				k = Create
			case logformat.FileModify:
				k = Modify
			case logformat.FileRename:
				k = Rename
			case logformat.FileDelete:
				k = Delete
			default:
				continue
			}
			m.apply(r.Space, Event{LSN: mtr.LSN, Kind: k, Name: r.Name(), NewName: r.NewName()})
		}
	}
	pages.fill(a)
	m.EndLSN = sc.LSN()
	return a, sc.Err()
}

func (m *Map) apply(id uint32, e Event) {
	s := m.Spaces[id]
	if s == nil {
		s = &Space{ID: id}
		m.Spaces[id] = s
	}
	e.seq = m.events
	m.events++
	s.Events = append(s.Events, e)
	s.addName(e.Name)
	s.Name, s.Deleted = e.Name, e.Kind == Delete
	if e.Kind == Rename {
		s.addName(e.NewName)
		s.Name = e.NewName
	}
}

func (s *Space) addName(n string) {
	for _, x := range s.Names {
		if x == n {
			return
		}
	}
	s.Names = append(s.Names, n)
}

// Sorted returns the spaces by id.
func (m *Map) Sorted() []*Space {
	out := make([]*Space, 0, len(m.Spaces))
	for _, s := range m.Spaces {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// mlogEvents are the file events of the MLOG file records.
var mlogEvents = map[logformat.MLogType]EventKind{logformat.MLogFileCreate: Create, logformat.MLogFileCreate2: Create,
	logformat.MLogFileRename: Rename, logformat.MLogFileRename2: Rename, logformat.MLogFileDelete: Delete,
	logformat.MLogFileName: Modify}

// BuildMLog builds the map from the MLOG_FILE_* records (CREATE and CREATE2, RENAME and
// RENAME2, DELETE, and NAME as a modify) of a log of MLOG records, for the mini-transactions
// that start at or after from and before atLSN (0: all).
func BuildMLog(l *logformat.BlockLog, from, atLSN uint64) (*Map, error) {
	a, _, err := AnalyzeMLog(l, from, atLSN, 0)
	return a.Map, err
}

// AnalyzeMLog is Analyze for a log of MLOG records, from the mini-transaction at or after from:
// the space map, and the pages page records name (MySQL and MariaDB before 10.5 read every one
// of them in recovery, so all count as read). FileCheckpointEnd is the end of the
// MLOG_CHECKPOINT for checkpointLSN (MySQL 5.7, MariaDB 10.2-10.4). It also returns the scan.
func AnalyzeMLog(l *logformat.BlockLog, from, atLSN, checkpointLSN uint64) (*Analysis, logformat.MLogScan, error) {
	m := &Map{FromLSN: from, AtLSN: atLSN, Spaces: map[uint32]*Space{}}
	a := &Analysis{Map: m, Pages: map[PageID]bool{}, Trims: map[uint32]Trim{}, Freed: map[PageID]bool{}}
	l.SetWalkStart(from)
	sc, err := l.ScanRecords(0, func(mtr *logformat.MLogMTR) error {
		if mtr.LSN < from || (atLSN != 0 && mtr.LSN >= atLSN) {
			return nil
		}
		for _, r := range mtr.Records {
			if r.Type.HasPage() {
				a.PageRecords++
				a.Pages[PageID{r.Space, r.Page}] = true
			}
			if r.Type == logformat.MLogCheckpoint && r.CheckpointLSN == checkpointLSN && checkpointLSN != 0 && a.FileCheckpointEnd == 0 {
				a.FileCheckpointEnd = mtr.EndLSN
			}
			if k, ok := mlogEvents[r.Type]; ok {
				m.apply(r.Space, Event{LSN: mtr.LSN, Kind: k, Name: r.Name, NewName: r.NewName})
			}
		}
		return nil
	})
	m.EndLSN = sc.EndLSN
	return a, sc, err
}

// CreatesFile reports a tablespace the log creates (FILE_CREATE) and whose page 0 it rebuilds
// from scratch (nothing to read from the file): crash recovery creates a missing file for it.
func (a *Analysis) CreatesFile(id uint32) bool {
	if a == nil || a.Map == nil {
		return false
	}
	s := a.Map.Spaces[id]
	if s == nil {
		return false
	}
	for _, e := range s.Events {
		if e.Kind == Create {
			read, named := a.Pages[PageID{id, 0}]
			return named && !read
		}
	}
	return false
}

// FileState is what a space's file is now: whether the log deletes it, and whether its file (the
// log's last name, relative to datadir; datadir "" when unknown) is on disk.
func (s *Space) FileState(datadir string) string {
	if datadir == "" {
		if s.Deleted {
			return "deleted"
		}
		return "in the log"
	}
	_, serr := os.Stat(SourcePath(datadir)(s.Name))
	switch {
	case s.Deleted && serr == nil:
		return "deleted, still on disk"
	case s.Deleted:
		return "deleted"
	case serr == nil:
		return "on disk"
	}
	return "not on disk"
}
