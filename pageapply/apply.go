// Package pageapply applies redo records to one page image: the byte-level half of crash
// recovery. It knows pages and records, not files, caches or the order of mini-transactions;
// replay/ holds those (which page image a record goes to, the page LSN rule, the doublewrite
// buffer, writing pages out).
//
// Its files and the server's sources they follow (MariaDB 10.8+, storage/innobase):
//
//	apply.go         log_phys_t::apply in log0recv.cc: WRITE, MEMSET, MEMMOVE, INIT_PAGE and the
//	                 dispatch of EXTENDED records
//	frame.go         page0page.h, fil0fil.h, rem0rec.h offsets; page_create_low (page0page.cc);
//	                 trx_undo_page_init and UNDO_APPEND (trx0undo.cc, trx0rec.cc)
//	rows.go          page_cur_insert_rec_low's redo (page_apply_insert_redundant), the page
//	                 directory's slot split and balance, page_mem_free (page0cur.cc)
//	rows_dynamic.go  page_apply_insert_dynamic and page_apply_delete_{redundant,dynamic}
//	                 (page0cur.cc)
package pageapply

import (
	"encoding/binary"
	"fmt"

	"innoscope/logformat"
)

// Init rebuilds f as INIT_PAGE does: zeroes with the page number, FIL_NULL neighbours and the
// space id.
func Init(f []byte, space, page uint32) {
	clear(f)
	binary.BigEndian.PutUint32(f[filPageOffset:], page)
	for i := filPagePrev; i < filPageLSN; i++ {
		f[i] = 0xff
	}
	binary.BigEndian.PutUint32(f[filPageSpaceID:], space)
}

// Apply applies one WRITE, MEMSET, MEMMOVE or EXTENDED record to the page image f of a
// tablespace whose ROW_FORMAT=COMPRESSED page size is zipSize (0: not compressed), as
// log_phys_t::apply does. The scanner has already checked offsets and lengths against
// innodb_page_size; they are checked again here against the page's own (physical) size. An
// error names what does not fit; f may then be partly changed.
func Apply(f []byte, rec *logformat.Record, zipSize int) (err error) {
	defer func() {
		// Every access below is bounds-checked first; this only turns an oversight into an
		// error naming the record instead of a crash of the whole run.
		if v := recover(); v != nil {
			err = fmt.Errorf("record does not fit the page: %v", v)
		}
	}()
	size := uint32(len(f))
	switch rec.Type {
	case logformat.Write:
		if rec.Offset+uint32(len(rec.Data)) > size {
			return fmt.Errorf("WRITE of %d bytes at %d past the %d-byte page", len(rec.Data), rec.Offset, size)
		}
		copy(f[rec.Offset:], rec.Data)
	case logformat.Memset:
		if rec.Offset+rec.Length > size {
			return fmt.Errorf("MEMSET of %d bytes at %d past the %d-byte page", rec.Length, rec.Offset, size)
		}
		dst := f[rec.Offset : rec.Offset+rec.Length]
		for i := 0; i < len(dst); i += len(rec.Data) {
			copy(dst[i:], rec.Data)
		}
	case logformat.Memmove:
		if rec.Offset+rec.Length > size || rec.Source+rec.Length > size {
			return fmt.Errorf("MEMMOVE of %d bytes %d -> %d past the %d-byte page", rec.Length, rec.Source, rec.Offset, size)
		}
		copy(f[rec.Offset:rec.Offset+rec.Length], f[rec.Source:rec.Source+rec.Length])
	case logformat.Extended:
		return applyExtended(f, rec, zipSize)
	default:
		return fmt.Errorf("unexpected %s record", rec.Type)
	}
	return nil
}

// applyExtended applies an EXTENDED record (the server refuses them on pages 0..2 and on
// ROW_FORMAT=COMPRESSED pages).
func applyExtended(f frame, rec *logformat.Record, zipSize int) error {
	if rec.Malformed != "" {
		return fmt.Errorf("malformed EXTENDED record: %s", rec.Malformed)
	}
	if rec.Page < 3 || zipSize != 0 {
		return fmt.Errorf("%s on page %d of a %s tablespace", rec.ExtSub(), rec.Page, zipWord(zipSize))
	}
	e := rec.Ext
	switch sub := rec.ExtSub(); sub {
	case logformat.InitRowFormatRedundant, logformat.InitRowFormatDynamic:
		pageCreate(f, sub == logformat.InitRowFormatDynamic)
	case logformat.UndoInit:
		undoPageInit(f)
	case logformat.UndoAppend:
		return undoAppend(f, rec.Data)
	case logformat.InsertHeapRedundant, logformat.InsertReuseRedundant:
		return insertRedundant(f, sub == logformat.InsertReuseRedundant, int(e.PrevRec), int(e.EncHdr),
			int(e.HdrC), int(e.DataC), rec.Data)
	case logformat.InsertHeapDynamic, logformat.InsertReuseDynamic:
		return insertDynamic(f, sub == logformat.InsertReuseDynamic, int(e.PrevRec), int(e.Shift), int(e.EncHdr),
			int(e.HdrC), int(e.DataC), rec.Data)
	case logformat.DeleteRowFormatRedundant:
		return deleteRow(f, false, int(e.PrevRec), 0, 0)
	case logformat.DeleteRowFormatDynamic:
		return deleteRow(f, true, int(e.PrevRec), int(e.HdrC), int(e.DataC))
	default:
		return fmt.Errorf("EXTENDED subtype %s cannot be applied to a page", sub)
	}
	return nil
}

func zipWord(zip int) string {
	if zip != 0 {
		return "ROW_FORMAT=COMPRESSED"
	}
	return "non-compressed"
}
