package rows

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/discovery"
	"innoscope/internal/lab"
)

// walkAll is a walk of table db.name of dir with leaves decoded by workers from min leaves on,
// per leaves a run, the rows formatted by the workers (WalkFormatted with AppendTSV) or not: the
// rows in order, the result and the error, as one string.
func walkAll(t *testing.T, dir, db, name string, min, per int, formatted bool) string {
	t.Helper()
	defer func(old, oldPer int) { parallelMin, leavesPerBatch = old, oldPer }(parallelMin, leavesPerBatch)
	parallelMin, leavesPerBatch = min, per
	tb, err := Open(discovery.Layout{Datadir: dir}, db, name)
	if err != nil {
		return "open: " + err.Error()
	}
	var b strings.Builder
	var res *Result
	if formatted {
		res, err = tb.WalkFormatted(AppendTSV, &b)
	} else {
		res, err = tb.Walk(func(r Row) error { b.WriteString(rowKey(r) + "\n"); return nil })
	}
	j, _ := json.Marshal(res)
	fmt.Fprintf(&b, "%s\n%v\n", j, err)
	return b.String()
}

// walks compares the serial walk of table db.name of dir with the parallel ones (one leaf a
// run, several, and the rows formatted by the workers): the serial walk's string, and the
// first parallel one that differs ("": none).
func walks(t *testing.T, dir, db, name string) (serial, differs string) {
	t.Helper()
	serial = walkAll(t, dir, db, name, 1<<30, 1, false)
	serialTSV := walkAll(t, dir, db, name, 1<<30, 1, true)
	for _, v := range []struct {
		per       int
		formatted bool
	}{{1, false}, {3, false}, {1, true}, {3, true}} {
		want := serial
		if v.formatted {
			want = serialTSV
		}
		if par := walkAll(t, dir, db, name, 1, v.per, v.formatted); par != want {
			return serial, fmt.Sprintf("%d leaves a run, formatted %v:\n%.2000s", v.per, v.formatted, par)
		}
	}
	return serial, ""
}

// TestWalkParallelSameAsSerial: the walk that decodes leaves on every CPU gives the serial
// walk's rows, order, losses and counts, byte for byte: on every table of real crashes (instant
// ALTERs, whose metadata record is on the first leaf, compressed and every row format), and on
// the clean scenario's table with one page damaged at a time (with its checksum failing, and
// resealed with header fields changed), where the losses fall between emitted pages.
func TestWalkParallelSameAsSerial(t *testing.T) {
	var walked, multi int
	for _, name := range []string{"instant", "formats_default", "compressed", "dml", "undo"} {
		s := lab.Get(t, name)
		ibds, _ := filepath.Glob(filepath.Join(s.Crashed, "*", "*.ibd"))
		for _, ibd := range ibds {
			db, tbl := filepath.Base(filepath.Dir(ibd)), strings.TrimSuffix(filepath.Base(ibd), ".ibd")
			if db == "mysql" || strings.HasPrefix(tbl, "#") {
				continue
			}
			serial, par := walks(t, s.Crashed, db, tbl)
			if strings.Contains(serial, `"leaf_pages":`) && !strings.Contains(serial, `"leaf_pages":1,`) && !strings.Contains(serial, `"leaf_pages":0,`) {
				multi++
			}
			if par != "" {
				t.Errorf("%s %s.%s: the parallel walk differs: %s\nserial:\n%.2000s", name, db, tbl, par, serial)
			}
			walked++
		}
	}
	s := lab.Get(t, "clean")
	dir := t.TempDir()
	lab.CopyDir(t, s.Crashed, dir)
	ibd := filepath.Join(dir, "db", "t.ibd")
	header := []int{8, 12, 24, 25, discovery.FilPageData + 16, discovery.FilPageData + 26, discovery.FilPageData + 35, 3000}
	for no := uint32(0); no < 9; no++ {
		for _, off := range header {
			for _, reseal := range []bool{false, true} {
				_, restore := damage(t, ibd, no, off, 0x21, reseal)
				serial, par := walks(t, dir, "db", "t")
				restore()
				if par != "" {
					t.Fatalf("page %d byte %d damaged (resealed %v): the parallel walk differs: %s\nserial:\n%.2000s", no, off, reseal, par, serial)
				}
				walked++
			}
		}
	}
	// A record delete-marked on each leaf in turn (resealed): the counts of every leaf add up.
	for no := uint32(0); no < 9; no++ {
		p := readPageOf(t, ibd, no)
		ip, err := discovery.ParseIndexPage(p)
		if err != nil || ip.Level != 0 || !ip.Compact {
			continue
		}
		_, restore := damage(t, ibd, no, compactNext(p, infimumNew)-5, infoDeleted, true)
		serial, par := walks(t, dir, "db", "t")
		restore()
		if par != "" || !strings.Contains(serial, `"delete_marked":1`) {
			t.Fatalf("a record of page %d delete-marked: the parallel walk differs (%s) or no count:\nserial:\n%.2000s", no, par, serial[len(serial)-300:])
		}
		walked++
	}
	if multi == 0 {
		t.Error("no table of the crashes has more than one leaf: the workers were not tried")
	}
	t.Logf("%d walks compared, %d tables of more than one leaf", walked, multi)
}
