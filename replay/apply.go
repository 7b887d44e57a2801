package replay

import (
	"encoding/binary"
	"fmt"

	"innoscope/logformat"
)

// applyRecord applies one page record to a cached page, as log_phys_t::apply does. The
// scanner has already checked offsets and lengths against innodb_page_size; they are checked
// again here against the page's own (physical) size.
func (r *recovery) applyRecord(p *cached, rec *logformat.Record) (err error) {
	defer func() {
		// Every access below is bounds-checked first; this only turns an oversight into an
		// error naming the record instead of a crash of the whole run.
		if v := recover(); v != nil {
			err = fmt.Errorf("record does not fit the page: %v", v)
		}
	}()
	switch rec.Type {
	case logformat.FreePage:
		p.freed = true
		return nil
	case logformat.InitPage:
		if p.data == nil || len(p.data) != p.ts.phys {
			p.data = r.frames.get(p.ts.phys)
		}
		f := p.data
		clear(f)
		binary.BigEndian.PutUint32(f[filPageOffset:], rec.Page)
		for i := filPagePrev; i < filPageLSN; i++ {
			f[i] = 0xff
		}
		binary.BigEndian.PutUint32(f[filPageSpaceID:], rec.Space)
		p.diskLSN = 0
		p.mtrDid = true
		return nil
	case logformat.Option:
		p.mtrDid = true // OPT_PAGE_CHECKSUM: a debug check, nothing to change
		return nil
	}
	f := p.data
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
		if err := applyExtended(p, rec); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unexpected %s record", rec.Type)
	}
	p.mtrDid = true
	return nil
}

// applyExtended applies an EXTENDED record (the server refuses them on pages 0..2 and on
// ROW_FORMAT=COMPRESSED pages).
func applyExtended(p *cached, rec *logformat.Record) error {
	if rec.Malformed != "" {
		return fmt.Errorf("malformed EXTENDED record: %s", rec.Malformed)
	}
	f := p.data
	if rec.Page < 3 || p.ts.flags.ZipSize != 0 {
		return fmt.Errorf("%s on page %d of a %s tablespace", rec.ExtSub(), rec.Page, zipWord(p.ts.flags.ZipSize))
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
