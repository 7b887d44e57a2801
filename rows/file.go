package rows

import (
	"bufio"
	"fmt"
	"strings"

	"innoscope/discovery"
	"innoscope/schema"
)

// shortFile lists as lost the pages a truncated file lacks: the pages from its end to the size
// its page 0 gives (FSP_SIZE); how many rows they held is unknown. When the extent descriptors
// (in pages the file still has, checksums holding) mark every missing page free, nothing is lost:
// a note says so.
func shortFile(res *Result, path string) {
	f, err := discovery.OpenFile(path)
	if err != nil {
		return
	}
	defer f.Close()
	have, size := f.Pages(), int64(f.FSP.Size)
	if have >= size {
		return
	}
	used, unknown := 0, 0
	xdes := f.Descriptors()
	for no := have; no < size; no++ {
		switch u, known := xdes.Used(no); {
		case !known:
			unknown++
		case u:
			used++
		}
	}
	what := fmt.Sprintf("the file ends after %d pages (%d bytes), its page 0 gives %d pages: pages %d to %d are missing", have, f.Size, size, have, size-1)
	if used == 0 && unknown == 0 {
		res.Notes = append(res.Notes, what+"; its extent descriptors mark every one of them free: no row was there")
		return
	}
	res.Lost = append(res.Lost, Loss{Page: uint32(have), Unknown: true,
		Reason: fmt.Sprintf("%s (%d in use by the extent descriptors, %d not known), with the rows they held", what, used, unknown)})
}

// DumpTable writes the rows of the table def (whatever its source: a .frm, the SDI of a MySQL
// 8 tablespace) from its tablespace file alone, with no system tablespace and no redo log, in
// the given format (Options.Format, TimeZone, Scan; the other options need a data directory).
// Stored columns that SELECT * does not show (schema.Table.HiddenCols) are left out.
func DumpTable(def *schema.Table, opt Options, out *bufio.Writer) (*Result, error) {
	t, err := New(def)
	if err != nil {
		return nil, err
	}
	if opt.TimeZone != nil {
		t.TimeZone = opt.TimeZone
	}
	if err := t.CheckLayout(); err != nil {
		return nil, err
	}
	shown := t // the definition as the output names the columns
	keep := []int(nil)
	if len(def.HiddenCols) > 0 {
		hidden := map[int]bool{}
		for _, c := range def.HiddenCols {
			hidden[c] = true
		}
		cp := *t
		cp.Cols = nil
		for i, c := range t.Cols {
			if !hidden[i] {
				keep = append(keep, i)
				cp.Cols = append(cp.Cols, c)
			}
		}
		shown = &cp
	}
	var fn func(Row) error
	switch opt.Format {
	case "", "tsv":
		fn = TSV(out)
	case "json":
		fn = JSON(out, shown)
	case "sql":
		fn = SQL(out, shown)
		t.TimeZone = shown.TimeZone // UTC: SQL set it on the copy
	default:
		return nil, fmt.Errorf("unknown --format %q (tsv, json, sql)", opt.Format)
	}
	if keep != nil {
		inner, row := fn, make(Row, len(keep))
		fn = func(r Row) error {
			for i, c := range keep {
				row[i] = r[c]
			}
			return inner(row)
		}
	}
	walk := t.Walk
	if opt.Scan {
		walk = t.Scan
	}
	res, err := walk(fn)
	if res != nil {
		shortFile(res, def.File)
	}
	if res != nil && len(t.Virtual) > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("VIRTUAL column(s) %s (computed by the server, not stored) left out", strings.Join(t.Virtual, ", ")))
	}
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	return res, err
}
