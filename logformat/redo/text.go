package redo

import (
	"fmt"

	"innoscope/logformat"
)

// Fields are the description as FIELD/VALUE rows, in the words `log header` prints. For a log
// of 4 KiB checkpoint blocks the checkpoints are separate (CheckpointRows); for a log of
// 512-byte blocks they are among the fields.
func (d *Description) Fields() [][]string {
	if d.Blocks == nil {
		crc := "valid"
		if !d.HeaderCRCValid {
			crc = "INVALID: the server refuses the log"
		}
		return [][]string{
			{"log file", d.LogFile},
			{"format", fmt.Sprintf("%s (0x%08x)", d.Format, d.FormatID)},
			{"creator", d.Creator},
			{"first LSN", fmt.Sprint(d.FirstLSN)},
			{"file size", fmt.Sprintf("%d bytes (ring capacity %d)", d.FileSize, d.Capacity)},
			{"encrypted", fmt.Sprint(d.Encrypted)},
			{"header CRC-32C", fmt.Sprintf("0x%08x (%s)", d.HeaderCRC, crc)},
		}
	}
	b := d.Blocks
	// The format identifier: a small version number (MySQL's 1-6, MariaDB's 103, 104) in
	// decimal, a magic in hex as the server's sources write it (10.5's 0x50485953, "PHYS"; an
	// encrypted 10.4 log's bit 31).
	id := fmt.Sprint(d.FormatID)
	if d.FormatID > 0xffff {
		id = fmt.Sprintf("0x%08x", d.FormatID)
	}
	records := "MLOG records"
	if d.Physical {
		records = "the physical records of MariaDB 10.8 (WRITE, MEMSET, EXTENDED, ...) in 512-byte blocks"
	}
	rows := [][]string{
		{"log file", d.LogFile}, {"format", fmt.Sprintf("%s (%s)", d.Format, id)}, {"creator", d.Creator},
		{"start LSN", fmt.Sprint(d.FirstLSN)}, {"file size", fmt.Sprint(d.FileSize)},
		{"blocks", fmt.Sprintf("%d valid; written data ends at LSN %d (%s: %s)", b.Count, b.EndLSN, b.StopReason, b.StopDetail)},
		{"records", records + ": see log records / log stats (--from-lsn 1 for the whole file)"},
	}
	if d.RingFiles > 0 {
		rows[4] = []string{"files", fmt.Sprintf("%d of %d bytes, %d bytes of log in the ring", d.RingFiles, d.FileSize, d.Capacity)}
		rows[5][1] = fmt.Sprintf("from the checkpoint's block: %d valid; written data ends at LSN %d (%s: %s)", b.Count, b.EndLSN, b.StopReason, b.StopDetail)
		rows[6][1] = records + ": see log records / log stats (--from-lsn LSN to start before the checkpoint)"
	}
	for _, cp := range d.Checkpoints {
		v := "valid"
		if !cp.Valid {
			v = "rejected: " + cp.Reason
		}
		if cp.Selected {
			v += " (recovery starts here)"
		}
		if d.RingFiles > 0 {
			v = fmt.Sprintf("number %d, %s", cp.No, v)
		}
		rows = append(rows, []string{fmt.Sprintf("checkpoint at %d", cp.Offset), fmt.Sprintf("LSN %d, %s", cp.LSN, v)})
	}
	return rows
}

// CheckpointHeader names the columns of CheckpointRows.
var CheckpointHeader = []string{"BLOCK OFFSET", "CHECKPOINT LSN", "END LSN", "VALIDITY", "USED"}

// CheckpointRows are the checkpoint blocks as rows under CheckpointHeader; nil for a log of
// 512-byte blocks (Fields has them). paint colours the validity cell (good: valid).
func (d *Description) CheckpointRows(paint func(good bool, s string) string) [][]string {
	if d.Blocks != nil {
		return nil
	}
	var rows [][]string
	for _, cp := range d.Checkpoints {
		valid, used := paint(true, "valid"), ""
		if !cp.Valid {
			valid = paint(false, "rejected: "+cp.Reason)
		}
		if cp.Selected {
			used = "recovery starts here"
		}
		rows = append(rows, []string{fmt.Sprint(cp.Offset), fmt.Sprint(cp.LSN), fmt.Sprint(cp.EndLSN), valid, used})
	}
	return rows
}

// Fields are the statistics as FIELD/VALUE rows, in the words `log stats` prints.
func (j *Stats) Fields() [][]string {
	limited := j.StopReason == string(logformat.StopLimit)
	if j.Blocks {
		stopped := fmt.Sprintf("%s: %s", j.StopReason, j.StopDetail)
		if limited {
			stopped = fmt.Sprintf("at --to-lsn %d (the log was not read further)", j.ToLSN)
		}
		return [][]string{
			{"log file", j.LogFile}, {"format", j.Format}, {"checkpoint LSN", fmt.Sprint(j.CheckpointLSN)},
			{"decoded", fmt.Sprintf("LSN %d to %d", j.StartLSN, j.EndLSN)},
			{"scan stopped", stopped},
			{"mini-transactions", fmt.Sprint(j.MTRCount)}, {"records", fmt.Sprint(j.RecordCount)},
			{"pages touched", fmt.Sprint(j.PagesTouched)}, {"crash recovery needed", fmt.Sprint(j.CrashRecovery)},
		}
	}
	end := []string{"end of log LSN", fmt.Sprint(j.EndLSN)}
	stopped := fmt.Sprintf("%s: %s (file offset %d)", j.StopReason, j.StopDetail, j.StopOffset)
	if limited {
		end[0] = "scan ended at LSN"
		stopped = fmt.Sprintf("at --to-lsn %d (file offset %d; the log was not read further)", j.ToLSN, j.StopOffset)
	}
	return [][]string{
		{"log file", j.LogFile},
		{"checkpoint LSN", fmt.Sprint(j.CheckpointLSN)},
		end,
		{"scan stopped", stopped},
		{"bytes scanned", fmt.Sprint(j.Bytes)},
		{"mini-transactions", fmt.Sprint(j.MTRCount)},
		{"records", fmt.Sprint(j.RecordCount)},
		{"pages touched", fmt.Sprint(j.PagesTouched)},
		{"crash recovery needed", fmt.Sprint(j.CrashRecovery)},
		{"page size", fmt.Sprintf("%d (%s)", j.PageSize, j.PageSizeSource)},
	}
}

// TypeRows are the record types with a non-zero count, in the log format's order, as
// RECORD TYPE/COUNT rows.
func (j *Stats) TypeRows() [][]string {
	var rows [][]string
	for _, name := range j.TypeNames {
		if n := j.RecordsByType[name]; n > 0 {
			rows = append(rows, []string{name, fmt.Sprint(n)})
		}
	}
	return rows
}
