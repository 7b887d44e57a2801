package redo

import (
	"fmt"

	"innoscope/finding"
	"innoscope/logformat/logcheck"
)

// Description is what the log's header and checkpoint blocks say; its JSON is the --json form
// of `log header`.
type Description struct {
	LogFile        string            `json:"log_file"`
	Format         string            `json:"format"`
	FormatID       uint32            `json:"format_id"`
	Vendor         string            `json:"vendor"`
	Creator        string            `json:"creator"`
	FirstLSN       uint64            `json:"first_lsn"`
	FileSize       int64             `json:"file_size"`
	Capacity       uint64            `json:"capacity"`
	Encrypted      bool              `json:"encrypted"`
	HeaderCRC      uint32            `json:"header_crc"`
	Checkpoints    []CheckpointInfo  `json:"checkpoints"`
	CheckpointLSN  *uint64           `json:"checkpoint_lsn"`
	Findings       []finding.Finding `json:"findings"`
	HeaderCRCValid bool              `json:"header_crc_valid"`
	// Blocks: for the 512-byte block formats (MySQL, MariaDB before 10.8), the walk of the blocks.
	Blocks *BlockWalk `json:"blocks,omitempty"`
	// RingFiles is the number of ib_logfileN files of a ring log (0: not a ring).
	RingFiles int `json:"-"`
	// Physical: a MariaDB 10.5-10.7 log, whose 512-byte blocks carry the physical records of
	// 10.8 (not MLOG records).
	Physical bool `json:"-"`
}

// BlockWalk is the walk of a block log's 512-byte blocks from the first (of a ring: the
// checkpoint's) to the end of the written data.
type BlockWalk struct {
	Count      int    `json:"count"`
	EndLSN     uint64 `json:"end_lsn"`
	StopReason string `json:"stop_reason"`
	StopDetail string `json:"stop_detail"`
	StopOffset int64  `json:"stop_offset"`
}

// CheckpointInfo is a checkpoint block.
type CheckpointInfo struct {
	Offset   int64  `json:"offset"`
	LSN      uint64 `json:"lsn"`
	EndLSN   uint64 `json:"end_lsn"` // 0 in the block formats
	Valid    bool   `json:"valid"`
	Reason   string `json:"reason"`
	Selected bool   `json:"selected"`
	No       uint64 `json:"number,omitempty"` // checkpoint number (ib_logfileN rings)
}

// Capacity is the number of bytes of log the file (or ring) holds.
func (l *Log) Capacity() uint64 {
	if l.blocks != nil {
		return l.blocks.Capacity()
	}
	return l.v108.Capacity()
}

// Describe says what the header and the checkpoint blocks hold, with the checkpoint blocks'
// findings; for a log of blocks also the walk of its blocks.
func (l *Log) Describe() (*Description, error) {
	h := l.Header
	d := &Description{LogFile: l.Path, Format: h.FormatName, FormatID: h.Format, Vendor: h.Vendor,
		Creator: h.Creator, FirstLSN: h.FirstLSN, FileSize: l.Size, Capacity: l.Capacity(),
		HeaderCRC: h.CRC, HeaderCRCValid: h.CRCValid}
	if l.blocks == nil {
		d.Encrypted = h.Encrypted
	} else {
		sc, err := l.blocks.ScanBlocks()
		if err != nil {
			return nil, err
		}
		d.Blocks = &BlockWalk{Count: sc.Blocks, EndLSN: sc.EndLSN, StopReason: string(sc.Stop), StopDetail: sc.StopDetail, StopOffset: sc.StopOffset}
		d.Physical = l.blocks.Physical()
		if l.blocks.IsRing() {
			d.RingFiles = len(l.blocks.RingFiles())
		}
	}
	d.Findings = logcheck.Checkpoints(l.Path, l.Checkpoints, l.Selected)
	if l.v108 != nil && !h.CRCValid {
		d.Findings = append([]finding.Finding{{Severity: finding.Error, Code: "LOG_UNREADABLE", File: l.Path,
			Message: fmt.Sprintf("the header block fails its CRC-32C (stored 0x%08x, CRC-32C of bytes 0..507 is 0x%08x): the server refuses the log (\"Invalid log header checksum\") and does not start; the fields and checkpoints here are as stored",
				h.CRC, l.v108.HeaderCRC())}}, d.Findings...)
	}
	for i, cp := range l.Checkpoints {
		end := cp.EndLSN
		if l.blocks != nil {
			end = 0
		}
		d.Checkpoints = append(d.Checkpoints, CheckpointInfo{cp.Offset, cp.LSN, end, cp.Valid, cp.Reason, i == l.Selected, cp.No})
	}
	if l.Selected >= 0 {
		d.CheckpointLSN = &l.Checkpoints[l.Selected].LSN
	}
	return d, nil
}
