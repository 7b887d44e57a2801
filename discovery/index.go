package discovery

import (
	"encoding/binary"
	"fmt"
)

// Index page header fields (page0page.h), relative to PAGE_HEADER = FIL_PAGE_DATA.
const (
	pageHeader     = FilPageData
	pageNDirSlots  = pageHeader + 0
	pageNHeap      = pageHeader + 4
	pageInstant    = pageHeader + 12 // MariaDB: n_core_fields << 3 | PAGE_DIRECTION_B on the INSTANT root
	pageNRecs      = pageHeader + 16
	pageMaxTrxID   = pageHeader + 18
	pageLevel      = pageHeader + 26
	pageIndexID    = pageHeader + 28
	infimumCompact = 99  // PAGE_NEW_INFIMUM: origin of the infimum record, COMPACT and later
	infimumOld     = 101 // PAGE_OLD_INFIMUM: ROW_FORMAT=REDUNDANT
	supremumOld    = 116
	supremumNew    = 112
	recInfoMinRec  = 0x10 // REC_INFO_MIN_REC_FLAG in the info bits: the instant metadata record
	recInfoDeleted = 0x20
)

// IndexPage is the B-tree page header of an INDEX, INSTANT or RTREE page.
type IndexPage struct {
	Compact   bool   `json:"compact"` // COMPACT/DYNAMIC/COMPRESSED records (else REDUNDANT)
	NDirSlots uint16 `json:"n_dir_slots"`
	NHeap     uint16 `json:"n_heap"`
	NRecs     uint16 `json:"n_recs"`
	Level     uint16 `json:"level"`
	IndexID   uint64 `json:"index_id"`
	MaxTrxID  uint64 `json:"max_trx_id"`
	// Instant is PAGE_INSTANT: on MariaDB's INSTANT root, the clustered index's number of core
	// fields (before instant ADD COLUMN).
	Instant uint16 `json:"instant"`
	// FirstRecInfo: info bits of the first user record (0 when the page has none).
	FirstRecInfo byte `json:"first_rec_info"`
	HasUserRecs  bool `json:"has_user_records"`
}

// ParseIndexPage decodes the page header and the first user record's info bits.
func ParseIndexPage(p []byte) (IndexPage, error) {
	if len(p) < 128 {
		return IndexPage{}, fmt.Errorf("index page of %d bytes is too short", len(p))
	}
	be := binary.BigEndian
	nheap := be.Uint16(p[pageNHeap:])
	ip := IndexPage{Compact: nheap&0x8000 != 0, NDirSlots: be.Uint16(p[pageNDirSlots:]), NHeap: nheap & 0x7fff,
		NRecs: be.Uint16(p[pageNRecs:]), Level: be.Uint16(p[pageLevel:]), IndexID: be.Uint64(p[pageIndexID:]),
		MaxTrxID: be.Uint64(p[pageMaxTrxID:]), Instant: be.Uint16(p[pageInstant:]) >> 3}
	var next, infoAt int
	if ip.Compact {
		// The next-record field is relative to the record's origin (mod the page size).
		rel := int(int16(be.Uint16(p[infimumCompact-2:])))
		next = (infimumCompact + rel) & (len(p) - 1)
		infoAt = next - 5
		ip.HasUserRecs = next != supremumNew && rel != 0
	} else {
		next = int(be.Uint16(p[infimumOld-2:]))
		infoAt = next - 6
		ip.HasUserRecs = next != supremumOld && next != 0
	}
	if ip.HasUserRecs {
		if infoAt < FilPageData || next >= len(p)-8 {
			return ip, fmt.Errorf("first record pointer %d out of range", next)
		}
		ip.FirstRecInfo = p[infoAt] & 0xf0
	}
	return ip, nil
}

// IsMetadataRecord reports whether the first user record is the instant ADD COLUMN metadata
// ("default row") record: REC_INFO_MIN_REC_FLAG set (with the deleted flag too after instant
// DROP or reorder of columns).
func (ip IndexPage) IsMetadataRecord() bool {
	return ip.HasUserRecs && ip.FirstRecInfo&recInfoMinRec != 0
}

// MetadataHasDroppedOrReordered: the metadata record also carries the deleted flag.
func (ip IndexPage) MetadataHasDroppedOrReordered() bool {
	return ip.IsMetadataRecord() && ip.FirstRecInfo&recInfoDeleted != 0
}

// CountDeleteMarked counts the records with the delete mark in the record list of index page p
// (the instant ALTER metadata record, delete-marked after an instant DROP, is not counted); a
// list that cannot be followed counts what was read until then.
func CountDeleteMarked(p []byte, compact bool) int {
	be := binary.BigEndian
	n, origin, infoAt := 0, infimumOld, 6
	if compact {
		origin, infoAt = infimumCompact, 5
	}
	for i := 0; i <= len(p)/5; i++ {
		next := int(be.Uint16(p[origin-2:]))
		if compact {
			if next == 0 {
				return n
			}
			next = (origin + int(int16(next))) & (len(p) - 1)
		}
		if next == supremumNew && compact || next == supremumOld && !compact || next < infoAt+FilPageData || next >= len(p)-8 {
			return n
		}
		origin = next
		if info := p[origin-infoAt]; info&recInfoDeleted != 0 && info&recInfoMinRec == 0 {
			n++
		}
	}
	return n
}
