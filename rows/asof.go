package rows

import (
	"encoding/binary"
	"fmt"

	"innoscope/discovery"
)

// Older versions of rows, built the way InnoDB builds them for a consistent read
// (row0vers.cc row_vers_build_for_consistent_read, trx0rec.cc trx_undo_prev_version_build):
// each clustered index record, delete-marked ones included, is the newest version of its row;
// while the transaction that wrote a version (its DB_TRX_ID) is not visible at the point, the
// version before it is the record with the undo record its DB_ROLL_PTR points to applied: the
// old values of the updated fields, the old info bits (delete mark), DB_TRX_ID and DB_ROLL_PTR.
// A DB_ROLL_PTR with the insert flag has no older version: the row did not exist.

// Cut is the point in commit order a consistent read is built at: the changes of transactions
// with a commit number (TRX_UNDO_TRX_NO) of TrxNo or more, and of transactions that had not
// committed, are undone.
type Cut struct {
	TrxNo uint64
	// What says the point as messages give it.
	What string
}

// Version is one version of a row: the transaction that wrote it and what it did.
type Version struct {
	TrxID uint64 `json:"trx_id"`
	// Commit is the writer's commit number, "active" when it had not committed, "purged" when
	// it committed and its undo log has been purged, "" for DB_TRX_ID 0 (history reset by purge).
	Commit string `json:"commit"`
	// Change is what made this version: insert, update or delete (a delete mark); "unknown"
	// when the undo record that says it has been purged (older versions are gone).
	Change string `json:"change"`
	Row    Row    `json:"-"`
	Page   uint32 `json:"page"`
	Offset int    `json:"offset"`
}

// history holds what building old versions reads: the undo logs' history and their pages.
type history struct {
	h    *discovery.UndoHistory
	read discovery.PageReader
}

// visible: the transaction trx had committed before the cut.
func (hs *history) visible(trx uint64, cut Cut) bool {
	if trx == 0 {
		return true // purge reset DB_TRX_ID: visible to every read view
	}
	if hs.h.Open[trx] {
		return false
	}
	if l, ok := hs.h.Logs[trx]; ok {
		return l.TrxNo < cut.TrxNo
	}
	return true // committed, and purged: older than the oldest history
}

// commitOf describes the commit of transaction trx (Version.Commit).
func (hs *history) commitOf(trx uint64) string {
	switch l, ok := hs.h.Logs[trx]; {
	case trx == 0:
		return ""
	case hs.h.Open[trx]:
		return "active"
	case ok:
		return fmt.Sprint(l.TrxNo)
	}
	return "purged"
}

// recVersion is a record's fields with its info bits while older versions are built.
type recVersion struct {
	vals []value
	info byte
	trx  uint64
	roll []byte
}

// versionsOf calls fn with each version of the record, newest first, until fn returns false or
// the chain ends; it returns why the chain ended when history was missing ("" when it
// reached the row's insert, or fn stopped).
func (r *reader) versionsOf(hs *history, rec record, fn func(v recVersion, change string) (bool, error)) (string, error) {
	lay := r.lay
	k := lay.nUniq
	if len(rec.vals) < k+2 {
		return "", fmt.Errorf("record with %d fields has no DB_TRX_ID and DB_ROLL_PTR", len(rec.vals))
	}
	cur := recVersion{vals: make([]value, len(rec.vals)), info: rec.info}
	for i, v := range rec.vals {
		cur.vals[i] = value{b: append([]byte{}, v.b...), null: v.null, ext: v.ext}
	}
	for depth := 0; ; depth++ {
		if depth > 1<<20 {
			return "", fmt.Errorf("the version chain loops")
		}
		cur.trx = uint48(cur.vals[k].b)
		cur.roll = cur.vals[k+1].b
		rp, err := discovery.ParseRollPtr(cur.roll)
		if err != nil {
			return "", err
		}
		change := "update"
		switch {
		case cur.info&infoDeleted != 0:
			change = "delete"
		case rp.Insert:
			change = "insert"
		}
		_, inHistory := hs.h.Logs[cur.trx]
		// The writer's undo log is gone (purged): its records may be on pages reused since, and
		// are not read.
		purged := cur.trx == 0 || !rp.Insert && !hs.h.Open[cur.trx] && !inHistory
		if purged && cur.info&infoDeleted == 0 {
			change = "unknown"
		}
		if more, err := fn(cur, change); err != nil || !more {
			return "", err
		}
		switch {
		case cur.trx == 0:
			return "older versions purged (DB_TRX_ID reset to 0)", nil
		case rp.Insert:
			return "", nil
		case purged:
			return fmt.Sprintf("older versions purged (the undo log of trx %d is gone)", cur.trx), nil
		}
		u, err := r.undoAt(hs, rp, cur.trx)
		if err != nil {
			return "", err
		}
		if err := r.applyUndo(&cur, u); err != nil {
			return "", err
		}
	}
}

// undoAt reads and decodes the undo record rp points to, written by transaction trx.
func (r *reader) undoAt(hs *history, rp discovery.RollPtr, trx uint64) (undoUpdate, error) {
	body, err := hs.h.UndoRecordAt(hs.read, rp)
	var u undoUpdate
	if err == nil {
		u, err = parseUndoUpdate(body, r.lay.nUniq, len(r.lay.flds))
	}
	switch {
	case err != nil:
	case u.TableID != r.t.TableID:
		err = fmt.Errorf("the undo record is of table id %d, not %d", u.TableID, r.t.TableID)
	case u.Type == undoInsertRec:
		err = fmt.Errorf("an insert undo record where DB_ROLL_PTR has no insert flag")
	}
	if err != nil {
		return u, fmt.Errorf("DB_ROLL_PTR (rollback segment %d, page %d, offset %d) of trx %d: %w", rp.Rseg, rp.Page, rp.Offset, trx, err)
	}
	return u, nil
}

// applyUndo turns cur into the version before the change u undoes.
func (r *reader) applyUndo(cur *recVersion, u undoUpdate) error {
	k := r.lay.nUniq
	for _, f := range u.Fields {
		for f.Pos >= len(cur.vals) {
			i := len(cur.vals)
			if i >= len(r.meta) {
				return fmt.Errorf("undo record updates field %d, the record has %d and no default for field %d", f.Pos, len(cur.vals), i)
			}
			cur.vals = append(cur.vals, r.meta[i])
		}
		cur.vals[f.Pos] = value{b: append([]byte{}, f.Val.b...), null: f.Val.null, ext: f.Val.ext}
	}
	trx := make([]byte, 6)
	binary.BigEndian.PutUint16(trx, uint16(u.TrxID>>32))
	binary.BigEndian.PutUint32(trx[2:], uint32(u.TrxID))
	cur.vals[k] = value{b: trx}
	cur.vals[k+1] = value{b: u.RollPtr}
	cur.info = u.Info & 0xf0
	return nil
}

// uint48 reads a 6-byte big-endian number (DB_TRX_ID).
func uint48(b []byte) uint64 {
	if len(b) != 6 {
		return 0
	}
	return uint64(binary.BigEndian.Uint16(b))<<32 | uint64(binary.BigEndian.Uint32(b[2:]))
}

// eachRecord calls fn with every user record of the clustered index's leaf pages in B-tree
// order, delete-marked ones included (the metadata record left out); a page that cannot be
// read is recorded in Result.Lost.
func (r *reader) eachRecord(fn func(rec record, no uint32, at int) error) error {
	leaves, err := r.treeLeaves()
	if err != nil {
		return err
	}
	for _, no := range leaves {
		p, err := r.readPage(no)
		if err != nil {
			r.res.Lost = append(r.res.Lost, Loss{Page: no, Reason: fmt.Sprintf("a leaf the B-tree points to cannot be read: %v", err)})
			continue
		}
		if why := r.check(p, no, true); why != "" {
			r.lose(p, no, why)
			continue
		}
		r.res.Pages++
		ip, _ := discovery.ParseIndexPage(p)
		origin := compactNext(p, infimumNew)
		if !ip.Compact {
			origin = int(binary.BigEndian.Uint16(p[infimumOld-2:]))
		}
		for i := 0; ; i++ {
			if i > len(p)/5 || origin == 0 {
				r.lose(p, no, "the record list is broken")
				break
			}
			rec, err := r.record(p, origin, ip.Compact)
			if err != nil {
				r.lose(p, no, err.Error())
				break
			}
			if rec.status == statusSupremum {
				break
			}
			at := origin
			origin = rec.next
			if rec.status == statusInfimum {
				continue
			}
			if rec.info&infoMinRec != 0 {
				r.meta = append([]value(nil), rec.vals...)
				continue
			}
			if err := fn(rec, no, at); err != nil {
				return err
			}
		}
	}
	return nil
}

// cachedPages reads pages through read, keeping up to max of them (undo pages are read again
// and again: one per version built).
func cachedPages(read discovery.PageReader, max int) discovery.PageReader {
	cache := map[[2]uint32][]byte{}
	return func(space, no uint32) ([]byte, error) {
		k := [2]uint32{space, no}
		if p, ok := cache[k]; ok {
			return p, nil
		}
		p, err := read(space, no)
		if err != nil {
			return nil, err
		}
		if len(cache) >= max {
			clear(cache)
		}
		cache[k] = p
		return p, nil
	}
}
