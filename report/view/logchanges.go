package view

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"innoscope/changes"
	"innoscope/rows"
)

// LogChanges writes the row changes of `log changes` as format says: tsv (one line a change:
// trx_id, state, end_lsn, lsn, table, op, key, old values, what is not exact), json (one
// document: the transactions with their changes) or sql (the statements that redo the committed
// transactions, or with reverse those that undo them, newest first). It returns how many
// changes a statement could not be written for (sql).
func LogChanges(out io.Writer, trxs []*changes.Trx, format string, reverse bool) (int, error) {
	switch {
	case format == "json":
		w := bufio.NewWriter(out)
		if trxs == nil {
			trxs = []*changes.Trx{}
		}
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		if err := e.Encode(map[string]any{"transactions": trxs}); err != nil {
			return 0, err
		}
		return 0, w.Flush()
	case reverse && format == "sql":
		order := make([]*changes.Trx, 0, len(trxs))
		for i := len(trxs) - 1; i >= 0; i-- {
			order = append(order, trxs[i])
		}
		trxs = order
	}
	s, err := NewChangeStream(out, format, reverse)
	if err != nil {
		return 0, err
	}
	for _, t := range trxs {
		s.Trx(t)
	}
	return s.Close()
}

// ChangeStream writes transactions one at a time as LogChanges does for tsv and sql, in the
// order given (for reverse sql: newest first).
type ChangeStream struct {
	w       *bufio.Writer
	sql     bool
	reverse bool
	missed  int
}

// NewChangeStream starts a stream of format tsv (its header line first) or sql. Output is
// buffered: nothing reaches out before 256 KiB are written or Close, so a caller that fails
// early and never calls Close prints nothing.
func NewChangeStream(out io.Writer, format string, reverse bool) (*ChangeStream, error) {
	s := &ChangeStream{w: bufio.NewWriterSize(out, 256<<10), reverse: reverse}
	switch format {
	case "tsv", "":
		s.w.WriteString("trx_id\tstate\tend_lsn\tlsn\ttable\top\tkey\told\tnew\trow\tinexact\n")
	case "sql":
		s.sql = true
	default:
		return nil, fmt.Errorf("unknown --format %q (tsv, json, sql)", format)
	}
	return s, nil
}

// Trx writes t: a line a change (tsv), or, committed, its statements (sql).
func (s *ChangeStream) Trx(t *changes.Trx) {
	if s.sql {
		s.missed += sqlTrx(s.w, t, s.reverse)
		return
	}
	w := s.w
	for _, ch := range t.Changes {
		st := t.State
		if ch.RolledBack && t.State != changes.RolledBack {
			st = "rolled back to a savepoint"
		}
		fmt.Fprintf(w, "%d\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, st, t.EndLSN, ch.LSN, tsv(ch.Table), ch.Op,
			tsv(pairs(ch.Key, ", ")), tsv(pairs(ch.Old, ", ")), tsv(pairs(ch.New, ", ")), tsv(pairs(ch.Row, ", ")), tsv(ch.Inexact))
	}
}

// Close flushes the stream; missed is how many changes a statement could not be written for
// (sql).
func (s *ChangeStream) Close() (missed int, err error) {
	return s.missed, s.w.Flush()
}

// sqlTrx writes one transaction block for t when it is committed: forward, each change as it
// was made where the undo record makes it exact (a delete by its key); reverse, newest first,
// what undoes it (an insert deleted by its key, an update's old values set back). A change no
// statement can be written for exactly is a comment that says why; missed counts them.
func sqlTrx(w *bufio.Writer, t *changes.Trx, reverse bool) (missed int) {
	if t.State != changes.Committed {
		return 0
	}
	if t.EndLSN == 0 && t.Xid != 0 {
		fmt.Fprintf(w, "-- trx %d, committed by the binary log (Xid %d): its commit is not in the redo log\nSTART TRANSACTION;\n", t.ID, t.Xid)
	} else {
		fmt.Fprintf(w, "-- trx %d, committed at LSN %d\nSTART TRANSACTION;\n", t.ID, t.EndLSN)
	}
	chs := t.Changes
	for k := range chs {
		ch := chs[k]
		if reverse {
			ch = chs[len(chs)-1-k]
		}
		if ch.RolledBack {
			continue
		}
		stmt, why := statement(ch, reverse)
		if why != "" {
			missed++
			fmt.Fprintf(w, "-- LSN %d: %s on %s: not written: %s\n", ch.LSN, ch.Op, ch.Table, why)
			continue
		}
		w.WriteString(stmt)
	}
	w.WriteString("COMMIT;\n")
	return missed
}

// statement is the statement for ch, or why none is exact: forward an insert is its row
// inserted, an update its new values set, a delete its key deleted; reverse an insert is its key
// deleted, an update its old values set back, a delete its old row inserted again.
func statement(ch *changes.Change, reverse bool) (string, string) {
	switch {
	case ch.Table == "" || ch.Inexact != "":
		return "", "the change is not decoded exactly: " + ch.Inexact
	case len(ch.Key) == 1 && ch.Key[0].Column == "DB_ROW_ID":
		return "", "the table has no primary key: its rows have no key a statement can name"
	}
	db, tb, _ := strings.Cut(ch.Table, ".")
	name := rows.QuoteIdent(db) + "." + rows.QuoteIdent(tb)
	where := " WHERE " + sqlPairs(ch.Key, " AND ") + ";\n"
	switch {
	case ch.Op == changes.Delete && !reverse, ch.Op == changes.Insert && reverse:
		return "DELETE FROM " + name + where, ""
	case ch.Op == changes.Update && reverse:
		return "UPDATE " + name + " SET " + sqlPairs(ch.Old, ", ") + where, ""
	case ch.Op == changes.Update:
		return "UPDATE " + name + " SET " + sqlPairs(ch.New, ", ") + where, ""
	}
	var cols []string
	for _, v := range ch.Row {
		cols = append(cols, rows.QuoteIdent(v.Column))
	}
	return "INSERT INTO " + name + " (" + strings.Join(cols, ",") + ") VALUES (" + sqlValues(ch.Row) + ");\n", ""
}

func pairs(vs []changes.Value, sep string) string {
	var b strings.Builder
	for i, v := range vs {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(v.Column + "=" + v.Value)
	}
	return b.String()
}

func sqlPairs(vs []changes.Value, sep string) string { return sqlList(vs, sep, true) }

func sqlValues(vs []changes.Value) string { return sqlList(vs, ",", false) }

// sqlList writes values as a statement gives them, each after its column's name and "=" when
// named.
func sqlList(vs []changes.Value, sep string, named bool) string {
	var b strings.Builder
	w := bufio.NewWriter(&b)
	for i, v := range vs {
		if i > 0 {
			w.WriteString(sep)
		}
		if named {
			w.WriteString(rows.QuoteIdent(v.Column) + "=")
		}
		switch {
		case v.Null:
			w.WriteString("NULL")
		case v.Binary:
			rows.Quote(w, rows.QuoteHex, []byte(v.Value))
		default:
			rows.Quote(w, rows.QuoteString, []byte(v.Value))
		}
	}
	w.Flush()
	return b.String()
}

// tsvEscapes escapes as mariadb --batch does (built once: building it is most of the cost).
var tsvEscapes = strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\x00", `\0`)

// tsv escapes a field as mariadb --batch does (backslash, tab, newline, NUL).
func tsv(s string) string { return tsvEscapes.Replace(s) }
