package replay

import (
	"encoding/binary"
	"sort"

	"innoscope/analysis"
	"innoscope/discovery"
)

// Before it applies the log, the server's crash recovery writes back the doublewrite buffer's
// copy (one from the checkpoint to the end of the log, DoublewriteCopy.Usable) of every page of a
// tablespace it has open that is all zero, corrupt, or newer than the end of the log
// (buf_dblwr_t::recover: "Recovered page ... from the doublewrite buffer"), whether or not the
// log names the page. read does it for the pages the log names; restoreFuture for the others.

// futureCopy is the doublewrite copy that replaces img, page id as read from the copy, when img
// is newer than the end of the log (nil: img stays).
func (r *recovery) futureCopy(id analysis.PageID, img []byte, fl discovery.Flags, flagsSet bool) []byte {
	end := r.an.Map.EndLSN
	if !flagsSet || end == 0 || len(img) < discovery.FilPageLSN+8 || binary.BigEndian.Uint64(img[discovery.FilPageLSN:]) <= end {
		return nil
	}
	return r.fromDoublewrite(id, fl)
}

// restoreFuture caches, to be written back, the doublewrite copies of the pages the log does
// not name whose image in the copy is all zero, corrupt or from the future, in the tablespaces
// whose pages crash recovery restores (analysis.Analysis.RestoresFromDoublewrite).
func (r *recovery) restoreFuture() error {
	if r.readOnly || len(r.dblwr) == 0 {
		return nil
	}
	keys := make([][2]uint32, 0, len(r.dblwr))
	for k := range r.dblwr {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i][0] < keys[j][0] || keys[i][0] == keys[j][0] && keys[i][1] < keys[j][1]
	})
	for _, k := range keys {
		id := analysis.PageID{Space: k[0], Page: k[1]}
		if _, named := r.an.Pages[id]; named || r.an.Freed[id] {
			continue
		}
		if !r.an.RestoresFromDoublewrite(id.Space) {
			continue
		}
		ts, err := r.space(id.Space)
		if err != nil {
			return err
		}
		if ts == nil || !ts.flagsSet {
			continue
		}
		if n, err := ts.pages(); err != nil || int64(id.Page) >= n {
			continue
		}
		img, err := ts.read(id.Page)
		if err != nil {
			return err
		}
		bad := discovery.IsZero(img) || discovery.CheckPage(img, ts.flags, id.Page, id.Space).Corrupt ||
			binary.BigEndian.Uint64(img[discovery.FilPageLSN:]) > r.an.Map.EndLSN
		if !bad {
			continue
		}
		if good := r.fromDoublewrite(id, ts.flags); good != nil {
			r.cache[id] = &cached{ts: ts, no: id.Page, data: good, restore: true, diskLSN: binary.BigEndian.Uint64(good[discovery.FilPageLSN:])}
			r.res.PagesFromDblwr++
		}
	}
	return nil
}
