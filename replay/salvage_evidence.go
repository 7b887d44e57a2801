package replay

import (
	"encoding/binary"
	"fmt"
	"sort"

	"innoscope/discovery"
	"innoscope/logformat"
)

// SalvageRelocatedUnproven: a relocation (see SalvageRelocated) that nothing proves: the file
// carries the space id, but none of its pages carries an LSN the log shows its own server wrote
// to that page (all are older than what the log still holds). It may be another server's file
// with the same space id: a warning, and the salvage exits 1.
const SalvageRelocatedUnproven = "relocated_unproven"

// relocates reports an action that places a source file at the tablespace's name in the copy.
func (a SalvageAction) relocates() bool {
	return a.Action == SalvageRelocated || a.Action == SalvageRelocatedUnproven
}

// relocationEvidence is what the log says of a file a salvage would relocate: each page carries
// in FIL_PAGE_LSN the end LSN of the last mini-transaction that changed it, so a page whose LSN
// lies in the part of the log still readable must be changed by a mini-transaction of the log
// ending exactly there.
type relocationEvidence struct {
	from    uint64 // the oldest LSN the log was read from
	matched int    // pages whose LSN ends a mini-transaction of the log that changed them
	against string // why the file cannot be the log's tablespace ("": nothing says so)
}

// filePage is a page of a candidate file with its LSN.
type filePage struct {
	space, page uint32
	lsn         uint64
}

// readableFrom is the oldest LSN from which the log can be scanned: its first LSN when it has
// not wrapped (and a mini-transaction starts there), else the checkpoint.
func readableFrom(l *logformat.Log, cp, end uint64) uint64 {
	first := l.Header.FirstLSN
	if first == 0 || first >= cp || end-first > l.Capacity() {
		return cp
	}
	if _, _, bad := l.Scan(first, logformat.ScanOptions{}).FirstFault(); bad {
		return cp
	}
	return first
}

// relocationEvidences reads the files of the relocations in acts (space id → path) and the log
// from the oldest LSN it holds to its end, and returns the evidence for each space.
func (r *recovery) relocationEvidences(l *logformat.Log, acts map[uint32]string) (map[uint32]*relocationEvidence, error) {
	out := map[uint32]*relocationEvidence{}
	if l == nil || len(acts) == 0 {
		return out, nil
	}
	cp, end := r.an.Map.FromLSN, r.an.Map.EndLSN
	from := readableFrom(l, cp, end)
	want := map[[2]uint32]uint64{}
	ids := make([]uint32, 0, len(acts))
	for id := range acts {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		ev := &relocationEvidence{from: from}
		out[id] = ev
		pages, n, err := pageLSNs(acts[id], id, r.opt.PageSize)
		if err != nil {
			return nil, err
		}
		for _, p := range pages {
			if p.lsn > end && ev.against == "" {
				ev.against = fmt.Sprintf("its page %d carries LSN %d, after the end of the log (%d)", p.page, p.lsn, end)
			}
			if p.lsn >= from {
				want[[2]uint32{id, p.page}] = p.lsn
			}
		}
		for pid, read := range r.an.Pages {
			if pid.Space == id && read && !r.an.Freed[pid] && int64(pid.Page) >= n && ev.against == "" {
				ev.against = fmt.Sprintf("the log changes its page %d without rebuilding it, and the file has %d pages", pid.Page, n)
			}
		}
	}
	matched := map[[2]uint32]bool{}
	sc := l.Scan(from, logformat.ScanOptions{PageSize: r.opt.PageSize})
	for sc.Next() {
		m := sc.MTR()
		for _, rec := range m.Records {
			k := [2]uint32{rec.Space, rec.Page}
			if lsn, ok := want[k]; ok && lsn == m.EndLSN {
				matched[k] = true
			}
		}
	}
	keys := make([][2]uint32, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][1] < keys[j][1] })
	for _, k := range keys {
		ev := out[k[0]]
		if matched[k] {
			ev.matched++
		} else if ev.against == "" {
			ev.against = fmt.Sprintf("its page %d carries LSN %d, and no mini-transaction of the log (read from LSN %d) that changed that page ends there", k[1], want[k], from)
		}
	}
	return out, nil
}

// pageLSNs reads FIL_PAGE_LSN of every page of the file at path (physical page size from its page
// 0), leaving out all-zero pages, and returns them with the number of whole pages.
func pageLSNs(path string, space uint32, pageSize int) ([]filePage, int64, error) {
	f, err := discovery.OpenFile(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	var out []filePage
	err = f.EachPage(0, f.Pages(), func(no int64, p []byte) error {
		if lsn := binary.BigEndian.Uint64(p[discovery.FilPageLSN:]); lsn != 0 {
			out = append(out, filePage{space, uint32(no), lsn})
		}
		return nil
	})
	return out, f.Pages(), err
}

// checkRelocations weighs the log's evidence for every relocation of pl: a file the log
// contradicts is refused (an error naming why); one it confirms stays relocated, saying how; one
// it says nothing of becomes relocated_unproven (a warning: a guess).
func (r *recovery) checkRelocations(pl *SalvagePlan, l *logformat.Log) error {
	acts := map[uint32]string{}
	for _, a := range pl.Actions {
		if a.relocates() && a.SpaceID != nil {
			acts[*a.SpaceID] = a.File
		}
	}
	evs, err := r.relocationEvidences(l, acts)
	if err != nil {
		return err
	}
	for i := range pl.Actions {
		a := &pl.Actions[i]
		if !a.relocates() || a.SpaceID == nil {
			continue
		}
		ev := evs[*a.SpaceID]
		switch {
		case ev == nil:
			a.Action = SalvageRelocatedUnproven
			a.Detail += "; the log cannot be read to prove the file is its tablespace's: a guess"
		case ev.against != "":
			return fmt.Errorf("%s; but %s is not the log's tablespace %d: %s (another server's file with the same space id?); no salvage puts it in the table's place: restore the table's own file, or move %s away",
				a.Detail, a.File, *a.SpaceID, ev.against, a.File)
		case ev.matched == 0:
			a.Action = SalvageRelocatedUnproven
			a.Detail += fmt.Sprintf("; a guess: none of its pages carries an LSN the log (read from LSN %d) shows written to it, so nothing proves it is this server's file and not another's with the same space id; check the table after the server starts", ev.from)
		default:
			a.Detail += fmt.Sprintf("; %d of its pages carry the end LSN of the log's mini-transaction that last changed them (the log read from LSN %d): it is the log's file", ev.matched, ev.from)
		}
	}
	return nil
}
