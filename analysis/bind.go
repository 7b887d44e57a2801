package analysis

import "sort"

// FileState is what crash recovery finds at a file name the log gives a tablespace.
type FileState struct {
	Exists bool
	// Deferred: page 0 cannot be used yet (blank, discovery.BlankPage0: created after the
	// checkpoint and not flushed, though later pages may be); the server's fil_ibd_load returns
	// FIL_LOAD_DEFER and does not check its id.
	Deferred bool
	SpaceID  uint32 // the space id page 0 carries (when it exists and is not deferred)
}

// Binding is the file crash recovery opens for a tablespace the log names.
type Binding struct {
	Name     string // the log's spelling of the file name
	Path     string // where it is (the path function's result)
	Deferred bool   // its page 0 is blank: the log must rebuild it
}

// Bind replays the server's fil_name_process (MariaDB 10.11 log0recv.cc) over the file
// records in log order and returns the file each tablespace is bound to; a tablespace the log
// names in no existing file, or whose names are all taken, has none. For each record (FILE_CREATE,
// FILE_MODIFY, the old and then the new name of FILE_RENAME) of a tablespace not bound yet,
// fil_ibd_load opens the file: an absent file or one whose page 0 carries another space id is
// skipped, and the first file whose page 0 carries the id binds the tablespace for good (the
// server ignores later names, "Ignoring data file ... with space ID"). A file whose page 0 is
// blank is deferred: one file name belongs to the tablespace whose record named it last
// (deferred_spaces.add keeps the latest LSN), and a tablespace keeps its last deferred name
// until a valid file binds it. So neither the name a tablespace once had nor a blank file
// another tablespace took over makes "tablespace N has been found in two places": the server
// only says that when two fil_space_t objects exist for one id, which its recovery never makes.
// path maps a log name to the file to look at, stat says what is there.
func (m *Map) Bind(path func(name string) string, stat func(path string) FileState) map[uint32]Binding {
	type rec struct {
		id uint32
		e  Event
	}
	var recs []rec
	for id, s := range m.Spaces {
		for _, e := range s.Events {
			recs = append(recs, rec{id, e})
		}
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].e.seq < recs[j].e.seq })
	bound := map[uint32]Binding{}
	deferred := map[uint32]Binding{}
	owner := map[string]uint32{} // a deferred file → the tablespace that named it last
	states := map[string]FileState{}
	for _, r := range recs {
		if r.e.Kind == Delete {
			delete(bound, r.id) // fil_space_free; the deferred entry stays, marked deleted
			continue
		}
		names := []string{r.e.Name}
		if r.e.Kind == Rename {
			names = append(names, r.e.NewName)
		}
		for _, n := range names {
			if _, ok := bound[r.id]; ok {
				break
			}
			p := path(n)
			st, ok := states[p]
			if !ok {
				st = stat(p)
				states[p] = st
			}
			switch {
			case !st.Exists:
			case st.Deferred:
				if o, ok := owner[p]; ok && o != r.id {
					delete(deferred, o)
				}
				if d, ok := deferred[r.id]; ok && d.Path != p {
					delete(owner, d.Path)
				}
				deferred[r.id] = Binding{Name: n, Path: p, Deferred: true}
				owner[p] = r.id
			case st.SpaceID == r.id:
				bound[r.id] = Binding{Name: n, Path: p}
				if d, ok := deferred[r.id]; ok {
					delete(owner, d.Path)
					delete(deferred, r.id)
				}
			}
		}
	}
	for id, d := range deferred {
		if _, ok := bound[id]; !ok {
			bound[id] = d
		}
	}
	for id, s := range m.Spaces {
		if s.Deleted {
			delete(bound, id)
		}
	}
	return bound
}
