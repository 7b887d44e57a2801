package rows

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"innoscope/discovery"
)

// AsOf is the point of DumpAsOf: an LSN, a transaction, or every version.
type AsOf struct {
	// LSN: the table as a consistent read at this LSN saw it (UseLSN).
	LSN    uint64
	UseLSN bool
	// Trx: the table just before transaction Trx committed: its changes and those of every
	// transaction that committed after it undone (UseTrx).
	Trx    uint64
	UseTrx bool
	// Versions prints every version of each row, newest first, with the transaction that
	// wrote it.
	Versions bool
	// CommitLog is the redo log that places the commits for LSN (a file or its directory;
	// "": the data directory's own).
	CommitLog string
	Format    string         // tsv, json or sql (sql: not with Versions)
	TimeZone  *time.Location // nil: UTC
}

// DumpAsOf writes the rows of table db.name as of a point in its undo history (or every
// version with Versions) to out. Nothing is written unless every row was built: a point the
// history does not reach back to is refused. The directory must not need crash recovery.
func DumpAsOf(s discovery.Layout, db, name string, opt AsOf, out *bufio.Writer) (*Result, error) {
	if err := CheckClean(s); err != nil {
		var nr ErrNeedsRecovery
		if errors.As(err, &nr) && nr.Unreplayable == "" && opt.UseLSN {
			return nil, fmt.Errorf("%w (with --as-of, add --commit-log %s: the copy's redo log starts anew, the original's places the commits)", err, s.Datadir)
		}
		return nil, err
	}
	t, err := Open(s, db, name)
	if err != nil {
		return nil, err
	}
	if opt.TimeZone != nil {
		t.TimeZone = opt.TimeZone
	}
	read, closeAll, err := discovery.UndoPages(s)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	h, err := discovery.ReadUndoHistory(read)
	if err != nil {
		return nil, fmt.Errorf("reading the undo history: %w", err)
	}
	hs := &history{h: h, read: cachedPages(read, 4096)}
	var cut Cut
	switch {
	case opt.Versions:
	case opt.UseTrx:
		if cut, err = TrxCut(h, opt.Trx); err != nil {
			return nil, err
		}
	case opt.UseLSN:
		if cut, err = LSNCut(s, h, opt.LSN, opt.CommitLog); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("give --as-of LSN, --as-of-trx ID or --versions")
	}
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	var fn func(Row) error
	switch opt.Format {
	case "", "tsv":
		fn = TSV(w)
	case "json":
		fn = JSON(w, t)
	case "sql":
		if opt.Versions {
			return nil, fmt.Errorf("--versions with --format sql: the versions of a row share its key, which INSERT cannot load; use tsv or json")
		}
		fn = SQL(w, t)
	default:
		return nil, fmt.Errorf("unknown --format %q (tsv, json, sql)", opt.Format)
	}
	r, err := t.reader()
	if err != nil {
		return nil, err
	}
	defer r.f.Close()
	purged := 0
	err = r.eachRecord(func(rec record, no uint32, at int) error {
		why, err := r.versionsOf(hs, rec, func(v recVersion, change string) (bool, error) {
			if opt.Versions {
				row, err := r.row(v.vals)
				if err != nil {
					return false, err
				}
				r.res.Rows++
				return true, writeVersion(w, t, opt.Format, Version{TrxID: v.trx, Commit: hs.commitOf(v.trx), Change: change, Row: row, Page: no, Offset: at})
			}
			if !hs.visible(v.trx, cut) {
				return true, nil
			}
			if v.info&infoDeleted == 0 {
				row, err := r.row(v.vals)
				if err != nil {
					return false, err
				}
				r.res.Rows++
				return false, fn(row)
			}
			return false, nil
		})
		if err != nil {
			return fmt.Errorf("%s: page %d, record at %d: %w", t.File, no, at, err)
		}
		if why != "" {
			if !opt.Versions {
				// visible() holds for every purged writer: a chain cannot end here.
				return fmt.Errorf("%s: page %d, record at %d: %s", t.File, no, at, why)
			}
			purged++
		}
		return nil
	})
	if err != nil {
		return r.res, err
	}
	if len(r.res.Lost) > 0 && !opt.Versions {
		return r.res, fmt.Errorf("%s: %d leaf pages cannot be read (%s, first: page %d: %s): the table as of the point would be partial",
			t.File, len(r.res.Lost), t.Shown, r.res.Lost[0].Page, r.res.Lost[0].Reason)
	}
	if err := w.Flush(); err != nil {
		return r.res, err
	}
	r.res.Notes = append(r.res.Notes, historyNote(h))
	switch {
	case opt.Versions && purged > 0:
		r.res.Notes = append(r.res.Notes, fmt.Sprintf("%d rows: older versions purged (their last version listed is the oldest kept)", purged))
	case !opt.Versions:
		r.res.Notes = append(r.res.Notes, "as of "+cut.What)
	}
	if _, err := out.Write(buf.Bytes()); err != nil {
		return r.res, err
	}
	return r.res, out.Flush()
}

// TrxCut is the cut just before transaction trx committed. It refuses a transaction the
// history does not hold (purged, never committed a change, or not committed).
func TrxCut(h *discovery.UndoHistory, trx uint64) (Cut, error) {
	if l, ok := h.Logs[trx]; ok {
		return Cut{TrxNo: l.TrxNo, What: fmt.Sprintf("just before trx %d committed (commit number %d)", trx, l.TrxNo)}, nil
	}
	if h.Open[trx] {
		return Cut{}, fmt.Errorf("trx %d did not commit (its undo log is active or XA-prepared): the committed rows are the table without it; "+
			"give a committed transaction", trx)
	}
	return Cut{}, fmt.Errorf("trx %d is not in the undo history: it committed before the oldest history kept (%s) and its undo log was purged, "+
		"or it changed no row; `--versions` lists the transactions that wrote the versions kept", trx, oldestDesc(h))
}

// oldestDesc names the oldest commit the history holds.
func oldestDesc(h *discovery.UndoHistory) string {
	var oldest discovery.UndoLog
	for _, l := range h.Logs {
		if oldest.TrxNo == 0 || l.TrxNo < oldest.TrxNo {
			oldest = l
		}
	}
	if oldest.TrxNo == 0 {
		return "the history is empty"
	}
	return fmt.Sprintf("trx %d, commit number %d", oldest.TrxID, oldest.TrxNo)
}

// historyNote says how far back the undo history reaches.
func historyNote(h *discovery.UndoHistory) string {
	if len(h.Logs) == 0 {
		return "undo history: empty (purged): only the committed rows can be built"
	}
	newest := uint64(0)
	for _, l := range h.Logs {
		newest = max(newest, l.TrxNo)
	}
	plural := map[bool]string{true: "s"}[len(h.Logs) != 1]
	return fmt.Sprintf("undo history: %d committed transaction%s, commit numbers %d to %d; the oldest point is just before %s (--as-of-trx)",
		len(h.Logs), plural, h.MinTrxNo, newest, oldestDesc(h))
}

// writeVersion writes one version line: tsv, the transaction id, its commit, the change and
// the row's values; json, an object with the row under "row".
func writeVersion(w *bufio.Writer, t *Table, format string, v Version) error {
	if format == "json" {
		var b bytes.Buffer
		bw := bufio.NewWriter(&b)
		if err := JSON(bw, t)(v.Row); err != nil {
			return err
		}
		bw.Flush()
		head, err := json.Marshal(v)
		if err != nil {
			return err
		}
		w.Write(head[:len(head)-1])
		w.WriteString(`,"row":`)
		w.Write(bytes.TrimRight(b.Bytes(), "\n"))
		_, err = w.WriteString("}\n")
		return err
	}
	commit := v.Commit
	if commit == "" {
		commit = "-"
	}
	fmt.Fprintf(w, "%d\t%s\t%s\t", v.TrxID, commit, v.Change)
	return TSV(w)(v.Row)
}
