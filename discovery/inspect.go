package discovery

import "sort"

const filNull = 0xffffffff

// PageInfo describes one page.
type PageInfo struct {
	No      int64      `json:"page"`
	Type    string     `json:"type"`
	LSN     uint64     `json:"lsn"`
	SpaceID uint32     `json:"space_id"`
	PageNo  uint32     `json:"page_no_field"` // FIL_PAGE_OFFSET as stored
	Prev    uint32     `json:"prev"`
	Next    uint32     `json:"next"`
	Verdict *Verdict   `json:"checksum,omitempty"`
	Index   *IndexPage `json:"index,omitempty"`
}

// InstantRoot is a clustered index root after instant ADD COLUMN (MariaDB FIL_PAGE_TYPE_INSTANT).
type InstantRoot struct {
	Page        int64  `json:"page"`
	IndexID     uint64 `json:"index_id"`
	NCoreFields int    `json:"n_core_fields"`
	// MetadataRecord: the leftmost leaf's first record is the metadata ("default row") record.
	MetadataRecord     bool  `json:"metadata_record"`
	MetadataPage       int64 `json:"metadata_page"` // the leftmost leaf page, -1 if not found
	DroppedOrReordered bool  `json:"dropped_or_reordered_columns"`
}

// Report is the result of inspecting a tablespace file page by page.
type Report struct {
	Path         string         `json:"file"`
	SpaceID      uint32         `json:"space_id"`
	Flags        Flags          `json:"flags"`
	PageSize     int            `json:"page_size"`     // logical
	PhysicalSize int            `json:"physical_size"` // on disk
	Pages        int64          `json:"pages"`
	Summary      map[string]int `json:"summary"`
	Algorithms   map[string]int `json:"checksum_algorithms,omitempty"`
	Corrupt      []int64        `json:"corrupt"`
	// InnochecksumCorrupt lists the pages MariaDB 10.11's innochecksum reports. It cannot go on
	// past a page 0 it rejects ("Page 0 checksum mismatch, can't continue"): then only page 0 is
	// listed and InnochecksumStops is set.
	InnochecksumCorrupt []int64          `json:"innochecksum_corrupt"`
	InnochecksumStops   bool             `json:"innochecksum_stops_at_page0"`
	Reasons             map[int64]string `json:"reasons,omitempty"` // page → why (corrupt or innochecksum-only)
	Instant             []InstantRoot    `json:"instant"`
	Verified            bool             `json:"verified"`
}

// InspectOptions select what Inspect does.
type InspectOptions struct {
	Verify   bool           // compute checksum verdicts
	From, To int64          // page range, To < 0 for the end
	Each     func(PageInfo) // called for every page in order, if set
	Progress func(done int64)
}

// isIndexType reports page types that carry a B-tree page header.
func isIndexType(t PageType, v Vendor) bool {
	return t == PageIndex || t == PageRtree || (t == PageInstant && v != VendorMySQL)
}

// Inspect reads the pages of t once, sequentially.
func Inspect(t *File, opt InspectOptions) (*Report, error) {
	fl := t.FSP.Flags
	r := &Report{Path: t.Path, SpaceID: t.FSP.SpaceID, Flags: fl, PageSize: fl.PageSize, PhysicalSize: t.Physical,
		Pages: t.Pages(), Summary: map[string]int{}, Corrupt: []int64{}, InnochecksumCorrupt: []int64{},
		Instant: []InstantRoot{}, Verified: opt.Verify}
	if opt.Verify {
		r.Algorithms, r.Reasons = map[string]int{}, map[int64]string{}
	}
	type leaf struct {
		page int64
		info IndexPage
	}
	leftmost := map[uint64]leaf{} // index id → its leftmost leaf
	// The doublewrite buffer is extents 1 and 2 of the system tablespace (innochecksum's
	// is_page_doublewritebuffer); an extent is 1 MiB, or 64 pages for pages above 16 KiB.
	dblwrFirst := int64(1<<20) / int64(fl.PageSize)
	if fl.PageSize > 16384 {
		dblwrFirst = 64
	}
	var roots []InstantRoot
	err := t.EachPage(opt.From, opt.To, func(no int64, p []byte) error {
		h, _ := ParseFilHeader(p)
		pi := PageInfo{No: no, Type: h.Type.Name(t.Vendor, fl.FullCRC32), LSN: h.LSN, SpaceID: h.SpaceID,
			PageNo: h.PageNo, Prev: h.Prev, Next: h.Next}
		r.Summary[pi.Type]++
		if opt.Verify {
			v := CheckPage(p, fl, uint32(no), r.SpaceID)
			if r.SpaceID == 0 && no >= dblwrFirst && no < dblwrFirst+2*dblwrFirst {
				// The doublewrite buffer holds copies of other pages: innochecksum reports their
				// page ids as mismatched, the server never reads them as pages of space 0.
				v.Algorithm, v.Corrupt = AlgDoublewrite, false
				if v.InnochecksumCorrupt {
					v.Reason = "doublewrite buffer page: innochecksum 10.11 reports a page id mismatch (" + v.Reason + ")"
				}
			}
			pi.Verdict = &v
			if v.Algorithm != "" {
				r.Algorithms[string(v.Algorithm)]++
			}
			if v.Corrupt {
				r.Corrupt = append(r.Corrupt, no)
			}
			if v.InnochecksumCorrupt && !r.InnochecksumStops {
				r.InnochecksumCorrupt = append(r.InnochecksumCorrupt, no)
				r.InnochecksumStops = no == 0
			}
			if v.Reason != "" {
				r.Reasons[no] = v.Reason
			}
		}
		if isIndexType(h.Type, t.Vendor) && fl.ZipSize == 0 {
			if ip, err := ParseIndexPage(p); err == nil {
				pi.Index = &ip
				if ip.Level == 0 && h.Prev == filNull {
					if _, seen := leftmost[ip.IndexID]; !seen {
						leftmost[ip.IndexID] = leaf{no, ip}
					}
				}
				if h.Type == PageInstant && t.Vendor != VendorMySQL {
					roots = append(roots, InstantRoot{Page: no, IndexID: ip.IndexID, NCoreFields: int(ip.Instant), MetadataPage: -1})
				}
			}
		}
		if opt.Each != nil {
			opt.Each(pi)
		}
		if opt.Progress != nil {
			opt.Progress(no + 1)
		}
		return nil
	})
	for _, root := range roots {
		if l, ok := leftmost[root.IndexID]; ok {
			root.MetadataPage, root.MetadataRecord = l.page, l.info.IsMetadataRecord()
			root.DroppedOrReordered = l.info.MetadataHasDroppedOrReordered()
		}
		r.Instant = append(r.Instant, root)
	}
	sort.Slice(r.Instant, func(i, j int) bool { return r.Instant[i].Page < r.Instant[j].Page })
	return r, err
}
