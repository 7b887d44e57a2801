package changes

import (
	"fmt"
	"strings"

	"innoscope/rows"
)

// Tables gives the definition of the table with an InnoDB table id (nil and an error saying
// why: not in the dictionary, not readable).
type Tables func(id uint64) (*rows.Table, error)

// Resolve decodes the undo record of every change of trxs with its table's definition: the
// table, the operation, the key and an update's old values, each formatted as the server
// prints it. An undo record that is no row change (the dictionary's own, DDL, instant ALTER
// metadata, a bulk insert) is left out, and so is a transaction left without changes (DDL);
// what cannot be decoded exactly is said in Inexact.
func Resolve(trxs []*Trx, tables Tables) []*Trx {
	var out []*Trx
	for _, t := range trxs {
		keep := t.Changes[:0]
		for _, ch := range t.Changes {
			if resolve(ch, tables) {
				keep = append(keep, ch)
			}
		}
		if t.Changes = keep; len(keep) > 0 {
			out = append(out, t)
		}
	}
	return out
}

func resolve(ch *Change, tables Tables) bool {
	u, ok, err := ParseUndo(ch.raw, -1)
	if err != nil || !ok {
		return false // no row change, or not even its header decodes
	}
	ch.TableID, ch.UndoNo, ch.Op = u.TableID, u.UndoNo, u.Op()
	if u.TableID < 16 { // the dictionary's own tables (SYS_*): DDL, not a row of a user table
		return false
	}
	tb, err := tables(u.TableID)
	if err != nil {
		ch.Inexact = fmt.Sprintf("table id %d: %v: values not decoded", u.TableID, err)
		return true
	}
	ch.Table = tb.DB + "." + tb.TableName
	nKey := max(len(tb.PK), 1)
	if u, _, err = ParseUndo(ch.raw, nKey); err != nil {
		ch.Inexact = fmt.Sprintf("undo record at space %d page %d offset %d: %v", ch.Space, ch.Page, ch.Offset, err)
		return true
	}
	if ch.Op == Update { // what is not decoded lies in the update vector
		ch.Inexact = u.Inexact
	}
	var bad []string
	lay := ch.image // the fields' layout: the row image's, else the index's when given up
	if lay == nil {
		lay = ch.layout
	}
	conv := func(fs []Field) []Value {
		var out []Value
		for _, f := range fs {
			if f.Null {
				name, _, _ := tb.FieldValueAs(lay, f.Pos, nil)
				out = append(out, Value{Column: name, Value: "NULL", Null: true})
				continue
			}
			name, v, err := tb.FieldValueAs(lay, f.Pos, f.Bytes)
			if err != nil {
				bad = append(bad, err.Error())
				continue
			}
			out = append(out, Value{Column: name, Value: v, Binary: tb.FieldBinaryAs(lay, f.Pos)})
		}
		return out
	}
	if lay == nil && ch.layoutErr != "" {
		// which column a field is depends on the layout: no value is named by a guess
		bad = append(bad, "key and old values not decoded: the record layout: "+ch.layoutErr)
	} else {
		ch.Key = conv(u.Key)
		if ch.Op == Update { // an insert over a deleted record: its old values are the deleted row's
			ch.Old = conv(u.Old)
		}
	}
	switch {
	case ch.imgErr != "":
		bad = append(bad, "row image: "+ch.imgErr)
	case ch.image == nil:
		bad = append(bad, "the row image is not on the pages the log changed in the window (a page written back before the change, or the record gone)")
	default:
		for c, v := range ch.image.Row {
			if tb.Cols[c].SQL.Generated {
				continue
			}
			val := Value{Column: tb.Cols[c].Name, Binary: tb.ColumnBinary(c)}
			if v == nil {
				val.Value, val.Null = "NULL", true
			} else {
				val.Value = string(v)
			}
			ch.Row = append(ch.Row, val)
		}
		for _, o := range ch.Old {
			for _, v := range ch.Row {
				if v.Column == o.Column {
					ch.New = append(ch.New, v)
				}
			}
		}
	}
	if len(bad) > 0 {
		ch.Inexact = join(ch.Inexact, strings.Join(bad, "; "))
	}
	return true
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// OnlyTable keeps the changes of one table (db.table as SQL spells it) and the transactions
// that have any.
func OnlyTable(trxs []*Trx, table string) []*Trx {
	var out []*Trx
	for _, t := range trxs {
		keep := t.Changes[:0]
		for _, ch := range t.Changes {
			if ch.Table == table {
				keep = append(keep, ch)
			}
		}
		if t.Changes = keep; len(keep) > 0 {
			out = append(out, t)
		}
	}
	return out
}
