package replay

import (
	"innoscope/logformat"
	"innoscope/pageapply"
)

// applyRecord applies one page record to a cached page: freeing and rebuilding the page's
// image here, its bytes by pageapply.
func (r *recovery) applyRecord(p *cached, rec *logformat.Record) error {
	switch rec.Type {
	case logformat.FreePage:
		p.freed = true
		return nil
	case logformat.InitPage:
		if p.data == nil || len(p.data) != p.ts.phys {
			p.data = r.frames.get(p.ts.phys)
		}
		pageapply.Init(p.data, rec.Space, rec.Page)
		p.diskLSN = 0
		p.mtrDid = true
		return nil
	case logformat.Option:
		p.mtrDid = true // OPT_PAGE_CHECKSUM: a debug check, nothing to change
		return nil
	}
	if err := pageapply.Apply(p.data, rec, p.ts.flags.ZipSize); err != nil {
		return err
	}
	p.mtrDid = true
	return nil
}
