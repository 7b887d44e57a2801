package logformat

import "fmt"

// Reasons parseMLog gives for a record it cannot decode.
const (
	mlogShort = "record runs past the end of the written log"
)

// parseMLog decodes the MLOG record at the start of p, in dialect d (log0recv.cc,
// recv_parse_log_rec and recv_parse_or_apply_log_rec_body of MySQL 5.7, 8.0 and MariaDB 10.4,
// which parse without applying): it returns the record and its length, or a reason it cannot
// be decoded (mlogShort when p ends inside it). Only the length of a page record's body is
// established, and the names of file records; nothing is applied.
func parseMLog(p []byte, d MLogDialect) (MLogRecord, string) {
	var rec MLogRecord
	why := parseMLogTo(&rec, p, d)
	return rec, why
}

// parseMLogTo is parseMLog into *rec (which it overwrites), without copying a record.
func parseMLogTo(rec *MLogRecord, p []byte, d MLogDialect) string {
	r := &mlogReader{p: p}
	b := r.u8()
	t, ok := mlogInDialect(b&^mlogSingleRecFlag, d)
	*rec = MLogRecord{}
	rec.Type, rec.Single = t, b&mlogSingleRecFlag != 0
	if !ok && !r.short {
		return fmt.Sprintf("unknown record type %d", b&^mlogSingleRecFlag)
	}
	switch rec.Type {
	case MLogMultiRecEnd, MLogDummyRecord:
		if rec.Single {
			return fmt.Sprintf("%s with MLOG_SINGLE_REC_FLAG", rec.Type)
		}
		rec.Len = 1
		return ""
	case MLogCheckpoint:
		// A whole mini-transaction of its own, with no page identifier: the checkpoint LSN.
		if rec.Single {
			return "MLOG_CHECKPOINT with MLOG_SINGLE_REC_FLAG"
		}
		rec.Single = true
		rec.CheckpointLSN = uint64(r.u32())<<32 | uint64(r.u32())
		return finish(r, rec)
	case MLogTableDynamicMeta:
		// mlog_parse_initial_dict_log_record: the table id and the metadata version, "much
		// compressed" (seen: 3e 1d 00 02 81 81 = table 29, version 0, AUTO_INCREMENT 385).
		r.much64()
		r.much64()
		parseDynamicMeta(r)
		return finish(r, rec)
	}
	rec.Space, rec.Page = r.comp32(), r.comp32()
	if rec.Type == MLogFileCreate && d == DialectLegacy {
		rec.Name = r.name() // 5.6 fil_op_write_log: no tablespace flags in MLOG_FILE_CREATE
		return finish(r, rec)
	}
	if !parseMLogBody(r, rec) {
		parseOldMLogBody(r, rec)
	}
	return finish(r, rec)
}

// parseMLogBody reads the body of the record types every dialect shares, and of MySQL 8.0's
// own; it returns false for the types parseOldMLogBody reads.
func parseMLogBody(r *mlogReader, rec *MLogRecord) bool {
	switch rec.Type {
	case MLog1Byte, MLog2Bytes, MLog4Bytes:
		r.u16() // page offset
		r.comp32()
	case MLog8Bytes:
		r.u16()
		r.comp64()
	case MLogRecInsert:
		parseIndex(r)
		parseInsert(r)
	case MLogRecClustDeleteMark:
		parseIndex(r)
		r.skip(2) // flags, value
		parseSysVals(r)
		r.u16() // record offset
	case MLogRecSecDeleteMark:
		r.skip(1 + 2) // value, record offset
	case MLogRecUpdateInPlace:
		parseIndex(r)
		r.skip(1) // flags
		parseSysVals(r)
		r.u16() // record offset
		parseUpdateVector(r)
	case MLogRecDelete, MLogListEndDelete, MLogListStartDelete:
		parseIndex(r)
		r.u16()
	case MLogListEndCopyCreated:
		parseIndex(r)
		r.skip(int(r.u32()))
	case MLogPageReorganize:
		parseIndex(r)
	case MLogZipPageReorganize, MLogZipPageCompressNoDat:
		parseIndex(r)
		r.skip(1) // compression level
	case MLogPageCreate, MLogCompPageCreate, MLogPageCreateRtree, MLogCompPageCreateRtree,
		MLogPageCreateSDI, MLogCompPageCreateSDI, MLogUndoEraseEnd, MLogIbufBitmapInit,
		MLogInitFilePage, MLogInitFilePage2, MLogUndoHdrDiscard, MLogInitFreePage:
		// no body
	case MLogUndoInsert:
		r.skip(int(r.u16()))
	case MLogUndoInit:
		r.comp32() // undo log type
	case MLogUndoHdrCreate, MLogUndoHdrReuse:
		r.comp64() // transaction id
	case MLogRecMinMark, MLogCompRecMinMark:
		r.u16()
	case MLogWriteString:
		r.u16()
		r.skip(int(r.u16()))
	case MLogZipWriteNodePtr:
		r.skip(2 + 2 + 4) // offset, offset in the compressed page, node pointer
	case MLogZipWriteBlobPtr:
		r.skip(2 + 2 + 20) // offset, offset in the compressed page, BLOB reference
	case MLogZipWriteHeader:
		r.u8()
		r.skip(int(r.u8()))
	case MLogZipPageCompress:
		size, trailer := int(r.u16()), int(r.u16())
		r.skip(8 + size + trailer) // FIL_PAGE_PREV and NEXT, the compressed page, its trailer
	case MLogIndexLoad, MLogTruncate:
		r.skip(8) // an LSN
	case MLogFileCreate, MLogFileCreate2:
		r.u32() // tablespace flags
		rec.Name = r.name()
	case MLogFileDelete, MLogFileName:
		rec.Name = r.name()
	case MLogFileRename, MLogFileRename2:
		rec.Name = r.name()
		rec.NewName = r.name()
	case MLogFileExtend:
		r.skip(8 + 8) // the offset extended from and the size added
	default:
		return false
	}
	return true
}

// parseOldMLogBody reads the row operations with the index description of MySQL 5.7, 8.0
// before 8.0.28 and MariaDB 10.2-10.4 (the *_8027 types; btr0cur.cc, page0cur.cc and
// page0zip.cc parse functions), and MariaDB's own types (mtr0log.cc, page0zip.cc, fil0crypt.cc).
func parseOldMLogBody(r *mlogReader, rec *MLogRecord) {
	comp := rec.Type >= MLogCompRecInsert8027 && rec.Type <= MLogCompPageReorganize8027 ||
		rec.Type == MLogZipPageCompressNoData8027 || rec.Type == MLogZipPageReorganize8027
	switch rec.Type {
	case MLogRecInsert8027, MLogCompRecInsert8027:
		parseOldIndex(r, comp)
		parseInsert(r)
	case MLogRecClustDeleteMark8027, MLogCompRecClustDeleteMark8027:
		parseOldIndex(r, comp)
		r.skip(2)
		parseSysVals(r)
		r.u16()
	case MLogCompRecSecDeleteMark:
		parseOldIndex(r, true)
		r.skip(1 + 2)
	case MLogRecUpdateInPlace8027, MLogCompRecUpdateInPlace8027:
		parseOldIndex(r, comp)
		r.skip(1)
		parseSysVals(r)
		r.u16()
		parseUpdateVector(r)
	case MLogRecDelete8027, MLogCompRecDelete8027, MLogListEndDelete8027, MLogCompListEndDelete8027,
		MLogListStartDelete8027, MLogCompListStartDelete8027:
		parseOldIndex(r, comp)
		r.u16()
	case MLogListEndCopyCreated8027, MLogCompListEndCopyCreated8027:
		parseOldIndex(r, comp)
		r.skip(int(r.u32()))
	case MLogPageReorganize8027, MLogCompPageReorganize8027:
		parseOldIndex(r, comp)
	case MLogZipPageReorganize8027, MLogZipPageCompressNoData8027:
		parseOldIndex(r, true)
		r.skip(1)
	case MLogZipWriteTrxID:
		r.skip(2 + 2 + 6 + 7) // offset, offset in the compressed page, DB_TRX_ID, DB_ROLL_PTR
	case MLogMemset:
		r.skip(2 + 2 + 1) // offset, length, the byte
	case MLogFileWriteCryptData:
		// space id, page 0 offset, scheme, IV length, key version, key id, mode, then the IV.
		r.skip(4 + 2 + 1)
		n := int(r.u8())
		r.skip(4 + 4 + 1 + n)
	default:
		r.setBad(fmt.Sprintf("record type %s is not decoded", rec.Type))
	}
}

// parseOldIndex skips the index description before the pre-8.0.28 row operations
// (mlog_parse_index): for COMPACT pages the field count (bit 15: instant ADD COLUMN, then the
// core field count), the unique field count and each field's length and NOT NULL flag;
// nothing for REDUNDANT pages.
func parseOldIndex(r *mlogReader, comp bool) {
	if !comp {
		return
	}
	n := int(r.u16())
	if n&0x8000 != 0 {
		n &= 0x7fff
		if core := int(r.u16()); (core == 0 || core > n) && !r.short {
			r.setBad(fmt.Sprintf("index description with %d core fields of %d", core, n))
			return
		}
	}
	r.u16() // n_uniq
	r.skip(2 * n)
}

func finish(r *mlogReader, rec *MLogRecord) string {
	switch {
	case r.bad != "":
		return r.bad
	case r.short:
		return mlogShort
	}
	rec.Len = r.i
	return ""
}

// parseIndex skips the index description MySQL 8.0.30+ logs before row operations
// (mtr0log.cc, mlog_parse_index, version 1): a version byte, a flag byte (compact, versioned,
// instant), the field counts, the COMPACT field lengths, and the fields added or dropped by
// INSTANT.
func parseIndex(r *mlogReader) {
	const compact, versioned, instant = 1, 2, 4
	if v := r.u8(); v != 1 && !r.short {
		r.setBad(fmt.Sprintf("index log version %d (8.0.30+ writes 1)", v))
		return
	}
	flag := r.u8()
	comp, vers := flag&compact != 0, flag&versioned != 0
	n := 0
	if comp || vers {
		n = int(r.u16())
	}
	if comp {
		if flag&instant != 0 {
			r.u16() // columns before the first instant ADD
		}
		r.u16()       // n_uniq
		r.skip(2 * n) // each field's fixed length and NOT NULL flag
	}
	if vers {
		for k := int(r.u16()); k > 0 && !r.short; k-- {
			r.u16() // logical position
			phy := r.u16()
			if phy&0x8000 != 0 {
				r.u8() // version added
			}
			if phy&0x4000 != 0 {
				r.u8() // version dropped
			}
		}
	}
}

// parseInsert is page_cur_parse_insert_rec: the predecessor's offset, then the length of the
// logged end segment (bit 0: info bits, origin offset and mismatch index follow), then it.
func parseInsert(r *mlogReader) {
	r.u16()
	seg := r.comp32()
	if seg&1 != 0 {
		r.u8()     // info and status bits
		r.comp32() // origin offset
		r.comp32() // mismatch index
	}
	r.skip(int(seg >> 1))
}

// parseSysVals is row_upd_parse_sys_vals: DB_TRX_ID's position, DB_ROLL_PTR, DB_TRX_ID.
func parseSysVals(r *mlogReader) {
	r.comp32()
	r.skip(7)
	r.comp64()
}

// parseUpdateVector is row_upd_index_parse: info bits, the number of fields, and for each its
// number, its length (UNIV_SQL_NULL: no bytes) and its bytes.
func parseUpdateVector(r *mlogReader) {
	r.u8()
	for n := r.comp32(); n > 0 && !r.fail; n-- {
		r.comp32()
		if l := r.comp32(); l != 0xffffffff {
			r.skip(int(l))
		}
	}
}

// parseDynamicMeta is MetadataRecover::parseMetadataLog: a persister type and its data
// (1: corrupted indexes, 2: the AUTO_INCREMENT counter).
func parseDynamicMeta(r *mlogReader) {
	switch t := r.u8(); t {
	case 2:
		r.much64()
	default:
		if !r.short {
			r.setBad(fmt.Sprintf("MLOG_TABLE_DYNAMIC_META of persister type %d is not decoded", t))
		}
	}
}
